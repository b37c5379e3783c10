// The reference batches the benchmarks (and `sluice generate`) use, as the issues define them.
#pragma once

#include <cstdint>

#include "sluice/format/record_batch.h"

namespace sluice::workload {

/// "mixed": c0 Int32 = i, c1 Utf8 = "this is string number {i}" (null when i % 10 == 0),
/// c2 Date32 = i, c3 Decimal128(11, 2) with unscaled value i * 1,000,000; i counts from
/// `first_row`.
RecordBatch MixedBatch(int64_t rows, int64_t first_row = 0);

/// "flat50": 50 non-null Int32 columns, value = row + column.
RecordBatch Flat50Batch(int64_t rows, int64_t first_row = 0);

/// "nested": 4 non-null struct columns, each nested 6 deep over
/// struct<a Int64 = 1, b Utf8 = "x", c Float64 = 1.0>.
RecordBatch NestedBatch(int64_t rows);

/// The decode benchmark's batch: `columns` columns alternating Int64 (= row) and
/// Utf8 ("value_{row}").
RecordBatch AlternatingBatch(int columns, int64_t rows);

/// "wide": 200 columns cycling Int64, Float64, Utf8 and Date32, about 1.4 KiB per row.
RecordBatch WideBatch(int64_t rows, int64_t first_row = 0);

}  // namespace sluice::workload
