// ColumnarToRowConverter: Arrow columns in, Spark UnsafeRows out.
//
// The reduce side hands Spark rows back to the JVM (and the map side may need rows for Spark's own
// operators); the rows must be byte for byte what Spark's UnsafeRowWriter produces, because Spark
// compares and hashes UnsafeRows as bytes. That means: zeroed null bits and padding, a null field's
// slot zeroed, fixed-width values zero-extended in their 8-byte slot, NaN written as Java's
// canonical NaN, variable-length values appended in field order to the variable region, nested
// structs as nested UnsafeRows, arrays as UnsafeArrayData (elements at their natural width) and
// maps as UnsafeMapData; a decimal of precision above 18 takes a 16-byte region in a row even when
// null, and its minimal big-endian bytes in an array.
//
// A converter is made once per schema as a tree of typed writers. Convert() works on chunks of
// rows and column by column: first every column adds the variable-region bytes of each row (so
// every row's size, and the output size, is known before a byte is written), then every column
// writes its slots and variable parts into all rows of the chunk. Nested types do the same one
// level down, so no type is looked at per value.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"
#include "sluice/row/unsafe_row_batch.h"

namespace sluice {

/// Settings of a ColumnarToRowConverter.
struct ColumnarToRowOptions {
  /// Row layout in the output: bare rows (the default, for the JVM to point UnsafeRows at), or
  /// each preceded by its big-endian int32 size (Spark's UnsafeRowSerializer shuffle stream).
  RowFraming framing = RowFraming::kNone;
};

namespace row_internal {
class ValueWriter;
}  // namespace row_internal

/// Converts Arrow columns of one schema into Spark UnsafeRows.
class ColumnarToRowConverter {
 public:
  /// Makes a converter for batches of `schema`; returns NotImplemented naming the field when a
  /// type has no Spark equivalent (see spark_type.h).
  static Result<std::unique_ptr<ColumnarToRowConverter>> Make(SchemaPtr schema,
                                                              ColumnarToRowOptions options = {});

  ~ColumnarToRowConverter();
  ColumnarToRowConverter(const ColumnarToRowConverter&) = delete;
  ColumnarToRowConverter& operator=(const ColumnarToRowConverter&) = delete;

  const SchemaPtr& schema() const { return schema_; }

  /// Converts rows [start, start + count) of `batch` and appends them to `output`. Returns
  /// Invalid when the batch's schema differs from the converter's, when the range is outside the
  /// batch, when a row would exceed Spark's 2 GiB row size, or when a decimal of precision <= 18
  /// does not fit in 64 bits; `output` is then left as it was.
  Status Convert(const RecordBatch& batch, int64_t start, int64_t count, UnsafeRowBatch* output);

 private:
  ColumnarToRowConverter(SchemaPtr schema, ColumnarToRowOptions options);
  Status ConvertChunk(const RecordBatch& batch, int64_t start, int64_t count,
                      UnsafeRowBatch* output);

  SchemaPtr schema_;
  ColumnarToRowOptions options_;
  int64_t fixed_bytes_ = 0;
  int64_t bitset_bytes_ = 0;
  std::vector<std::unique_ptr<row_internal::ValueWriter>> columns_;
  // Scratch for one chunk: each row's size, start and variable-region cursor.
  std::vector<int64_t> row_sizes_;
  std::vector<int64_t> row_starts_;
  std::vector<int64_t> row_cursors_;
};

}  // namespace sluice
