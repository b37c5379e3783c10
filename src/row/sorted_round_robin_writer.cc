#include "sluice/row/sorted_round_robin_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/stopwatch.h"
#include "sluice/io/input_file.h"
#include "sluice/io/output_file.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/partition/partitioner.h"
#include "sluice/partition/spark_hash.h"
#include "sluice/row/columnar_to_row_converter.h"

namespace sluice {

namespace {

/// Rows converted to UnsafeRows at a time to hash them: the scratch stays small.
constexpr int64_t kHashChunkRows = 1024;

/// What ranks a row first: Spark's sort prefix (UnsafeRow.hashCode, compared as a signed int),
/// and the row's number in arrival order.
struct RowKey {
  int32_t hash;
  uint32_t row;
};
static_assert(sizeof(RowKey) == 8);

bool HashRanksBefore(const RowKey& a, const RowKey& b) {
  if (a.hash != b.hash) return a.hash < b.hash;
  return a.row < b.row;
}

/// Spark's RecordBinaryComparator, which orders rows of equal hash: the shorter row first, then
/// the bytes compared unsigned, first to last. Equal rows are interchangeable.
bool BytesRankBefore(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return std::memcmp(a.data(), b.data(), a.size()) < 0;
}

/// Batches written out by one Spill(): a Schema message, then one RecordBatch message each.
struct SpillFile {
  struct Batch {
    int64_t offset = 0;
    int64_t length = 0;
    int64_t rows = 0;
  };
  std::unique_ptr<OutputFile> file;  // removes the file when dropped
  std::unique_ptr<InputFile> reader;
  int64_t schema_length = 0;
  std::vector<Batch> batches;
};

}  // namespace

class SortedRoundRobinWriter::Impl {
 public:
  Impl(MapWriterOptions options, std::unique_ptr<MapWriter> writer,
       std::unique_ptr<ColumnarToRowConverter> converter)
      : options_(std::move(options)),
        writer_(std::move(writer)),
        converter_(std::move(converter)) {}

  ~Impl() {
    if (!finished_) Abort();
  }

  Status Write(const RecordBatch& batch) {
    if (finished_ || aborted_) return Status::Invalid("the writer is finished or aborted");
    const int64_t rows = batch.num_rows();
    if (rows == 0) return Status::OK();
    if (rows > int64_t{std::numeric_limits<uint32_t>::max()} - row_count_) {
      return Abandon(Status::Invalid("round-robin with Spark's sort: a map task of more than ",
                                     std::numeric_limits<uint32_t>::max(), " rows (", row_count_,
                                     " held, ", rows, " more)"));
    }
    Status keys = ReserveKeys(static_cast<size_t>(row_count_ + rows));
    if (!keys.ok()) return Abandon(std::move(keys));
    // One batch larger than the budget is still taken, as by MapWriter.
    const int64_t batch_bytes = batch.ReferencedBytes();
    if (!options_.memory_budget->TryReserve(batch_bytes)) {
      SLUICE_RETURN_NOT_OK(Spill());
      if (!options_.memory_budget->TryReserve(batch_bytes)) {
        options_.memory_budget->ForceReserve(batch_bytes);
      }
    }
    held_bytes_ += batch_bytes;
    held_.push_back(HeldBatch{batch, batch_bytes});
    const auto start = SteadyClock::now();
    Status hashed = HashRows(batch);
    rank_nanos_ += NanosSince(start);
    if (!hashed.ok()) return Abandon(std::move(hashed));
    row_count_ += rows;
    return Status::OK();
  }

  Status Spill() {
    if (held_.empty()) return Status::OK();
    Status status = WriteSpill();
    if (!status.ok()) return Abandon(std::move(status));
    ReleaseHeld();
    return Status::OK();
  }

  Result<MapOutput> Finish() {
    if (finished_ || aborted_) return Status::Invalid("the writer is finished or aborted");
    Status placed = PlaceRows();
    if (!placed.ok()) return Abandon(std::move(placed));
    auto output = writer_->Finish();
    if (!output.ok()) return Abandon(output.status());
    finished_ = true;
    ReleaseAll();
    output->metrics.spills += spill_count_;
    output->metrics.spill_bytes += spill_bytes_;
    output->metrics.partition_nanos += rank_nanos_;
    return output;
  }

  void Abort() {
    if (aborted_) return;
    aborted_ = true;
    writer_->Abort();
    ReleaseAll();
  }

  int64_t held_bytes() const {
    return held_bytes_ + key_bytes_ + id_bytes_ + writer_->held_bytes();
  }

 private:
  struct HeldBatch {
    RecordBatch batch;
    int64_t charged_bytes = 0;
  };

  Status Abandon(Status status) {
    Abort();
    return status;
  }

  // Drops the held batches and returns their memory.
  void ReleaseHeld() {
    for (const HeldBatch& held : held_) options_.memory_budget->Release(held.charged_bytes);
    held_.clear();
    held_bytes_ = 0;
  }

  void ReleaseAll() {
    ReleaseHeld();
    options_.memory_budget->Release(key_bytes_ + id_bytes_);
    key_bytes_ = 0;
    id_bytes_ = 0;
    keys_ = {};
    spills_.clear();
  }

  // Makes room for `rows` keys, the capacity doubling, charged to the budget: the keys stay in
  // memory until Finish(), so a budget that cannot hold them (after a spill of the batches) is
  // an error, not an overdraft.
  Status ReserveKeys(size_t rows) {
    if (rows <= keys_.capacity()) return Status::OK();
    const size_t capacity = std::max(rows, 2 * keys_.capacity());
    const auto bytes = static_cast<int64_t>((capacity - keys_.capacity()) * sizeof(RowKey));
    if (!options_.memory_budget->TryReserve(bytes)) {
      SLUICE_RETURN_NOT_OK(Spill());
      if (!options_.memory_budget->TryReserve(bytes)) {
        return Status::OutOfMemory("round-robin with Spark's sort keeps ", sizeof(RowKey),
                                   " bytes per row of the map task: ", rows, " rows need ",
                                   capacity * sizeof(RowKey), " bytes, beyond the memory budget");
      }
    }
    key_bytes_ += bytes;
    keys_.reserve(capacity);
    return Status::OK();
  }

  // Appends the key of every row of `batch`, numbered from row_count_.
  Status HashRows(const RecordBatch& batch) {
    const int64_t rows = batch.num_rows();
    for (int64_t start = 0; start < rows; start += kHashChunkRows) {
      const int64_t count = std::min(kHashChunkRows, rows - start);
      scratch_.Clear();
      SLUICE_RETURN_NOT_OK(converter_->Convert(batch, start, count, &scratch_));
      for (int64_t i = 0; i < count; ++i) {
        const uint8_t* row = scratch_.row(i);
        const int32_t size = scratch_.sizes[static_cast<size_t>(i)];
        keys_.push_back(RowKey{
            static_cast<int32_t>(MurmurHash3Spark::HashBytes(row, size, MurmurHash3Spark::kSeed)),
            static_cast<uint32_t>(row_count_ + start + i)});
      }
    }
    return Status::OK();
  }

  Status WriteSpill() {
    if (spill_encoder_ == nullptr) {
      SLUICE_ASSIGN_OR_RAISE(spill_encoder_,
                             SegmentEncoder::Make(options_.schema, options_.encoding));
    }
    const std::string& directory =
        options_.spill_directories[spills_.size() % options_.spill_directories.size()];
    SpillFile spill;
    SLUICE_ASSIGN_OR_RAISE(
        spill.file,
        OutputFile::Create(TemporaryPathFor(directory + "/sluice-spill"), options_.file));
    OutputFile* file = spill.file.get();
    const auto schema = spill_encoder_->schema_message();
    file->Append(schema.data(), static_cast<int64_t>(schema.size()));
    spill.schema_length = file->position();
    for (const HeldBatch& held : held_) {
      SpillFile::Batch written;
      written.offset = file->position();
      written.rows = held.batch.num_rows();
      SLUICE_RETURN_NOT_OK(spill_encoder_->AppendRecordBatch(held.batch, file->pending()));
      written.length = file->position() - written.offset;
      spill.batches.push_back(written);
      SLUICE_RETURN_NOT_OK(file->MaybeFlush());
    }
    const int64_t bytes = file->position();
    SLUICE_RETURN_NOT_OK(file->Close());
    SLUICE_ASSIGN_OR_RAISE(spill.reader, InputFile::Open(file->path()));
    spill_count_ += 1;
    spill_bytes_ += bytes;
    spills_.push_back(std::move(spill));
    return Status::OK();
  }

  // Ranks every row and writes the batches, spilled ones first, with their partitions.
  Status PlaceRows() {
    const auto start = SteadyClock::now();
    std::sort(keys_.begin(), keys_.end(), HashRanksBefore);
    SLUICE_RETURN_NOT_OK(OrderEqualHashesByBytes());
    PartitionerOptions round_robin;
    round_robin.kind = PartitionKind::kRoundRobin;
    round_robin.partition_count = options_.partitioning.partition_count;
    round_robin.map_partition_id = options_.partitioning.map_partition_id;
    round_robin.round_robin_mode = RoundRobinMode::kSpark;
    const auto no_columns = std::make_shared<Schema>(std::vector<Field>{});
    SLUICE_ASSIGN_OR_RAISE(auto partitioner, MakePartitioner(round_robin, *no_columns));
    // Each row's partition, by row number: charged like the keys (whose memory goes next).
    const auto id_bytes = static_cast<int64_t>(keys_.size() * sizeof(uint32_t));
    if (!options_.memory_budget->TryReserve(id_bytes)) {
      SLUICE_RETURN_NOT_OK(Spill());
      if (!options_.memory_budget->TryReserve(id_bytes)) {
        return Status::OutOfMemory("round-robin with Spark's sort: the partitions of ",
                                   keys_.size(), " rows need ", id_bytes,
                                   " bytes beyond the memory budget");
      }
    }
    id_bytes_ = id_bytes;
    std::vector<uint32_t> partition_ids(keys_.size());
    // The partitioner deals partitions to ranks in order, its position kept from chunk to chunk.
    uint32_t by_rank[kHashChunkRows];
    for (size_t first = 0; first < keys_.size(); first += kHashChunkRows) {
      const size_t count = std::min(keys_.size() - first, static_cast<size_t>(kHashChunkRows));
      SLUICE_RETURN_NOT_OK(partitioner->Partition(
          RecordBatch(no_columns, static_cast<int64_t>(count), {}, {}), by_rank));
      for (size_t i = 0; i < count; ++i) partition_ids[keys_[first + i].row] = by_rank[i];
    }
    options_.memory_budget->Release(key_bytes_);
    key_bytes_ = 0;
    keys_ = {};
    rank_nanos_ += NanosSince(start);

    SLUICE_RETURN_NOT_OK(
        ForEachBatch([](int64_t, int64_t) { return true; },
                     [&](const RecordBatch& batch, int64_t first_row, HeldBatch* held) {
                       if (held != nullptr) {
                         // The MapWriter charges the batch itself from here on.
                         options_.memory_budget->Release(held->charged_bytes);
                         held_bytes_ -= held->charged_bytes;
                         held->charged_bytes = 0;
                       }
                       return writer_->Write(batch, partition_ids.data() + first_row);
                     }));
    spills_.clear();
    held_.clear();
    return Status::OK();
  }

  // Orders each run of keys (sorted by hash) whose hashes are equal as Spark does: by the rows'
  // bytes. Such runs are rare (a task of n distinct rows has about n^2 / 2^33 pairs of equal
  // hashes: a few at 200,000 rows), so their rows are converted again, from their batches.
  Status OrderEqualHashesByBytes() {
    std::vector<std::pair<size_t, size_t>> runs;  // [begin, end) in keys_
    std::vector<uint32_t> tied_rows;
    for (size_t begin = 0; begin < keys_.size();) {
      size_t end = begin + 1;
      while (end < keys_.size() && keys_[end].hash == keys_[begin].hash) ++end;
      if (end - begin > 1) {
        runs.emplace_back(begin, end);
        for (size_t i = begin; i < end; ++i) tied_rows.push_back(keys_[i].row);
      }
      begin = end;
    }
    if (runs.empty()) return Status::OK();
    std::sort(tied_rows.begin(), tied_rows.end());
    std::vector<std::string> tied_bytes(tied_rows.size());
    auto tied_in = [&](int64_t first_row, int64_t rows) {
      auto at = std::lower_bound(tied_rows.begin(), tied_rows.end(), first_row);
      return at != tied_rows.end() && *at < first_row + rows;
    };
    SLUICE_RETURN_NOT_OK(ForEachBatch(
        tied_in, [&](const RecordBatch& batch, int64_t first_row, HeldBatch*) -> Status {
          auto at = std::lower_bound(tied_rows.begin(), tied_rows.end(), first_row);
          for (; at != tied_rows.end() && *at < first_row + batch.num_rows(); ++at) {
            scratch_.Clear();
            SLUICE_RETURN_NOT_OK(converter_->Convert(batch, *at - first_row, 1, &scratch_));
            tied_bytes[static_cast<size_t>(at - tied_rows.begin())].assign(
                reinterpret_cast<const char*>(scratch_.row(0)),
                static_cast<size_t>(scratch_.sizes[0]));
          }
          return Status::OK();
        }));
    auto bytes_of = [&](uint32_t row) -> const std::string& {
      return tied_bytes[static_cast<size_t>(
          std::lower_bound(tied_rows.begin(), tied_rows.end(), row) - tied_rows.begin())];
    };
    for (const auto& [begin, end] : runs) {
      std::sort(keys_.begin() + static_cast<std::ptrdiff_t>(begin),
                keys_.begin() + static_cast<std::ptrdiff_t>(end),
                [&](const RowKey& a, const RowKey& b) {
                  const std::string& left = bytes_of(a.row);
                  const std::string& right = bytes_of(b.row);
                  if (BytesRankBefore(left, right)) return true;
                  if (BytesRankBefore(right, left)) return false;
                  return a.row < b.row;
                });
    }
    return Status::OK();
  }

  using BatchVisitor =
      std::function<Status(const RecordBatch& batch, int64_t first_row, HeldBatch* held)>;
  // Visits the task's batches in arrival order (the spilled ones read back, one at a time, then
  // the held ones) with the number of each batch's first row; skips the spilled batches whose
  // rows `wanted(first_row, rows)` declines.
  Status ForEachBatch(const std::function<bool(int64_t, int64_t)>& wanted,
                      const BatchVisitor& visit) {
    int64_t first_row = 0;
    for (const SpillFile& spill : spills_) {
      SLUICE_RETURN_NOT_OK(VisitSpilled(spill, wanted, visit, &first_row));
    }
    for (HeldBatch& held : held_) {
      const int64_t rows = held.batch.num_rows();
      if (wanted(first_row, rows)) SLUICE_RETURN_NOT_OK(visit(held.batch, first_row, &held));
      first_row += rows;
    }
    return Status::OK();
  }

  Status VisitSpilled(const SpillFile& spill, const std::function<bool(int64_t, int64_t)>& wanted,
                      const BatchVisitor& visit, int64_t* first_row) {
    const std::string& path = spill.reader->path();
    auto schema_bytes = std::make_shared<AlignedBuffer>();
    SLUICE_RETURN_NOT_OK(spill.reader->ReadAt(0, spill.schema_length, schema_bytes.get()));
    SegmentDecoder decoder;
    SLUICE_RETURN_NOT_OK(
        decoder.Begin(schema_bytes->data(), schema_bytes->size(), schema_bytes, path));
    SLUICE_RETURN_NOT_OK(decoder.ReadSchema());
    for (const SpillFile::Batch& written : spill.batches) {
      if (!wanted(*first_row, written.rows)) {
        *first_row += written.rows;
        continue;
      }
      auto bytes = std::make_shared<AlignedBuffer>();
      SLUICE_RETURN_NOT_OK(spill.reader->ReadAt(written.offset, written.length, bytes.get()));
      SLUICE_RETURN_NOT_OK(
          decoder.Continue(bytes->data(), bytes->size(), bytes, path, written.offset));
      SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, decoder.Next());
      if (!batch.has_value() || batch->num_rows() != written.rows) {
        return Status::Corrupt(path, ": the batch of ", written.rows, " rows at byte ",
                               written.offset, " did not read back");
      }
      SLUICE_RETURN_NOT_OK(visit(*batch, *first_row, nullptr));
      *first_row += written.rows;
    }
    return Status::OK();
  }

  MapWriterOptions options_;
  std::unique_ptr<MapWriter> writer_;
  std::unique_ptr<ColumnarToRowConverter> converter_;
  UnsafeRowBatch scratch_;
  std::vector<RowKey> keys_;
  std::vector<HeldBatch> held_;
  std::vector<SpillFile> spills_;
  std::unique_ptr<SegmentEncoder> spill_encoder_;
  int64_t row_count_ = 0;
  int64_t held_bytes_ = 0;  // charged for held batches
  int64_t key_bytes_ = 0;   // charged for keys
  int64_t id_bytes_ = 0;    // charged for the partition of each row, while Finish() writes
  int64_t spill_count_ = 0;
  int64_t spill_bytes_ = 0;
  int64_t rank_nanos_ = 0;
  bool finished_ = false;
  bool aborted_ = false;
};

Result<std::unique_ptr<SortedRoundRobinWriter>> SortedRoundRobinWriter::Make(
    MapWriterOptions options) {
  if (options.partitioning.kind != PartitionKind::kRoundRobin ||
      options.partitioning.round_robin_mode != RoundRobinMode::kSparkSorted) {
    return Status::Invalid(
        "SortedRoundRobinWriter: partitioning must be round-robin, mode "
        "spark-sorted; got ",
        PartitionKindName(options.partitioning.kind));
  }
  if (options.partitioning.map_partition_id < 0) {
    return Status::Invalid("map_partition_id must not be negative, got ",
                           options.partitioning.map_partition_id);
  }
  if (options.schema == nullptr) return Status::Invalid("MapWriterOptions::schema is required");
  SLUICE_ASSIGN_OR_RAISE(auto converter, ColumnarToRowConverter::Make(options.schema));
  if (options.memory_budget == nullptr) {
    options.memory_budget = std::make_shared<FixedMemoryBudget>(options.memory_limit);
  }
  if (options.spill_directories.empty()) {
    options.spill_directories.push_back(DirectoryOf(options.data_path));
  }
  MapWriterOptions placed = options;
  placed.partitioning.kind = PartitionKind::kGiven;
  placed.partitioning.key_columns.clear();
  placed.partitioning.round_robin_mode = RoundRobinMode::kSpark;
  SLUICE_ASSIGN_OR_RAISE(auto writer, MapWriter::Make(std::move(placed)));
  return std::unique_ptr<SortedRoundRobinWriter>(new SortedRoundRobinWriter(
      std::make_unique<Impl>(std::move(options), std::move(writer), std::move(converter))));
}

SortedRoundRobinWriter::SortedRoundRobinWriter(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
SortedRoundRobinWriter::~SortedRoundRobinWriter() = default;

Status SortedRoundRobinWriter::Write(const RecordBatch& batch) {
  return impl_->Write(batch);
}
Status SortedRoundRobinWriter::Spill() {
  return impl_->Spill();
}
Result<MapOutput> SortedRoundRobinWriter::Finish() {
  return impl_->Finish();
}
void SortedRoundRobinWriter::Abort() {
  impl_->Abort();
}
int64_t SortedRoundRobinWriter::held_bytes() const {
  return impl_->held_bytes();
}

}  // namespace sluice
