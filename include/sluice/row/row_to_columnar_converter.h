// RowToColumnarConverter: Spark UnsafeRows in, Arrow columns out.
//
// The row path of the map side receives Spark's UnsafeRows (from the JVM, or from a shuffle
// stream) and must turn them into Arrow columns before they are encoded. A converter is made once
// per schema: Make() checks that Spark can carry every type and builds a tree of typed appenders,
// one per column and nested field, so no type is looked at per row or per value afterwards.
//
// Append() takes a batch of rows as (pointer, size) pairs and converts them column by column:
// the rows are cut into chunks that fit in the cache, and each appender reads its field from every
// row of the chunk in one loop, straight into buffers it owns and reuses. Strings are copied once;
// nested structs, arrays and maps become sets of nested rows or arrays handed to the child
// appenders, so a list<int64> column copies each array's elements with one memcpy.
//
// Rows come from the JVM or the network and may be corrupt. Every offset and size is checked
// against the bounds of the row (or of the nested row or array holding it) before it is read, and
// a chunk's values cannot claim more bytes than its rows hold, which bounds the work a hostile row
// can cause. Bad input returns Corrupt naming the row, the column and the byte offset in the row;
// the rows of a failed Append are dropped, the rows appended before it are kept.
//
// View() returns a batch over the converter's buffers, valid until the next Append, Finish or
// Reset, which is what a caller encoding the batch at once wants; Finish() hands the buffers to
// the batch instead.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"
#include "sluice/format/schema.h"

namespace sluice {

/// Settings of a RowToColumnarConverter.
struct RowToColumnarOptions {
  /// Checks that every string column holds valid UTF-8, once per column per Append (one pass over
  /// the bytes appended, not one call per value). Off by default: Spark's own rows carry the bytes
  /// Spark accepted, and Spark itself does not validate UTF8String. When on, an invalid string is
  /// Corrupt naming its row and column.
  bool validate_utf8 = false;
};

namespace row_internal {
class ColumnAppender;
struct ChunkScratch;
}  // namespace row_internal

/// Converts Spark UnsafeRows of one schema into Arrow columns.
class RowToColumnarConverter {
 public:
  /// Makes a converter for rows of `schema` (Spark types mapped to Arrow as in spark_type.h).
  /// Returns NotImplemented naming the field when a type has no Spark equivalent.
  static Result<std::unique_ptr<RowToColumnarConverter>> Make(SchemaPtr schema,
                                                              RowToColumnarOptions options = {});

  ~RowToColumnarConverter();
  RowToColumnarConverter(const RowToColumnarConverter&) = delete;
  RowToColumnarConverter& operator=(const RowToColumnarConverter&) = delete;

  const SchemaPtr& schema() const { return schema_; }
  /// Returns the number of rows appended since the last Finish or Reset.
  int64_t num_rows() const { return num_rows_; }

  /// Converts `count` rows and appends them; row i has `sizes[i]` bytes at `rows[i]`. On error,
  /// none of these rows is kept and the status names the first bad row, column and byte offset.
  Status Append(const uint8_t* const* rows, const int32_t* sizes, int64_t count);

  /// Returns a batch of every row appended since the last Finish or Reset. It borrows the
  /// converter's buffers and stays valid until the next Append, Finish or Reset.
  RecordBatch View() const;

  /// Returns a batch of every row appended since the last Finish or Reset that owns its buffers;
  /// the converter is empty afterwards.
  RecordBatch Finish();

  /// Forgets every appended row, keeping the buffers' capacity for the next batch.
  void Reset();

 private:
  RowToColumnarConverter(SchemaPtr schema, RowToColumnarOptions options);
  Status AppendChunk(const uint8_t* const* rows, const int32_t* sizes, int64_t count,
                     int64_t first_row);
  Status ValidateUtf8(int64_t rows_before, const std::vector<int64_t>& string_lengths_before);

  SchemaPtr schema_;
  RowToColumnarOptions options_;
  int64_t num_rows_ = 0;
  int64_t fixed_bytes_ = 0;
  std::vector<std::unique_ptr<row_internal::ColumnAppender>> columns_;
  // Every string appender of the tree, for UTF-8 validation.
  std::vector<row_internal::ColumnAppender*> string_appenders_;
  // A row whose null bits are all set: what the fields of a null struct read.
  std::vector<uint64_t> null_row_;
  // Scratch for the rows of one chunk.
  std::unique_ptr<row_internal::ChunkScratch> chunk_;
};

}  // namespace sluice
