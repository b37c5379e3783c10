#include "sluice/write/map_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>

#include "rows_by_partition_internal.h"
#include "sluice/io/input_file.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice {

namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Spill pieces at least this large go through copy_file_range; smaller ones through one
// sequential read buffer per spill file, so a merge of many small partitions costs a syscall per
// megabyte, not per partition.
constexpr int64_t kKernelCopyMinBytes = int64_t{1} << 20;
constexpr int64_t kSpillReadBufferBytes = int64_t{1} << 20;

bool FileExists(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Renames without replacing an existing file (renameat2 RENAME_NOREPLACE), or replacing it.
Status CommitRename(const std::string& from, const std::string& to, bool overwrite) {
  if (overwrite) return RenameFile(from, to);
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) {
    const int error = errno;
    if (error == EEXIST) {
      return Status::IOError("'", to, "' appeared while this task ran; a committed map output "
                             "is never overwritten");
    }
    return Status::IOError("cannot rename '", from, "' to '", to, "': ", ErrnoMessage(error));
  }
  return Status::OK();
}

// One spill event: a file with every partition in order, and where each partition lies.
struct SpillRecord {
  std::unique_ptr<OutputFile> file;  // closed after writing; removes the file when destroyed
  std::unique_ptr<InputFile> reader;
  std::vector<int64_t> offsets;      // P + 1
  std::vector<uint32_t> checksums;   // P, empty without a checksum
};

}  // namespace

class MapWriter::Impl {
 public:
  explicit Impl(MapWriterOptions options) : options_(std::move(options)) {}

  ~Impl() { Abort(); }

  Status Init() {
    if (options_.schema == nullptr) return Status::Invalid("MapWriter: a schema is required");
    if (options_.data_path.empty()) return Status::Invalid("MapWriter: data_path is required");
    if (options_.target_block_rows < 1 || options_.target_block_bytes < 1) {
      return Status::Invalid("MapWriter: target block rows and bytes must be positive");
    }
    SLUICE_ASSIGN_OR_RAISE(partitioner_, MakePartitioner(options_.partitioning, *options_.schema));
    partition_count_ = partitioner_->partition_count();
    SLUICE_ASSIGN_OR_RAISE(encoder_, SegmentEncoder::Make(options_.schema, options_.encoding));
    budget_ = options_.memory_budget != nullptr
                  ? options_.memory_budget
                  : std::make_shared<FixedMemoryBudget>(options_.memory_limit);
    if (options_.spill_directories.empty()) {
      options_.spill_directories.push_back(DirectoryOf(options_.data_path));
    }
    if (options_.write_spark_files) {
      const auto names = SparkShuffleFileNames::ForDataFile(options_.data_path);
      if (options_.index_path.empty()) options_.index_path = names.index;
      if (options_.checksum_path.empty()) {
        options_.checksum_path = names.Checksum(options_.checksum);
      }
      if (options_.checksum == ChecksumAlgorithm::kNone) options_.checksum_path.clear();
    } else {
      options_.index_path.clear();
      options_.checksum_path.clear();
    }
    if (!options_.overwrite) {
      for (const std::string* path :
           {&options_.data_path, &options_.index_path, &options_.checksum_path}) {
        if (!path->empty() && FileExists(*path)) {
          return Status::IOError("'", *path, "' already exists; a committed map output is never "
                                 "overwritten (set overwrite to replace it)");
        }
      }
    }
    SLUICE_ASSIGN_OR_RAISE(data_file_,
                           OutputFile::Create(TemporaryPathFor(options_.data_path), options_.file));
    // The pieces every non-empty partition starts and ends with, checksummed once.
    const auto schema_message = encoder_->schema_message();
    schema_checksum_ =
        UpdateChecksum(options_.checksum, EmptyChecksum(options_.checksum), schema_message.data(),
                       static_cast<int64_t>(schema_message.size()));
    end_of_stream_checksum_ =
        UpdateChecksum(options_.checksum, EmptyChecksum(options_.checksum),
                       ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
    return Status::OK();
  }

  int32_t partition_count() const { return partition_count_; }
  int64_t held_bytes() const { return held_bytes_; }
  const MapWriterMetrics& metrics() const { return metrics_; }

  Status Write(const RecordBatch& batch) {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    const auto start = Clock::now();
    Status status = DoWrite(batch);
    total_nanos_ += NanosSince(start);
    if (!status.ok()) Abort();
    return status;
  }

  Status Spill() {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    const auto start = Clock::now();
    Status status = DoSpill();
    total_nanos_ += NanosSince(start);
    if (!status.ok()) Abort();
    return status;
  }

  Result<MapOutput> Finish() {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    auto output = DoFinish();
    if (!output.ok()) Abort();
    return output;
  }

  void Abort() {
    if (state_ == State::kAborted) return;
    const bool committed = state_ == State::kFinished;
    state_ = State::kAborted;
    ReleaseHeld();
    sort_.Release();
    spills_.clear();  // removes spill files
    if (data_file_ != nullptr) data_file_->Remove();
    for (const auto& path : temporary_paths_) ::unlink(path.c_str());
    temporary_paths_.clear();
    if (!committed) {
      for (const auto& path : committed_paths_) ::unlink(path.c_str());
    }
    committed_paths_.clear();
  }

 private:
  enum class State { kOpen, kFinished, kAborted };

  Status CheckOpen() const {
    if (state_ == State::kOpen) return Status::OK();
    return Status::Invalid("MapWriter for '", options_.data_path, "' is ",
                           state_ == State::kFinished ? "finished" : "aborted");
  }

  Status DoWrite(const RecordBatch& batch) {
    if (batch.schema() != options_.schema && batch.schema() != last_checked_schema_) {
      if (batch.schema() == nullptr || !batch.schema()->Equals(*options_.schema)) {
        return Status::Invalid("batch schema does not match the writer's:\n",
                               batch.schema() ? batch.schema()->ToString() : "(none)", "vs\n",
                               options_.schema->ToString());
      }
      last_checked_schema_ = batch.schema();
    }
    metrics_.batches += 1;
    const int64_t rows = batch.num_rows();
    if (rows == 0) return Status::OK();
    if (rows > std::numeric_limits<uint32_t>::max()) {
      return Status::Invalid("a batch of ", rows, " rows is too large; split it below 2^32 rows");
    }
    HeldBatch held;
    held.batch = batch;
    held.partition_ids.Resize(rows * static_cast<int64_t>(sizeof(uint32_t)));
    const auto partition_start = Clock::now();
    SLUICE_RETURN_NOT_OK(partitioner_->Partition(
        batch, reinterpret_cast<uint32_t*>(held.partition_ids.data())));
    metrics_.partition_nanos += NanosSince(partition_start);

    const int64_t input_bytes = batch.ReferencedBytes();
    held.charged_bytes =
        input_bytes + rows * (static_cast<int64_t>(sizeof(uint32_t)) + RowsByPartition::kBytesPerRow);
    if (!budget_->TryReserve(held.charged_bytes)) {
      SLUICE_RETURN_NOT_OK(DoSpill());
      // One batch larger than the budget is still taken; it goes out with the next spill.
      if (!budget_->TryReserve(held.charged_bytes)) budget_->ForceReserve(held.charged_bytes);
    }
    held_bytes_ += held.charged_bytes;
    held_rows_ += rows;
    metrics_.rows += rows;
    metrics_.input_bytes += input_bytes;
    metrics_.peak_reserved_bytes = std::max(metrics_.peak_reserved_bytes, held_bytes_);
    held_.push_back(std::move(held));
    return Status::OK();
  }

  // Rows per block for the held data: the row target, lowered so that blocks stay near the
  // byte target at the input's average row size.
  int64_t RowsPerBlock() const {
    if (held_rows_ == 0) return options_.target_block_rows;
    const int64_t row_bytes = std::max<int64_t>(1, held_bytes_ / held_rows_);
    return std::clamp<int64_t>(options_.target_block_bytes / row_bytes, 1,
                               options_.target_block_rows);
  }

  // Groups the held rows by partition and binds the encoder to the held batches.
  void SortHeld() {
    sort_.Build(held_, partition_count_);
    rows_per_block_ = RowsPerBlock();
    held_batches_.clear();
    for (const HeldBatch& held : held_) held_batches_.push_back(&held.batch);
    encoder_->BindBatches(held_batches_);
  }

  // Appends the blocks of partition p's held rows to `file`, updating `checksum`.
  Status EncodeHeldPartition(int32_t partition, OutputFile* file, Checksum* checksum) {
    const int64_t begin = sort_.begin(partition);
    const int64_t end = sort_.end(partition);
    for (int64_t from = begin; from < end; from += rows_per_block_) {
      const int64_t count = std::min(end - from, rows_per_block_);
      AlignedBuffer* pending = file->pending();
      const int64_t start = pending->size();
      SLUICE_RETURN_NOT_OK(
          encoder_->AppendRows(sort_.sources() + from, sort_.rows() + from, count, pending));
      checksum->Update(pending->data() + start, pending->size() - start);
      SLUICE_RETURN_NOT_OK(FlushIfFull(file));
    }
    return Status::OK();
  }

  Status FlushIfFull(OutputFile* file) {
    if (file->pending()->size() < options_.file.flush_bytes) return Status::OK();
    const auto start = Clock::now();
    Status status = file->Flush();
    metrics_.write_nanos += NanosSince(start);
    return status;
  }

  Status TimedFlush(OutputFile* file) {
    const auto start = Clock::now();
    Status status = file->Flush();
    metrics_.write_nanos += NanosSince(start);
    return status;
  }

  void ReleaseHeld() {
    if (held_bytes_ > 0) budget_->Release(held_bytes_);
    held_.clear();
    held_bytes_ = 0;
    held_rows_ = 0;
  }

  Status DoSpill() {
    if (held_.empty()) return Status::OK();
    static std::atomic<uint64_t> spill_counter{0};
    const std::string& directory =
        options_.spill_directories[spills_.size() % options_.spill_directories.size()];
    const std::string path = directory + "/sluice-spill-" + std::to_string(::getpid()) + "-" +
                             std::to_string(spill_counter++) + ".tmp";
    SpillRecord spill;
    SLUICE_ASSIGN_OR_RAISE(spill.file, OutputFile::Create(path, options_.file));
    SortHeld();
    spill.offsets.resize(static_cast<size_t>(partition_count_) + 1);
    if (options_.checksum != ChecksumAlgorithm::kNone) {
      spill.checksums.resize(static_cast<size_t>(partition_count_));
    }
    for (int32_t p = 0; p < partition_count_; ++p) {
      spill.offsets[p] = spill.file->position();
      if (sort_.begin(p) == sort_.end(p)) {
        if (!spill.checksums.empty()) spill.checksums[p] = EmptyChecksum(options_.checksum);
        continue;
      }
      Checksum checksum(options_.checksum);
      SLUICE_RETURN_NOT_OK(EncodeHeldPartition(p, spill.file.get(), &checksum));
      if (!spill.checksums.empty()) spill.checksums[p] = checksum.value();
    }
    spill.offsets[partition_count_] = spill.file->position();
    SLUICE_RETURN_NOT_OK(TimedFlush(spill.file.get()));
    SLUICE_RETURN_NOT_OK(spill.file->Close());
    SLUICE_ASSIGN_OR_RAISE(spill.reader, InputFile::Open(path));
    metrics_.spills += 1;
    metrics_.spill_bytes += spill.offsets[partition_count_];
    ReleaseHeld();
    spills_.push_back(std::move(spill));
    return Status::OK();
  }

  Result<MapOutput> DoFinish() {
    const auto finish_start = Clock::now();
    MapOutput output;
    output.checksum_algorithm = options_.checksum;
    output.offsets.resize(static_cast<size_t>(partition_count_) + 1);
    output.lengths.resize(static_cast<size_t>(partition_count_));
    if (options_.checksum != ChecksumAlgorithm::kNone) {
      output.checksums.resize(static_cast<size_t>(partition_count_));
    }
    if (!held_.empty()) SortHeld();
    std::vector<SequentialFileReader> spill_readers;
    spill_readers.reserve(spills_.size());
    for (const auto& spill : spills_) {
      spill_readers.emplace_back(spill.reader.get(), kSpillReadBufferBytes);
    }
    const auto schema_message = encoder_->schema_message();
    const auto schema_size = static_cast<int64_t>(schema_message.size());
    OutputFile* data = data_file_.get();
    for (int32_t p = 0; p < partition_count_; ++p) {
      const int64_t start = data->position();
      output.offsets[p] = start;
      bool has_rows = !held_.empty() && sort_.begin(p) != sort_.end(p);
      for (const auto& spill : spills_) has_rows |= spill.offsets[p + 1] != spill.offsets[p];
      if (!has_rows) {
        if (!output.checksums.empty()) output.checksums[p] = EmptyChecksum(options_.checksum);
        continue;
      }
      Checksum checksum(options_.checksum);
      data->Append(schema_message.data(), schema_size);
      checksum.Combine(schema_checksum_, schema_size);
      for (size_t s = 0; s < spills_.size(); ++s) {
        const SpillRecord& spill = spills_[s];
        const int64_t offset = spill.offsets[p];
        const int64_t length = spill.offsets[p + 1] - offset;
        if (length == 0) continue;
        if (length >= kKernelCopyMinBytes) {
          const auto copy_start = Clock::now();
          SLUICE_RETURN_NOT_OK(
              data->CopyFrom(spill.reader->fd(), spill.reader->path(), offset, length));
          metrics_.write_nanos += NanosSince(copy_start);
        } else {
          const auto read_start = Clock::now();
          SLUICE_ASSIGN_OR_RAISE(const uint8_t* bytes, spill_readers[s].Read(offset, length));
          data->Append(bytes, length);
          metrics_.write_nanos += NanosSince(read_start);
        }
        if (!spill.checksums.empty()) checksum.Combine(spill.checksums[p], length);
      }
      if (!held_.empty()) SLUICE_RETURN_NOT_OK(EncodeHeldPartition(p, data, &checksum));
      data->Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
      checksum.Combine(end_of_stream_checksum_, static_cast<int64_t>(ipc::kEndOfStream.size()));
      if (!output.checksums.empty()) output.checksums[p] = checksum.value();
      output.lengths[p] = data->position() - start;
      SLUICE_RETURN_NOT_OK(FlushIfFull(data));
    }
    output.offsets[partition_count_] = data->position();
    SLUICE_RETURN_NOT_OK(TimedFlush(data));
    if (options_.sync) SLUICE_RETURN_NOT_OK(data->Sync());
    SLUICE_RETURN_NOT_OK(data->Close());
    ReleaseHeld();
    sort_.Release();
    spills_.clear();

    SLUICE_RETURN_NOT_OK(Commit(output));
    const auto& encoder_metrics = encoder_->metrics();
    metrics_.blocks = encoder_metrics.blocks;
    metrics_.gather_nanos = encoder_metrics.gather_nanos;
    metrics_.compress_nanos = encoder_metrics.compress_nanos;
    metrics_.output_bytes = output.offsets[partition_count_];
    metrics_.peak_reserved_bytes = std::max(metrics_.peak_reserved_bytes, held_bytes_);
    total_nanos_ += NanosSince(finish_start);
    metrics_.total_nanos = total_nanos_;
    output.metrics = metrics_;
    output.data_path = options_.data_path;
    output.index_path = options_.index_path;
    output.checksum_path = options_.checksum_path;
    state_ = State::kFinished;
    return output;
  }

  // Writes the Spark files under temporary names, then renames everything into place: data
  // first, the index last, so an index never points at a missing data file.
  Status Commit(const MapOutput& output) {
    std::string index_temporary;
    std::string checksum_temporary;
    if (!options_.index_path.empty()) {
      index_temporary = TemporaryPathFor(options_.index_path);
      temporary_paths_.push_back(index_temporary);
      SLUICE_RETURN_NOT_OK(WriteIndexFile(index_temporary, output.offsets, options_.sync));
    }
    if (!options_.checksum_path.empty()) {
      checksum_temporary = TemporaryPathFor(options_.checksum_path);
      temporary_paths_.push_back(checksum_temporary);
      SLUICE_RETURN_NOT_OK(
          WriteChecksumFile(checksum_temporary, output.checksums, options_.sync));
    }
    SLUICE_RETURN_NOT_OK(
        CommitRename(data_file_->path(), options_.data_path, options_.overwrite));
    data_file_->Keep();
    committed_paths_.push_back(options_.data_path);
    if (!checksum_temporary.empty()) {
      SLUICE_RETURN_NOT_OK(
          CommitRename(checksum_temporary, options_.checksum_path, options_.overwrite));
      committed_paths_.push_back(options_.checksum_path);
    }
    if (!index_temporary.empty()) {
      SLUICE_RETURN_NOT_OK(CommitRename(index_temporary, options_.index_path, options_.overwrite));
      committed_paths_.push_back(options_.index_path);
    }
    temporary_paths_.clear();
    if (options_.sync) SLUICE_RETURN_NOT_OK(SyncDirectoryOf(options_.data_path));
    return Status::OK();
  }

  MapWriterOptions options_;
  std::unique_ptr<Partitioner> partitioner_;
  int32_t partition_count_ = 0;
  std::unique_ptr<SegmentEncoder> encoder_;
  std::shared_ptr<MemoryBudget> budget_;
  SchemaPtr last_checked_schema_;
  State state_ = State::kOpen;

  std::vector<HeldBatch> held_;
  int64_t held_bytes_ = 0;
  int64_t held_rows_ = 0;
  RowsByPartition sort_;
  int64_t rows_per_block_ = 1;
  std::vector<const RecordBatch*> held_batches_;

  std::vector<SpillRecord> spills_;
  std::unique_ptr<OutputFile> data_file_;
  std::vector<std::string> temporary_paths_;
  std::vector<std::string> committed_paths_;
  uint32_t schema_checksum_ = 0;
  uint32_t end_of_stream_checksum_ = 0;
  int64_t total_nanos_ = 0;
  MapWriterMetrics metrics_;
};

MapWriter::MapWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MapWriter::~MapWriter() = default;

Result<std::unique_ptr<MapWriter>> MapWriter::Make(MapWriterOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  SLUICE_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<MapWriter>(new MapWriter(std::move(impl)));
}

Status MapWriter::Write(const RecordBatch& batch) { return impl_->Write(batch); }
Status MapWriter::Spill() { return impl_->Spill(); }
Result<MapOutput> MapWriter::Finish() { return impl_->Finish(); }
void MapWriter::Abort() { impl_->Abort(); }
int32_t MapWriter::partition_count() const { return impl_->partition_count(); }
int64_t MapWriter::held_bytes() const { return impl_->held_bytes(); }
const MapWriterMetrics& MapWriter::metrics() const { return impl_->metrics(); }

}  // namespace sluice
