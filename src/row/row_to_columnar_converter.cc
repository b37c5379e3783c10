#include "sluice/row/row_to_columnar_converter.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "row/column_appender_internal.h"
#include "row/unsafe_row_layout_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/utf8.h"
#include "sluice/row/spark_type.h"

namespace sluice {
namespace row_internal {

namespace {

// A chunk is as many rows as fit in about 64 KiB (at least one, at most 1024): each appender walks
// the whole chunk for its column, so the chunk's rows must stay in L2 while every column reads
// them; 1024 rows bound the per-chunk scratch.
constexpr int64_t kChunkBytes = 64 * 1024;
constexpr int64_t kMaxChunkRows = 1024;

// Keeps the buffers of a finished batch alive.
struct BufferSet {
  std::vector<AlignedBuffer> buffers;
};

}  // namespace

// Scratch for the top-level rows of one chunk.
struct ChunkScratch {
  std::vector<int32_t> row_ids;  // 0, 1, 2, ...: the rows' indices in the chunk
  NullIndex nulls;
};

}  // namespace row_internal

using row_internal::ColumnAppender;

RowToColumnarConverter::RowToColumnarConverter(SchemaPtr schema, RowToColumnarOptions options)
    : schema_(std::move(schema)), options_(options) {}

RowToColumnarConverter::~RowToColumnarConverter() = default;

Result<std::unique_ptr<RowToColumnarConverter>> RowToColumnarConverter::Make(
    SchemaPtr schema, RowToColumnarOptions options) {
  if (schema == nullptr) return Status::Invalid("RowToColumnarConverter needs a schema");
  SLUICE_RETURN_NOT_OK(CheckSparkSchema(*schema));
  std::unique_ptr<RowToColumnarConverter> converter(
      new RowToColumnarConverter(std::move(schema), options));
  const Schema& fields = *converter->schema_;
  const auto field_count = static_cast<int64_t>(fields.num_fields());
  converter->fixed_bytes_ = row_internal::RowFixedBytes(field_count);

  // A null struct's fields are read from a row whose null bits are all set, so every field
  // below it comes out null without a check per value.
  int64_t null_row_bytes = 0;
  for (const Field& field : fields.fields()) {
    null_row_bytes = std::max(null_row_bytes, row_internal::LargestStructFixedBytes(*field.type));
  }
  converter->null_row_.assign(static_cast<size_t>(null_row_bytes / 8) + 1, ~uint64_t{0});
  const auto* null_row = reinterpret_cast<const uint8_t*>(converter->null_row_.data());

  for (const Field& field : fields.fields()) {
    converter->columns_.push_back(row_internal::MakeAppender(*field.type, field.name, null_row,
                                                             &converter->string_appenders_));
  }
  converter->chunk_ = std::make_unique<row_internal::ChunkScratch>();
  converter->chunk_->row_ids.resize(row_internal::kMaxChunkRows);
  for (int32_t i = 0; i < row_internal::kMaxChunkRows; ++i) converter->chunk_->row_ids[i] = i;
  return converter;
}

Status RowToColumnarConverter::Append(const uint8_t* const* rows, const int32_t* sizes,
                                      int64_t count) {
  if (count < 0) return Status::Invalid("RowToColumnarConverter: negative row count ", count);
  for (int64_t i = 0; i < count; ++i) {
    if (sizes[i] < fixed_bytes_) {
      return Status::Corrupt(
          "UnsafeRow ", i, ", byte offset 0: a row of ", sizes[i], " bytes is shorter than the ",
          fixed_bytes_, " bytes of its null bitset and ", schema_->num_fields(), " field slots");
    }
    if (rows[i] == nullptr && sizes[i] > 0) {
      return Status::Invalid("UnsafeRow ", i, ": null pointer for a row of ", sizes[i], " bytes");
    }
  }
  std::vector<int64_t> string_lengths_before;
  if (options_.validate_utf8) {
    for (const ColumnAppender* strings : string_appenders_) {
      string_lengths_before.push_back(strings->length());
    }
  }

  Status status;
  int64_t start = 0;
  while (start < count && status.ok()) {
    int64_t end = start;
    int64_t bytes = 0;
    while (end < count && end - start < row_internal::kMaxChunkRows &&
           (end == start || bytes + sizes[end] <= row_internal::kChunkBytes)) {
      bytes += sizes[end];
      ++end;
    }
    status = AppendChunk(rows + start, sizes + start, end - start, start);
    start = end;
  }
  if (status.ok() && options_.validate_utf8) {
    status = ValidateUtf8(num_rows_, string_lengths_before);
  }
  if (!status.ok()) {
    for (auto& column : columns_) column->Truncate(num_rows_);
    return status;
  }
  num_rows_ += count;
  return Status::OK();
}

Status RowToColumnarConverter::AppendChunk(const uint8_t* const* rows, const int32_t* sizes,
                                           int64_t count, int64_t first_row) {
  int64_t bytes = 0;
  for (int64_t i = 0; i < count; ++i) bytes += sizes[i];
  const row_internal::ChunkContext context{rows, first_row, bytes};
  const auto field_count = static_cast<int64_t>(columns_.size());
  const int64_t bitset_bytes = row_internal::BitsetBytes(field_count);
  chunk_->nulls.Build(rows, count, bitset_bytes);
  const row_internal::StructSet set{rows,  sizes,        chunk_->row_ids.data(),
                                    count, bitset_bytes, &chunk_->nulls};
  for (int64_t c = 0; c < field_count; ++c) {
    SLUICE_RETURN_NOT_OK(columns_[c]->AppendFields(set, c, context));
  }
  return Status::OK();
}

Status RowToColumnarConverter::ValidateUtf8(int64_t rows_before,
                                            const std::vector<int64_t>& string_lengths_before) {
  for (size_t s = 0; s < string_appenders_.size(); ++s) {
    const ColumnAppender* strings = string_appenders_[s];
    const int64_t invalid = strings->FindInvalidUtf8Value(string_lengths_before[s]);
    if (invalid < 0) continue;
    // Walk up to the top-level row holding the value.
    int64_t index = invalid;
    for (const ColumnAppender* level = strings; level->parent() != nullptr;
         level = level->parent()) {
      index = level->parent()->ParentIndexOf(index);
    }
    return Status::Corrupt("UnsafeRow ", index - rows_before, ", column ", strings->path(),
                           ": a string is not valid UTF-8");
  }
  return Status::OK();
}

RecordBatch RowToColumnarConverter::View() const {
  std::vector<ArrayData> columns;
  columns.reserve(columns_.size());
  for (const auto& column : columns_) columns.push_back(column->View());
  return RecordBatch(schema_, num_rows_, std::move(columns), {});
}

RecordBatch RowToColumnarConverter::Finish() {
  std::vector<ArrayData> columns;
  columns.reserve(columns_.size());
  for (const auto& column : columns_) columns.push_back(column->View());
  // Moving an AlignedBuffer keeps its storage, so the views taken above stay valid.
  auto buffers = std::make_shared<row_internal::BufferSet>();
  for (auto& column : columns_) column->ReleaseBuffers(&buffers->buffers);
  RecordBatch batch(schema_, num_rows_, std::move(columns), {std::move(buffers)});
  num_rows_ = 0;
  return batch;
}

void RowToColumnarConverter::Reset() {
  for (auto& column : columns_) column->Reset();
  num_rows_ = 0;
}

}  // namespace sluice
