// A TPC-H lineitem-like table: the 16 lineitem columns with their types and value
// distributions as the TPC-H specification describes them, generated deterministically from a
// seed, any number of rows, batch by batch.
#pragma once

#include <cstdint>

#include "sluice/format/record_batch.h"

namespace sluice::workload {

/// The lineitem schema: l_orderkey .. l_comment.
SchemaPtr LineitemSchema();

/// Generates lineitem rows in batches; the same seed always gives the same rows.
class LineitemGenerator {
 public:
  explicit LineitemGenerator(uint64_t seed = 1);

  /// Returns the next `rows` rows.
  RecordBatch Next(int64_t rows);

 private:
  uint64_t Random();                           // splitmix64
  int64_t Uniform(int64_t low, int64_t high);  // inclusive

  uint64_t state_;
  int64_t order_key_ = 0;
  int32_t lines_left_in_order_ = 0;
  int32_t line_number_ = 0;
  int32_t order_date_ = 0;
};

}  // namespace sluice::workload
