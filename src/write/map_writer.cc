#include "sluice/write/map_writer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <span>

#include "compression_worker_internal.h"
#include "rows_by_partition_internal.h"
#include "sluice/base/byte_size.h"
#include "sluice/base/check.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/saturating_arithmetic.h"
#include "sluice/base/stopwatch.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/dictionary_values.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/write/map_output_files.h"

namespace sluice {

using internal::CompressionWorker;

class MapWriter::Impl {
 public:
  explicit Impl(MapWriterOptions options) : options_(std::move(options)) {}

  ~Impl() { Abort(); }

  Status Init() {
    if (options_.schema == nullptr) return Status::Invalid("MapWriter: a schema is required");
    if (options_.unpack_dictionaries && HasDictionary(*options_.schema)) {
      input_schema_ = options_.schema;
      options_.schema = UnpackedSchema(input_schema_);
    }
    if (options_.data_path.empty()) return Status::Invalid("MapWriter: data_path is required");
    if (options_.target_block_rows < 1 || options_.target_block_bytes < 1) {
      return Status::Invalid("MapWriter: target block rows and bytes must be positive");
    }
    if (options_.compression_threads < 0 || options_.compression_threads > 1) {
      return Status::Invalid(
          "MapWriter: compression_threads is 0 (compress inline) or 1 (one "
          "background thread), not ",
          options_.compression_threads);
    }
    const PartitionerOptions& partitioning = options_.partitioning;
    if (partitioning.kind == PartitionKind::kGiven && partitioning.key_columns.empty()) {
      // Ids arrive with every batch (Write(batch, ids)); no column holds them.
      if (partitioning.partition_count < 1) {
        return Status::Invalid("MapWriter: the partition count must be at least 1");
      }
      partition_count_ = partitioning.partition_count;
    } else {
      SLUICE_ASSIGN_OR_RAISE(partitioner_, MakePartitioner(partitioning, *options_.schema));
      partition_count_ = partitioner_->partition_count();
    }
    max_held_bytes_ = options_.max_held_bytes;
    if (max_held_bytes_ == MapWriterOptions::kAutoMaxHeldBytes) {
      max_held_bytes_ = std::max(kAutoHeldBytes, kAutoHeldBytesPerPartition * partition_count_);
    } else if (max_held_bytes_ < 0) {
      return Status::Invalid("MapWriter: max_held_bytes must be 0, positive or automatic, got ",
                             options_.max_held_bytes);
    }
    SLUICE_ASSIGN_OR_RAISE(encoder_, SegmentEncoder::Make(options_.schema, options_.encoding));
    budget_ = options_.memory_budget != nullptr
                  ? options_.memory_budget
                  : std::make_shared<FixedMemoryBudget>(options_.memory_limit);
    SLUICE_RETURN_NOT_OK(ReservePartitionState());
    MapOutputFilesOptions files = OutputFilesOptionsFor(options_);
    SLUICE_ASSIGN_OR_RAISE(files_, MapOutputFiles::Create(std::move(files), partition_count_,
                                                          encoder_->schema_message()));
    if (options_.compact_segment_bytes < 0) {
      return Status::Invalid("MapWriter: compact_segment_bytes must be 0 or positive, got ",
                             options_.compact_segment_bytes);
    }
    if (options_.compact_segment_bytes > 0 && options_.encoding.codec != CompressionCodec::kNone) {
      SLUICE_ASSIGN_OR_RAISE(compact_,
                             CompactSegmentEncoder::Make(options_.schema, options_.encoding));
      files_->EnableCompaction(
          compact_.get(), options_.compact_segment_bytes,
          MapOutputFiles::SchemaReferencesFor(options_.compact_schema_dictionary,
                                              options_.readers_have_schema),
          MapOutputFiles::PlainRows{
              [this](int32_t p) { return HeldPlainBytes(p); },
              [this](int32_t p, AlignedBuffer* out) { return EncodeHeldPlain(p, out); }});
    }
    if (options_.compression_threads > 0 && options_.encoding.codec != CompressionCodec::kNone) {
      SLUICE_ASSIGN_OR_RAISE(worker_, internal::CompressionWorker::Make(encoder_.get()));
    }
    return Status::OK();
  }

  // What the writer keeps per partition whatever the data is fixed scratch up to
  // kPartitionStateScratchBytes (1M partitions); more must be granted by the budget before any of
  // it is made, so that a partition count the budget cannot carry fails here, with the figures,
  // instead of allocating past the budget.
  Status ReservePartitionState() {
    const auto partitions = static_cast<int64_t>(partition_count_);
    int64_t per_partition = RowsByPartition::kBytesPerPartition + kLayoutBytesPerPartition;
    if (options_.count_partition_rows) per_partition += static_cast<int64_t>(sizeof(int64_t));
    if (options_.write_spark_files) per_partition += kSparkFilesBytesPerPartition;
    const int64_t bytes = partitions * per_partition;
    metrics_.partition_state_bytes = bytes;
    if (bytes <= kPartitionStateScratchBytes) return Status::OK();
    if (!budget_->TryReserve(bytes)) {
      return Status::OutOfMemory(
          "MapWriter: ", partitions, " partitions need ", FormatByteSize(bytes),
          " of per-partition state (", per_partition,
          " bytes each: the sort's partition starts, the output's offsets, lengths and "
          "checksums",
          options_.write_spark_files ? ", Spark's index and checksum files" : "",
          options_.count_partition_rows ? ", the row counts" : "", "); above ",
          FormatByteSize(kPartitionStateScratchBytes),
          " it is charged to the memory budget, which cannot grant it (",
          FormatByteSize(budget_->reserved()),
          " reserved already): raise the budget or use fewer partitions");
    }
    partition_state_bytes_ = bytes;
    metrics_.peak_reserved_bytes = bytes;
    return Status::OK();
  }

  int32_t partition_count() const { return partition_count_; }
  int64_t held_bytes() const { return held_bytes_; }
  const MapWriterMetrics& metrics() const { return metrics_; }

  Status Write(const RecordBatch& batch, const uint32_t* partition_ids) {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    const auto start = SteadyClock::now();
    Status status =
        GuardFailures("MapWriter::Write", [&] { return DoWrite(batch, partition_ids); });
    total_nanos_ += NanosSince(start);
    if (!status.ok()) Abort();
    return status;
  }

  Status Spill() {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    const auto start = SteadyClock::now();
    Status status = GuardFailures("MapWriter::Spill", [&] { return DoSpill(); });
    total_nanos_ += NanosSince(start);
    if (!status.ok()) Abort();
    return status;
  }

  Result<MapOutput> Finish() {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    auto output = GuardFailures("MapWriter::Finish", [&] { return DoFinish(); });
    if (!output.ok()) Abort();
    return output;
  }

  void Abort() {
    if (state_ == State::kAborted) return;
    state_ = State::kAborted;
    // First: a block in flight reads the held batches.
    if (worker_ != nullptr) worker_->Stop();
    ReleaseHeld();
    sort_.Release();
    if (files_ != nullptr) files_->Abort();
    ReleasePartitionState();
  }

  void ReleasePartitionState() {
    if (partition_state_bytes_ > 0) budget_->Release(partition_state_bytes_);
    partition_state_bytes_ = 0;
  }

 private:
  enum class State { kOpen, kFinished, kAborted };

  Status CheckOpen() const {
    if (state_ == State::kOpen) return Status::OK();
    return Status::Invalid("MapWriter for '", options_.data_path, "' is ",
                           state_ == State::kFinished ? "finished" : "aborted");
  }

  Status DoWrite(const RecordBatch& input, const uint32_t* given_ids) {
    if (input_schema_ != nullptr) {
      if (input.schema() == nullptr) return Status::Invalid("the batch has no schema");
      SLUICE_RETURN_NOT_OK(
          CheckSameFields(*input_schema_, *input.schema(), "the writer's schema", "the batch"));
      SLUICE_ASSIGN_OR_RAISE(RecordBatch unpacked, UnpackDictionaries(input, options_.schema));
      return WriteInWriterSchema(unpacked, given_ids);
    }
    return WriteInWriterSchema(input, given_ids);
  }

  Status WriteInWriterSchema(const RecordBatch& batch, const uint32_t* given_ids) {
    if (batch.schema() != options_.schema && batch.schema() != last_checked_schema_) {
      if (batch.schema() == nullptr) return Status::Invalid("the batch has no schema");
      SLUICE_RETURN_NOT_OK(
          CheckSameFields(*options_.schema, *batch.schema(), "the writer's schema", "the batch"));
      last_checked_schema_ = batch.schema();
    }
    metrics_.batches += 1;
    const int64_t rows = batch.num_rows();
    if (rows == 0) return Status::OK();
    if (options_.validate_utf8) {
      for (size_t i = 0; i < batch.num_columns(); ++i) {
        SLUICE_RETURN_NOT_OK(ValidateUtf8(batch.column(i), batch.schema()->field(i).name));
      }
    }
    if (rows <= kMaxRowsPerSlice) return WriteRows(batch, given_ids, batch.ReferencedBytes());
    // A batch's length is 64-bit in Arrow and costs nothing to declare: 2^31 rows of no columns
    // (or of null columns) fit in 152 bytes. The per-row state (partition ids and the sort's
    // row list) is taken a slice at a time, each charged to the budget before it is made, and
    // the batch's buffers are charged in proportion to each slice's rows.
    const int64_t input_bytes = batch.ReferencedBytes();
    for (int64_t start = 0; start < rows; start += kMaxRowsPerSlice) {
      const int64_t count = std::min(kMaxRowsPerSlice, rows - start);
      const auto share = static_cast<int64_t>(static_cast<long double>(input_bytes) * count / rows);
      SLUICE_RETURN_NOT_OK(WriteRows(batch.Slice(start, count),
                                     given_ids != nullptr ? given_ids + start : nullptr, share));
    }
    return Status::OK();
  }

  // Partitions and holds the rows of `batch` (at most kMaxRowsPerSlice), whose buffers are
  // charged as `input_bytes`.
  Status WriteRows(const RecordBatch& batch, const uint32_t* given_ids, int64_t input_bytes) {
    const int64_t rows = batch.num_rows();
    const int64_t charged_bytes = input_bytes + rows * (static_cast<int64_t>(sizeof(uint32_t)) +
                                                        RowsByPartition::kBytesPerRow);
    if (!budget_->TryReserve(charged_bytes)) {
      SLUICE_RETURN_NOT_OK(DoSpill());
      // One batch larger than the budget is still taken; it goes out with the next spill.
      if (!budget_->TryReserve(charged_bytes)) budget_->ForceReserve(charged_bytes);
    }
    HeldBatch held;
    held.charged_bytes = charged_bytes;
    held.batch = batch;
    Status partitioned = PartitionRows(batch, given_ids, &held);
    if (!partitioned.ok()) {
      budget_->Release(charged_bytes);
      return partitioned;
    }
    held_bytes_ += held.charged_bytes;
    held_rows_ = SaturatingAdd(held_rows_, rows);
    metrics_.rows = SaturatingAdd(metrics_.rows, rows);
    metrics_.input_bytes += input_bytes;
    metrics_.peak_reserved_bytes =
        std::max(metrics_.peak_reserved_bytes, partition_state_bytes_ + held_bytes_);
    held_.push_back(std::move(held));
    if (max_held_bytes_ > 0 && held_bytes_ >= max_held_bytes_) return DoSpill();
    return Status::OK();
  }

  // Fills held->partition_ids with the partition of each row of `batch`.
  Status PartitionRows(const RecordBatch& batch, const uint32_t* given_ids, HeldBatch* held) {
    const int64_t rows = batch.num_rows();
    held->partition_ids.Resize(rows * static_cast<int64_t>(sizeof(uint32_t)));
    auto* ids = reinterpret_cast<uint32_t*>(held->partition_ids.data());
    const auto partition_start = SteadyClock::now();
    if (given_ids != nullptr) {
      for (int64_t row = 0; row < rows; ++row) {
        if (given_ids[row] >= static_cast<uint32_t>(partition_count_)) {
          return Status::Invalid("row ", row, " is given partition ", given_ids[row], " of ",
                                 partition_count_);
        }
      }
      std::memcpy(ids, given_ids, static_cast<size_t>(rows) * sizeof(uint32_t));
    } else if (partitioner_ != nullptr) {
      SLUICE_RETURN_NOT_OK(partitioner_->Partition(batch, ids));
    } else {
      return Status::Invalid(
          "this MapWriter takes partition ids with each batch "
          "(given partitioning without an id column)");
    }
    metrics_.partition_nanos += NanosSince(partition_start);
    return Status::OK();
  }

  // Rows per block for the held data: the row target, lowered so that blocks stay near the
  // byte target at the input's average row size.
  int64_t RowsPerBlock() const {
    if (held_rows_ == 0) return options_.target_block_rows;
    return std::clamp<int64_t>(options_.target_block_bytes / HeldRowBytes(), 1,
                               options_.target_block_rows);
  }

  // The held rows' average size in charged bytes (at least 1).
  int64_t HeldRowBytes() const {
    return std::max<int64_t>(1, held_bytes_ / std::max<int64_t>(1, held_rows_));
  }

  // Groups the held rows by partition and binds the encoder to the held batches.
  void SortHeld() {
    if (worker_ != nullptr) ResetBehind();
    sort_.Build(held_, partition_count_);
    if (options_.count_partition_rows) {
      partition_rows_.resize(static_cast<size_t>(partition_count_));
      for (int32_t p = 0; p < partition_count_; ++p) {
        partition_rows_[p] += sort_.end(p) - sort_.begin(p);
      }
    }
    rows_per_block_ = RowsPerBlock();
    held_batches_.clear();
    for (const HeldBatch& held : held_) held_batches_.push_back(&held.batch);
    encoder_->BindBatches(held_batches_);
    if (compact_ != nullptr) compact_->plain_encoder()->BindBatches(held_batches_);
    if (worker_ != nullptr) worker_->BindBatches(held_batches_);
  }

  // The bytes partition p's held rows take uncompressed, at the held rows' average size.
  int64_t HeldPlainBytes(int32_t partition) const {
    if (held_.empty()) return 0;
    return (sort_.end(partition) - sort_.begin(partition)) * HeldRowBytes();
  }

  // Appends partition p's held rows to `out` as one plain RecordBatch message.
  Status EncodeHeldPlain(int32_t partition, AlignedBuffer* out) {
    const int64_t begin = sort_.begin(partition);
    const int64_t count = sort_.end(partition) - begin;
    return compact_->plain_encoder()->AppendRows(sort_.sources() + begin, sort_.rows() + begin,
                                                 count, out, sort_.row_count() - begin - count);
  }

  // Appends the blocks of partition p's held rows to `file`, updating `checksum`.
  Status EncodeHeldPartition(int32_t partition, OutputFile* file, Checksum* checksum) {
    if (worker_ != nullptr) return EncodeHeldPartitionBehind(partition, file, checksum);
    const int64_t begin = sort_.begin(partition);
    const int64_t end = sort_.end(partition);
    for (int64_t from = begin; from < end; from += rows_per_block_) {
      const int64_t count = std::min(end - from, rows_per_block_);
      AlignedBuffer* pending = file->pending();
      const int64_t start = pending->size();
      SLUICE_RETURN_NOT_OK(encoder_->AppendRows(sort_.sources() + from, sort_.rows() + from, count,
                                                pending, sort_.row_count() - from - count));
      checksum->Update(pending->data() + start, pending->size() - start);
      SLUICE_RETURN_NOT_OK(files_->FlushIfFull(file));
    }
    return Status::OK();
  }

  // A block of the held rows: partition and first row in the sort.
  struct BlockKey {
    int32_t partition = -1;
    int64_t from = 0;
    bool operator==(const BlockKey&) const = default;
  };

  // Sets `*next` to the block after `block` in the order the files ask for them (partitions
  // ascending, blocks in order); false after the last.
  bool NextHeldBlock(const BlockKey& block, BlockKey* next) const {
    if (block.from + rows_per_block_ < sort_.end(block.partition)) {
      *next = BlockKey{block.partition, block.from + rows_per_block_};
      return true;
    }
    for (int32_t p = block.partition + 1; p < partition_count_; ++p) {
      // Rows written plain (compaction) are encoded on this thread, not planned.
      if (sort_.begin(p) != sort_.end(p) && !files_->WritesHeldRowsPlain(p)) {
        *next = BlockKey{p, sort_.begin(p)};
        return true;
      }
    }
    return false;
  }

  // EncodeHeldPartition with the compression worker: blocks are planned ahead, a job at a
  // time (across partitions: the next partition's blocks too), encoded by both threads, and
  // appended here. The file sees the same bytes in the same order as inline, and errors come in
  // the same order: each block's gathering or codec error is returned when that block is
  // reached, after every earlier block was appended.
  Status EncodeHeldPartitionBehind(int32_t partition, OutputFile* file, Checksum* checksum) {
    const int64_t end = sort_.end(partition);
    for (int64_t from = sort_.begin(partition); from < end; from += rows_per_block_) {
      std::span<const uint8_t> message;
      SLUICE_RETURN_NOT_OK(CompressedBlock(BlockKey{partition, from}, &message));
      file->Append(message.data(), static_cast<int64_t>(message.size()));
      checksum->Update(message.data(), static_cast<int64_t>(message.size()));
      SLUICE_RETURN_NOT_OK(files_->FlushIfFull(file));
    }
    return Status::OK();
  }

  // Sets `*message` to the framed message of `block`, taken from the job being consumed, or
  // after planning the next job and encoding the one in flight.
  Status CompressedBlock(const BlockKey& block, std::span<const uint8_t>* message) {
    while (true) {
      if (consumed_job_ >= 0) {
        JobKeys& keys = job_keys_[consumed_job_];
        if (keys.next < keys.blocks.size()) {
          if (keys.blocks[keys.next] != block) {
            // Asked in an order the gathering did not foresee: start again from this block.
            ResetBehind();
            continue;
          }
          const CompressionWorker::Job& job = *worker_->job(consumed_job_);
          if (keys.next >= job.framed()) return job.status();
          *message = job.message(keys.next);
          keys.next += 1;
          return Status::OK();
        }
        consumed_job_ = -1;  // used up: its slot is free
      }
      if (!worker_->busy()) {
        // Nothing in flight: the first block of a flush (or after a reset).
        plan_next_ = block;
        plan_more_ = true;
        job_bytes_ = kFirstJobBytes;
        PlanAndSubmit(0);
      }
      // Two jobs in flight, so that neither thread waits at the end of one: plan the next into
      // the free slot, then join the older and take it over; the thread goes on with the newer
      // while this one appends the older's messages.
      if (worker_->in_flight() == 1 && plan_more_) PlanAndSubmit(1 - worker_->oldest());
      consumed_job_ = worker_->Wait();
    }
  }

  // Plans the blocks from plan_next_ on into slot `slot` until the job holds about job_bytes_
  // of held rows.
  void PlanJob(int slot) {
    CompressionWorker::Job* job = worker_->job(slot);
    JobKeys& keys = job_keys_[slot];
    job->blocks.clear();
    keys.blocks.clear();
    keys.next = 0;
    const int64_t row_bytes = HeldRowBytes();
    int64_t job_rows = 0;
    while (plan_more_ && job_rows * row_bytes < job_bytes_ && keys.blocks.size() < kMaxJobBlocks) {
      const BlockKey block = plan_next_;
      const int64_t count = std::min(sort_.end(block.partition) - block.from, rows_per_block_);
      job->blocks.push_back(CompressionWorker::BlockRows{sort_.sources() + block.from,
                                                         sort_.rows() + block.from, count,
                                                         sort_.row_count() - block.from - count});
      keys.blocks.push_back(block);
      job_rows += count;
      plan_more_ = NextHeldBlock(block, &plan_next_);
    }
    job_bytes_ = std::min(job_bytes_ * 2, kJobBytes);
  }

  // Plans the next job into slot `slot` and puts it in flight. The last job of the task's last
  // flush lets the thread end once it has taken its share, so that its exit overlaps the last
  // writes and the commit (joining it at Finish was a measurable share of a small task).
  void PlanAndSubmit(int slot) {
    PlanJob(slot);
    worker_->Submit(slot);
    if (finishing_ && !plan_more_) worker_->StopWhenIdle();
  }

  // Drops every job planned ahead (waiting for the blocks being encoded).
  void ResetBehind() {
    worker_->Cancel();
    consumed_job_ = -1;
    plan_more_ = false;
    for (JobKeys& keys : job_keys_) {
      keys.blocks.clear();
      keys.next = 0;
    }
  }

  void ReleaseHeld() {
    if (held_bytes_ > 0) budget_->Release(held_bytes_);
    held_.clear();
    held_bytes_ = 0;
    held_rows_ = 0;
  }

  bool HeldHasRows(int32_t partition) const {
    return !held_.empty() && sort_.begin(partition) != sort_.end(partition);
  }

  Status DoSpill() {
    if (held_.empty()) return Status::OK();
    SortHeld();
    SLUICE_RETURN_NOT_OK(files_->Spill([this](int32_t p) { return HeldHasRows(p); },
                                       [this](int32_t p, OutputFile* file, Checksum* checksum) {
                                         return EncodeHeldPartition(p, file, checksum);
                                       }));
    ReleaseHeld();
    SyncMetrics();
    return Status::OK();
  }

  // Copies the encoder's and the files' counters into metrics_.
  void SyncMetrics() {
    const auto& encoder_metrics = encoder_->metrics();
    const auto& file_metrics = files_->metrics();
    metrics_.blocks = encoder_metrics.blocks;
    metrics_.compress_nanos = encoder_metrics.compress_nanos;
    if (compact_ != nullptr) {
      metrics_.blocks += compact_->plain_encoder()->metrics().blocks;
      metrics_.compress_nanos += compact_->compress_nanos();
    }
    if (worker_ != nullptr) {
      // The blocks this thread encoded beside the worker's.
      metrics_.blocks += worker_->caller_encoder_metrics().blocks;
      metrics_.compress_nanos += worker_->caller_encoder_metrics().compress_nanos;
      // Both threads' encoding, less its codec calls, was gathering.
      metrics_.gather_nanos = worker_->encode_nanos() - metrics_.compress_nanos;
    } else {
      // What the flushes spent neither in the codec nor in file writes was gathering.
      metrics_.gather_nanos =
          file_metrics.flush_nanos - file_metrics.write_nanos - metrics_.compress_nanos;
    }
    metrics_.spills = file_metrics.spills;
    metrics_.spill_bytes = file_metrics.spill_bytes;
    metrics_.write_nanos = file_metrics.write_nanos;
    metrics_.output_bytes = file_metrics.output_bytes;
    metrics_.total_nanos = total_nanos_;
  }

  Result<MapOutput> DoFinish() {
    const auto finish_start = SteadyClock::now();
    finishing_ = true;
    if (!held_.empty()) SortHeld();
    MapOutput output;
    SLUICE_RETURN_NOT_OK(files_->Finish([this](int32_t p) { return HeldHasRows(p); },
                                        [this](int32_t p, OutputFile* file, Checksum* checksum) {
                                          return EncodeHeldPartition(p, file, checksum);
                                        },
                                        &output));
    ReleaseHeld();
    sort_.Release();
    if (worker_ != nullptr) worker_->Stop();
    total_nanos_ += NanosSince(finish_start);
    SyncMetrics();
    output.metrics = metrics_;
    if (options_.count_partition_rows) {
      partition_rows_.resize(static_cast<size_t>(partition_count_));
      output.partition_rows = std::move(partition_rows_);
    }
    ReleasePartitionState();
    state_ = State::kFinished;
    return output;
  }

  // Rows of one batch partitioned and held at a time: 1M rows cost 12 MiB of per-row state
  // (partition id, and the sort's row and batch index), charged before it is made.
  static constexpr int64_t kMaxRowsPerSlice = int64_t{1} << 20;
  // Per partition: the output's offset, length and checksum (MapOutputLayout); Spark's index and
  // checksum files are written from big-endian copies of the offsets and checksums.
  static constexpr int64_t kLayoutBytesPerPartition = 2 * sizeof(int64_t) + sizeof(uint32_t);
  static constexpr int64_t kSparkFilesBytesPerPartition = 2 * sizeof(uint64_t);
  // Per-partition state up to this is fixed scratch beside the budget; above, it is charged.
  static constexpr int64_t kPartitionStateScratchBytes = int64_t{64} << 20;
  // The automatic max_held_bytes (see MapWriterOptions).
  static constexpr int64_t kAutoHeldBytes = int64_t{64} << 20;
  static constexpr int64_t kAutoHeldBytesPerPartition = int64_t{64} << 10;

  MapWriterOptions options_;
  int64_t max_held_bytes_ = 0;  // 0: only the budget limits what is held
  std::unique_ptr<Partitioner> partitioner_;
  int32_t partition_count_ = 0;
  std::unique_ptr<SegmentEncoder> encoder_;
  std::unique_ptr<CompactSegmentEncoder> compact_;  // null unless small partitions are compact
  std::shared_ptr<MemoryBudget> budget_;
  SchemaPtr last_checked_schema_;
  // With unpack_dictionaries, the schema batches are written in (options_.schema is then the
  // unpacked one the segments have); null otherwise.
  SchemaPtr input_schema_;
  State state_ = State::kOpen;

  std::vector<HeldBatch> held_;
  int64_t held_bytes_ = 0;
  int64_t held_rows_ = 0;
  int64_t partition_state_bytes_ = 0;  // charged to budget_ by ReservePartitionState
  RowsByPartition sort_;
  int64_t rows_per_block_ = 1;
  std::vector<const RecordBatch*> held_batches_;

  // With compression_threads: the thread that encodes blocks beside this one. A job's held
  // bytes: the first of a flush small, so the first messages come soon; later ones small enough
  // that the job's messages stay in the L2 cache and that the last job is short. Hand-overs are
  // cheap as the two threads poll briefly before sleeping (see CompressionWorker). Measured,
  // lz4 at 200 partitions, two jobs in flight: 16/128 KiB jobs gave 0.77 of the raw codec's
  // throughput, 16/512 KiB 0.73 (medians of 8 alternating rounds). 4096 blocks at most, so a
  // job of tiny blocks stays small.
  static constexpr int64_t kFirstJobBytes = int64_t{16} << 10;
  static constexpr int64_t kJobBytes = int64_t{128} << 10;
  static constexpr size_t kMaxJobBlocks = 4096;
  // The blocks of each slot's job, and how many of them were appended.
  struct JobKeys {
    std::vector<BlockKey> blocks;
    size_t next = 0;
  };
  std::unique_ptr<internal::CompressionWorker> worker_;
  JobKeys job_keys_[2];
  int consumed_job_ = -1;  // the slot whose messages are being appended
  BlockKey plan_next_;     // the next block to plan, while plan_more_
  bool plan_more_ = false;
  int64_t job_bytes_ = kFirstJobBytes;
  bool finishing_ = false;  // the flush is Finish's: the thread is not needed after it

  std::unique_ptr<MapOutputFiles> files_;
  int64_t total_nanos_ = 0;
  MapWriterMetrics metrics_;
  std::vector<int64_t> partition_rows_;  // count_partition_rows only
};

MapWriter::MapWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MapWriter::~MapWriter() = default;

Result<std::unique_ptr<MapWriter>> MapWriter::Make(MapWriterOptions options) {
  return GuardFailures("MapWriter::Make", [&]() -> Result<std::unique_ptr<MapWriter>> {
    auto impl = std::make_unique<Impl>(std::move(options));
    SLUICE_RETURN_NOT_OK(impl->Init());
    return std::unique_ptr<MapWriter>(new MapWriter(std::move(impl)));
  });
}

Status MapWriter::Write(const RecordBatch& batch) {
  return impl_->Write(batch, nullptr);
}
Status MapWriter::Write(const RecordBatch& batch, const uint32_t* partition_ids) {
  return impl_->Write(batch, partition_ids);
}
Status MapWriter::Spill() {
  return impl_->Spill();
}
Result<MapOutput> MapWriter::Finish() {
  return impl_->Finish();
}
void MapWriter::Abort() {
  impl_->Abort();
}
int32_t MapWriter::partition_count() const {
  return impl_->partition_count();
}
int64_t MapWriter::held_bytes() const {
  return impl_->held_bytes();
}
const MapWriterMetrics& MapWriter::metrics() const {
  return impl_->metrics();
}

MapOutputFilesOptions OutputFilesOptionsFor(const MapWriterOptions& options) {
  MapOutputFilesOptions files;
  files.data_path = options.data_path;
  files.spill_directories = options.spill_directories;
  if (files.spill_directories.empty())
    files.spill_directories.push_back(DirectoryOf(options.data_path));
  files.checksum = options.checksum;
  files.overwrite = options.overwrite;
  files.write_in_place = options.write_in_place;
  files.sync = options.sync;
  files.file = options.file;
  if (options.write_spark_files) {
    const auto names = SparkShuffleFileNames::ForDataFile(options.data_path);
    files.index_path = options.index_path.empty() ? names.index : options.index_path;
    if (options.checksum != ChecksumAlgorithm::kNone) {
      files.checksum_path =
          options.checksum_path.empty() ? names.Checksum(options.checksum) : options.checksum_path;
    }
  }
  return files;
}

}  // namespace sluice
