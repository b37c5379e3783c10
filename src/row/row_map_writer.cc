#include "sluice/row/row_map_writer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/byte_size.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/stopwatch.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/ipc/compact_segment_encoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/row/packed_record_pointer.h"
#include "sluice/row/row_to_columnar_converter.h"
#include "sluice/write/map_output_files.h"
#include "sluice/write/map_writer_settings.h"

namespace sluice {

namespace {

// The pointer array starts with room for this many rows and doubles: growth is sized by the
// array itself, never by the page bytes (the reference writer's J2 finding).
constexpr int64_t kInitialPointers = 4096;

// Scatter: rows converted per column batch. The engines' batch size: large enough to amortise
// per-batch work, small enough to convert in cache.
constexpr int64_t kScatterChunkRows = 8192;

// kAuto: the partition count from which scatter beats sort, for rows of up to
// kNarrowRowBytes; wider rows keep sorting (their conversion dominates, and scatter copies each
// row's values twice; this bound is reasoned, not measured). bench/row_map_writer_benchmark.cc
// compares the two by partition count (figures in DEVELOPING.md, "Figures behind the
// constants"): below about 2,000 partitions sort wins or ties; above, scatter is somewhat
// faster but within the noise of a shared machine, so the switch sits in that range.
constexpr int32_t kScatterMinPartitions = 4096;
constexpr int64_t kNarrowRowBytes = 256;

// An UnsafeRow's size from its schema: the null bitset, one 8-byte slot per field, and a guess
// of 16 bytes for each variable-length field's data.
int64_t EstimatedRowBytes(const Schema& schema) {
  const auto fields = static_cast<int64_t>(schema.num_fields());
  int64_t bytes = ((fields + 63) / 64) * 8 + 8 * fields;
  for (const Field& field : schema.fields()) {
    if (!IsFixedWidth(field.type->id()) || field.type->id() == TypeId::kDecimal128) bytes += 16;
  }
  return bytes;
}

// How many sorted rows ahead the spill pass prefetches: enough to cover a memory round trip at a
// few nanoseconds per row.
constexpr int64_t kPrefetchDistance = 16;

}  // namespace

class RowMapWriter::Impl {
  // The first page's size; each later page doubles, up to page_bytes.
  static constexpr int64_t kFirstPageBytes = int64_t{64} << 10;

 public:
  explicit Impl(RowMapWriterOptions options) : options_(std::move(options)) {}
  ~Impl() { Abort(); }

  Status Init() {
    MapWriterOptions& writer = options_.writer;
    if (writer.schema == nullptr) return Status::Invalid("RowMapWriter: a schema is required");
    if (writer.data_path.empty()) return Status::Invalid("RowMapWriter: data_path is required");
    partition_count_ = writer.partitioning.partition_count;
    if (partition_count_ < 1 ||
        static_cast<uint64_t>(partition_count_) > PackedRecordPointer::kMaxPartitionId + 1) {
      return Status::Invalid("RowMapWriter: partition count ", partition_count_,
                             " is outside 1..16,777,216");
    }
    if (options_.page_bytes < 64 || options_.page_bytes > PackedRecordPointer::kMaxPageBytes) {
      return Status::Invalid("RowMapWriter: page size ", options_.page_bytes,
                             " is outside 64 bytes..128 MiB");
    }
    RowToColumnarOptions conversion;
    conversion.validate_utf8 = options_.writer.validate_utf8;
    SLUICE_ASSIGN_OR_RAISE(converter_, RowToColumnarConverter::Make(writer.schema, conversion));
    SLUICE_ASSIGN_OR_RAISE(encoder_, SegmentEncoder::Make(writer.schema, writer.encoding));
    budget_ = writer.memory_budget != nullptr
                  ? writer.memory_budget
                  : std::make_shared<FixedMemoryBudget>(writer.memory_limit);
    strategy_ = options_.strategy == RowWriterStrategy::kAuto
                    ? ChooseRowWriterStrategy(partition_count_, EstimatedRowBytes(*writer.schema))
                    : options_.strategy;
    if (strategy_ == RowWriterStrategy::kScatter) {
      MapWriterOptions scatter = writer;
      scatter.memory_budget = budget_;
      scatter.partitioning.kind = PartitionKind::kGiven;  // ids come with each batch
      scatter.partitioning.key_columns.clear();
      SLUICE_ASSIGN_OR_RAISE(scatter_writer_, MapWriter::Make(std::move(scatter)));
      return Status::OK();
    }
    MapOutputFilesOptions files = OutputFilesOptionsFor(writer);
    SLUICE_ASSIGN_OR_RAISE(files_, MapOutputFiles::Create(std::move(files), partition_count_,
                                                          encoder_->schema_message()));
    if (writer.compact_segment_bytes < 0) {
      return Status::Invalid("RowMapWriter: compact_segment_bytes must be 0 or positive, got ",
                             writer.compact_segment_bytes);
    }
    if (writer.compact_segment_bytes > 0 && writer.encoding.codec != CompressionCodec::kNone) {
      SLUICE_ASSIGN_OR_RAISE(compact_, CompactSegmentEncoder::Make(writer.schema, writer.encoding));
      files_->EnableCompaction(
          compact_.get(), writer.compact_segment_bytes,
          MapOutputFiles::SchemaReferencesFor(writer.compact_schema_dictionary,
                                              writer.readers_have_schema),
          MapOutputFiles::PlainRows{
              [this](int32_t p) { return HeldRowBytes(p); },
              [this](int32_t p, AlignedBuffer* out) { return EncodePlain(p, out); }});
    }
    return Status::OK();
  }

  int32_t partition_count() const { return partition_count_; }
  RowWriterStrategy strategy() const { return strategy_; }
  int64_t held_bytes() const {
    return held_bytes_ + (scatter_writer_ != nullptr ? scatter_writer_->held_bytes() : 0);
  }
  const MapWriterMetrics& metrics() const { return metrics_; }

  Status AppendRow(uint32_t partition, const uint8_t* row, int32_t size) {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    if (partition >= static_cast<uint32_t>(partition_count_)) {
      return Fail(Status::Invalid("row for partition ", partition, " of ", partition_count_));
    }
    if (size < 0 || size % 8 != 0) {
      return Fail(Status::Invalid("an UnsafeRow's size is a multiple of 8; got ", size));
    }
    const int64_t needed = kRowPrefixBytes + size;
    if (current_page_ == nullptr || page_used_ + needed > current_page_->size()) {
      SLUICE_ASSIGN_OR_RAISE(Page page, DoNewPage(needed));
      (void)page;
    }
    uint8_t* at = current_page_->data() + page_used_;
    bits::StoreUnaligned<int64_t>(at, size);
    std::memcpy(at + kRowPrefixBytes, row, static_cast<size_t>(size));
    const uint64_t pointer = PackedRecordPointer::Pack(
        partition, static_cast<uint32_t>(pages_.size() - 1), static_cast<uint32_t>(page_used_));
    page_used_ += needed;
    metrics_.input_bytes += size;
    return AddPointersUnchecked(&pointer, 1);
  }

  int64_t NextPageBytes(int64_t min_bytes) const {
    const int64_t doubled = pages_made_ >= 16
                                ? options_.page_bytes
                                : std::min(options_.page_bytes, kFirstPageBytes << pages_made_);
    return std::max(doubled, bits::RoundUp(min_bytes, 8));
  }

  Result<Page> NewPage(int64_t min_bytes) {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    auto page = DoNewPage(min_bytes);
    if (!page.ok()) return Fail(page.status());
    return page;
  }

  Status AddPointers(const uint64_t* pointers, int64_t count) {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t pointer = pointers[i];
      const uint32_t partition = PackedRecordPointer::Partition(pointer);
      const uint32_t page = PackedRecordPointer::Page(pointer);
      const int64_t offset = PackedRecordPointer::Offset(pointer);
      if (partition >= static_cast<uint32_t>(partition_count_) || page >= pages_.size() ||
          offset + kRowPrefixBytes > pages_[page].size()) {
        return Fail(Status::Invalid("record pointer ", i, " (partition ", partition, ", page ",
                                    page, ", offset ", offset, ") is outside the ",
                                    partition_count_, " partitions and ", pages_.size(),
                                    " pages held"));
      }
      const int64_t size = bits::LoadUnaligned<int64_t>(pages_[page].data() + offset);
      if (size < 0 || size % 8 != 0 || size > pages_[page].size() - offset - kRowPrefixBytes) {
        return Fail(Status::Invalid("record pointer ", i, ": the row at page ", page, " offset ",
                                    offset, " claims ", size, " bytes"));
      }
      metrics_.input_bytes += size;
    }
    return AddPointersUnchecked(pointers, count);
  }

  Result<int64_t> Spill() {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    const int64_t before = held_bytes();
    const auto start = SteadyClock::now();
    Status status = DoSpill();
    if (status.ok() && scatter_writer_ != nullptr) status = scatter_writer_->Spill();
    total_nanos_ += NanosSince(start);
    if (!status.ok()) return Fail(status);
    return before - held_bytes();
  }

  Result<MapOutput> Finish() {
    SLUICE_RETURN_NOT_OK(CheckOpen());
    if (scatter_writer_ != nullptr) return FinishScatter();
    const auto start = SteadyClock::now();
    SortHeld();
    MapOutput output;
    Status status = files_->Finish([this](int32_t p) { return HasRows(p); },
                                   [this](int32_t p, OutputFile* file, Checksum* checksum) {
                                     return EncodePartition(p, file, checksum);
                                   },
                                   &output);
    if (!status.ok()) return Fail(status);
    FreeHeld();
    total_nanos_ += NanosSince(start);
    SyncMetrics();
    output.metrics = metrics_;
    finished_ = true;
    return output;
  }

  void Abort() {
    if (aborted_) return;
    aborted_ = true;
    FreeHeld();
    if (files_ != nullptr && !finished_) files_->Abort();
    if (scatter_writer_ != nullptr && !finished_) scatter_writer_->Abort();
  }

 private:
  Status CheckOpen() const {
    if (finished_) return Status::Invalid("RowMapWriter is finished");
    if (aborted_) return Status::Invalid("RowMapWriter is aborted");
    return Status::OK();
  }

  Status Fail(Status status) {
    Abort();
    return status;
  }

  // Reserves `bytes`, spilling what is held when the budget says no; one reservation beyond the
  // budget is allowed when nothing is held (a task must make progress).
  Status Reserve(int64_t bytes) {
    if (budget_->TryReserve(bytes)) return Status::OK();
    if (row_count_ > 0) {
      SLUICE_RETURN_NOT_OK(DoSpill());
      if (budget_->TryReserve(bytes)) return Status::OK();
    }
    budget_->ForceReserve(bytes);
    return Status::OK();
  }

  Result<Page> DoNewPage(int64_t min_bytes) {
    if (strategy_ == RowWriterStrategy::kScatter && row_count_ > 0) {
      // Every row of the pages is reported (AppendRow adds its pointer at once; a host calls
      // AddPointers before asking for a page): convert them, and the pages are free again.
      SLUICE_RETURN_NOT_OK(ConvertStaged());
    }
    if (min_bytes > PackedRecordPointer::kMaxPageBytes) {
      return Status::Invalid("a row of ", min_bytes - kRowPrefixBytes,
                             " bytes does not fit in a 128 MiB page");
    }
    if (pages_.size() > PackedRecordPointer::kMaxPageNumber) {
      SLUICE_RETURN_NOT_OK(DoSpill());  // 8192 pages held: the page numbers are used up
    }
    const int64_t bytes = NextPageBytes(min_bytes);
    SLUICE_RETURN_NOT_OK(Reserve(bytes));
    pages_made_ += 1;
    held_bytes_ += bytes;
    metrics_.peak_reserved_bytes = std::max(metrics_.peak_reserved_bytes, held_bytes_);
    pages_.emplace_back(bytes);
    pages_.back().Resize(bytes);
    current_page_ = &pages_.back();
    page_used_ = 0;
    return Page{static_cast<uint32_t>(pages_.size() - 1), pages_.back().data(), bytes};
  }

  // Appends pointers to rows already in pages. Growing the array is charged to the budget but
  // never spills: the rows these pointers name sit in the pages a spill would free. Pages drive
  // spilling; the array (16 bytes per row with its sort scratch) follows the pages.
  Status AddPointersUnchecked(const uint64_t* pointers, int64_t count) {
    if (count == 0) return Status::OK();
    // The array keeps twice the rows as room: the radix sort uses the second half as scratch.
    if (2 * (row_count_ + count) > pointer_capacity_) {
      int64_t capacity = std::max<int64_t>(pointer_capacity_, 2 * kInitialPointers);
      while (capacity < 2 * (row_count_ + count)) capacity *= 2;
      const int64_t added_bytes = (capacity - pointer_capacity_) * 8;
      if (!budget_->TryReserve(added_bytes)) budget_->ForceReserve(added_bytes);
      held_bytes_ += added_bytes;
      metrics_.peak_reserved_bytes = std::max(metrics_.peak_reserved_bytes, held_bytes_);
      pointers_.Resize(capacity * 8);
      pointer_capacity_ = capacity;
    }
    std::memcpy(pointers_.data() + row_count_ * 8, pointers, static_cast<size_t>(count) * 8);
    row_count_ += count;
    metrics_.rows += count;
    return Status::OK();
  }

  // Sorts the held pointers by partition and sets the cursor that the encode callbacks advance.
  void SortHeld() {
    sorted_ = nullptr;
    cursor_ = 0;
    if (row_count_ == 0) return;
    const auto start = SteadyClock::now();
    auto* pointers = reinterpret_cast<uint64_t*>(pointers_.data());
    sorted_ = SortPointersByPartition(pointers, pointers + row_count_, row_count_);
    metrics_.partition_nanos += NanosSince(start);
    int64_t row_bytes = 0;
    for (const AlignedBuffer& page : pages_) row_bytes += page.size();
    const int64_t average = std::max<int64_t>(1, row_bytes / row_count_);
    rows_per_block_ = std::clamp<int64_t>(options_.writer.target_block_bytes / average, 1,
                                          options_.writer.target_block_rows);
  }

  bool HasRows(int32_t partition) const {
    return sorted_ != nullptr && cursor_ < row_count_ &&
           PackedRecordPointer::Partition(sorted_[cursor_]) == static_cast<uint32_t>(partition);
  }

  // The row a sorted pointer names: its 8-byte size prefix, then the UnsafeRow.
  const uint8_t* RowAt(uint64_t pointer) const {
    return pages_[PackedRecordPointer::Page(pointer)].data() + PackedRecordPointer::Offset(pointer);
  }

  // The UnsafeRow bytes of partition p's rows (the sorted run at the cursor): what compaction
  // takes for their plain size, which the columns rarely exceed.
  int64_t HeldRowBytes(int32_t partition) const {
    int64_t bytes = 0;
    for (int64_t at = cursor_; at < row_count_ && PackedRecordPointer::Partition(sorted_[at]) ==
                                                      static_cast<uint32_t>(partition);
         ++at) {
      bytes += bits::LoadUnaligned<int64_t>(RowAt(sorted_[at]));
    }
    return bytes;
  }

  // Converts up to `max_rows` of partition p's rows at the cursor to columns (converter_).
  Status ConvertRows(int32_t partition, int64_t max_rows) {
    row_addresses_.clear();
    row_sizes_.clear();
    while (HasRows(partition) && static_cast<int64_t>(row_addresses_.size()) < max_rows) {
      // Sorted rows are visited in an order unrelated to where they lie: fetch ahead.
      if (cursor_ + kPrefetchDistance < row_count_) {
        __builtin_prefetch(RowAt(sorted_[cursor_ + kPrefetchDistance]));
      }
      const uint8_t* at = RowAt(sorted_[cursor_++]);
      row_addresses_.push_back(at + kRowPrefixBytes);
      row_sizes_.push_back(static_cast<int32_t>(bits::LoadUnaligned<int64_t>(at)));
    }
    converter_->Reset();
    return converter_->Append(row_addresses_.data(), row_sizes_.data(),
                              static_cast<int64_t>(row_addresses_.size()));
  }

  // Appends all of partition p's rows to `out` as one plain RecordBatch message (compaction).
  Status EncodePlain(int32_t partition, AlignedBuffer* out) {
    SLUICE_RETURN_NOT_OK(ConvertRows(partition, row_count_));
    return compact_->plain_encoder()->AppendRecordBatch(converter_->View(), out);
  }

  // Converts partition p's rows (the sorted run at the cursor) to columns, block by block, and
  // encodes each block into `file`.
  Status EncodePartition(int32_t partition, OutputFile* file, Checksum* checksum) {
    while (HasRows(partition)) {
      SLUICE_RETURN_NOT_OK(ConvertRows(partition, rows_per_block_));
      AlignedBuffer* pending = file->pending();
      const int64_t before = pending->size();
      SLUICE_RETURN_NOT_OK(encoder_->AppendRecordBatch(converter_->View(), pending));
      checksum->Update(pending->data() + before, pending->size() - before);
      SLUICE_RETURN_NOT_OK(files_->FlushIfFull(file));
    }
    return Status::OK();
  }

  Status DoSpill() {
    if (row_count_ == 0) return Status::OK();
    if (strategy_ == RowWriterStrategy::kScatter) return ConvertStaged();
    SortHeld();
    SLUICE_RETURN_NOT_OK(files_->Spill([this](int32_t p) { return HasRows(p); },
                                       [this](int32_t p, OutputFile* file, Checksum* checksum) {
                                         return EncodePartition(p, file, checksum);
                                       }));
    FreeHeld();
    SyncMetrics();
    return Status::OK();
  }

  // Scatter: converts the staged rows, in arrival order, into column batches the MapWriter keeps
  // (and spills as its budget says), then frees the pages.
  Status ConvertStaged() {
    const auto* pointers = reinterpret_cast<const uint64_t*>(pointers_.data());
    const auto start = SteadyClock::now();
    for (int64_t first = 0; first < row_count_; first += kScatterChunkRows) {
      const int64_t count = std::min(kScatterChunkRows, row_count_ - first);
      row_addresses_.clear();
      row_sizes_.clear();
      row_partitions_.clear();
      for (int64_t i = first; i < first + count; ++i) {
        const uint64_t pointer = pointers[i];
        const uint8_t* at = pages_[PackedRecordPointer::Page(pointer)].data() +
                            PackedRecordPointer::Offset(pointer);
        row_addresses_.push_back(at + kRowPrefixBytes);
        row_sizes_.push_back(static_cast<int32_t>(bits::LoadUnaligned<int64_t>(at)));
        row_partitions_.push_back(PackedRecordPointer::Partition(pointer));
      }
      SLUICE_RETURN_NOT_OK(converter_->Append(row_addresses_.data(), row_sizes_.data(), count));
      RecordBatch batch = converter_->Finish();
      // The MapWriter's own time is booked by it; only the conversion is this writer's gather.
      const auto write_start = SteadyClock::now();
      SLUICE_RETURN_NOT_OK(scatter_writer_->Write(batch, row_partitions_.data()));
      scatter_convert_nanos_ -= NanosSince(write_start);
    }
    scatter_convert_nanos_ += NanosSince(start);
    FreeHeld();
    return Status::OK();
  }

  Result<MapOutput> FinishScatter() {
    const auto start = SteadyClock::now();
    Status converted = ConvertStaged();
    if (!converted.ok()) return Fail(converted);
    auto output = scatter_writer_->Finish();
    if (!output.ok()) return Fail(output.status());
    total_nanos_ += NanosSince(start);
    MapWriterMetrics inner = output->metrics;
    inner.rows = metrics_.rows;
    inner.input_bytes = metrics_.input_bytes;
    inner.gather_nanos += scatter_convert_nanos_;
    inner.total_nanos = total_nanos_;
    inner.peak_reserved_bytes = std::max(inner.peak_reserved_bytes, metrics_.peak_reserved_bytes);
    metrics_ = inner;
    output->metrics = inner;
    finished_ = true;
    return output;
  }

  void FreeHeld() {
    pages_.clear();
    current_page_ = nullptr;
    page_used_ = 0;
    pointers_.Release();
    pointer_capacity_ = 0;
    row_count_ = 0;
    sorted_ = nullptr;
    cursor_ = 0;
    if (held_bytes_ > 0) budget_->Release(held_bytes_);
    held_bytes_ = 0;
  }

  void SyncMetrics() {
    if (scatter_writer_ != nullptr) return;  // the inner MapWriter keeps the file metrics
    const auto& encoder_metrics = encoder_->metrics();
    const auto& file_metrics = files_->metrics();
    metrics_.blocks = encoder_metrics.blocks;
    metrics_.compress_nanos = encoder_metrics.compress_nanos;
    if (compact_ != nullptr) {
      metrics_.blocks += compact_->plain_encoder()->metrics().blocks;
      metrics_.compress_nanos += compact_->compress_nanos();
    }
    metrics_.batches = metrics_.blocks;
    // What the flushes spent neither in the codec nor in file writes was converting rows.
    metrics_.gather_nanos =
        file_metrics.flush_nanos - file_metrics.write_nanos - metrics_.compress_nanos;
    metrics_.spills = file_metrics.spills;
    metrics_.spill_bytes = file_metrics.spill_bytes;
    metrics_.write_nanos = file_metrics.write_nanos;
    metrics_.output_bytes = file_metrics.output_bytes;
    metrics_.total_nanos = total_nanos_;
  }

  RowMapWriterOptions options_;
  int32_t partition_count_ = 0;
  std::unique_ptr<RowToColumnarConverter> converter_;
  std::unique_ptr<SegmentEncoder> encoder_;
  std::unique_ptr<CompactSegmentEncoder> compact_;  // null unless small partitions are compact
  std::shared_ptr<MemoryBudget> budget_;
  std::unique_ptr<MapOutputFiles> files_;
  RowWriterStrategy strategy_ = RowWriterStrategy::kSort;
  std::unique_ptr<MapWriter> scatter_writer_;  // the scatter strategy's columnar writer
  bool finished_ = false;
  bool aborted_ = false;

  std::vector<AlignedBuffer> pages_;
  int64_t pages_made_ = 0;  // over the writer's life: sizes the next page
  AlignedBuffer* current_page_ = nullptr;
  int64_t page_used_ = 0;
  AlignedBuffer pointers_;  // uint64 pointers, first half used, second half sort scratch
  int64_t pointer_capacity_ = 0;
  int64_t row_count_ = 0;
  int64_t held_bytes_ = 0;

  const uint64_t* sorted_ = nullptr;
  int64_t cursor_ = 0;
  int64_t rows_per_block_ = 1;
  std::vector<const uint8_t*> row_addresses_;
  std::vector<int32_t> row_sizes_;
  std::vector<uint32_t> row_partitions_;
  int64_t scatter_convert_nanos_ = 0;  // scatter: converting rows, outside the MapWriter
  int64_t total_nanos_ = 0;
  MapWriterMetrics metrics_;
};

Status ApplyRowMapWriterSetting(RowMapWriterOptions* options, std::string_view key,
                                std::string_view value) {
  if (key == "page-bytes") {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return bytes.status().WithContext("setting 'page-bytes'");
    options->page_bytes = *bytes;
    return Status::OK();
  }
  if (key == "strategy") {
    if (value == "auto") {
      options->strategy = RowWriterStrategy::kAuto;
    } else if (value == "sort") {
      options->strategy = RowWriterStrategy::kSort;
    } else if (value == "scatter") {
      options->strategy = RowWriterStrategy::kScatter;
    } else {
      return Status::Invalid("setting 'strategy': '", value, "' is not auto, sort or scatter");
    }
    return Status::OK();
  }
  return ApplyMapWriterSetting(&options->writer, key, value);
}

RowWriterStrategy ChooseRowWriterStrategy(int32_t partition_count, int64_t row_bytes) {
  return partition_count >= kScatterMinPartitions && row_bytes <= kNarrowRowBytes
             ? RowWriterStrategy::kScatter
             : RowWriterStrategy::kSort;
}

RowMapWriter::RowMapWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RowMapWriter::~RowMapWriter() = default;

Result<std::unique_ptr<RowMapWriter>> RowMapWriter::Make(RowMapWriterOptions options) {
  return GuardFailures("RowMapWriter::Make", [&]() -> Result<std::unique_ptr<RowMapWriter>> {
    auto impl = std::make_unique<Impl>(std::move(options));
    SLUICE_RETURN_NOT_OK(impl->Init());
    return std::unique_ptr<RowMapWriter>(new RowMapWriter(std::move(impl)));
  });
}

// Each call runs guarded: an exception (a failed allocation) aborts the writer, whose files are
// removed, and comes back as an error.
template <typename Body>
auto RowMapWriter::Guarded(std::string_view where, Body&& body) -> decltype(body()) {
  auto result = GuardFailures(where, body);
  if (FailedOutOfMemory(result)) impl_->Abort();
  return result;
}

Status RowMapWriter::AppendRow(uint32_t partition, const uint8_t* row, int32_t size) {
  return Guarded("RowMapWriter::AppendRow", [&] { return impl_->AppendRow(partition, row, size); });
}
Result<RowMapWriter::Page> RowMapWriter::NewPage(int64_t min_bytes) {
  return Guarded("RowMapWriter::NewPage", [&] { return impl_->NewPage(min_bytes); });
}
Status RowMapWriter::AddPointers(const uint64_t* pointers, int64_t count) {
  return Guarded("RowMapWriter::AddPointers", [&] { return impl_->AddPointers(pointers, count); });
}
Result<int64_t> RowMapWriter::Spill() {
  return Guarded("RowMapWriter::Spill", [&] { return impl_->Spill(); });
}
Result<MapOutput> RowMapWriter::Finish() {
  return Guarded("RowMapWriter::Finish", [&] { return impl_->Finish(); });
}
void RowMapWriter::Abort() {
  impl_->Abort();
}
int32_t RowMapWriter::partition_count() const {
  return impl_->partition_count();
}
RowWriterStrategy RowMapWriter::strategy() const {
  return impl_->strategy();
}
int64_t RowMapWriter::held_bytes() const {
  return impl_->held_bytes();
}
int64_t RowMapWriter::NextPageBytes(int64_t min_bytes) const {
  return impl_->NextPageBytes(min_bytes);
}
const MapWriterMetrics& RowMapWriter::metrics() const {
  return impl_->metrics();
}

}  // namespace sluice
