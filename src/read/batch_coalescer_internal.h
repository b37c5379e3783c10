// BatchCoalescer: turns a stream of decoded batches of any size into batches of about a target
// row count and byte size, in order.
//
// Consecutive small batches are held and joined into one by a BatchConcatenator (one copy of
// each value into one arena); the join happens when adding the next batch would pass a target.
// A batch of at least half a target passes through untouched (no copy), after the batches held
// before it. A single held batch is emitted as it is. Empty batches are dropped. Batches whose
// dictionaries together need more values than a dictionary column's index type numbers are
// joined in smaller groups.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "batch_queue_internal.h"
#include "sluice/base/status.h"
#include "sluice/format/record_batch.h"
#include "sluice/ipc/batch_concatenator.h"

namespace sluice::internal {

struct CoalesceCounters {
  /// Output batches joined from two or more inputs, and the inputs joined.
  int64_t coalesced_batches = 0;
  int64_t coalesced_inputs = 0;
  int64_t coalesce_nanos = 0;
};

class BatchCoalescer {
 public:
  BatchCoalescer(int64_t target_rows, int64_t target_bytes)
      : target_rows_(target_rows), target_bytes_(target_bytes) {}

  /// Adds `batch`; appends to `out` the batches that are complete.
  Status Add(RecordBatch batch, BatchQueue* out);
  /// Appends everything held to `out` (joined into one batch).
  Status Flush(BatchQueue* out);

  bool empty() const { return held_.empty(); }
  const CoalesceCounters& counters() const { return counters_; }

 private:
  // Joins held_[begin, end) into one batch appended to `out`; in two (or more) where their
  // dictionaries together overflow a dictionary column's index type.
  Status Join(size_t begin, size_t end, BatchQueue* out);

  const int64_t target_rows_;
  const int64_t target_bytes_;
  std::vector<RecordBatch> held_;
  int64_t held_rows_ = 0;
  int64_t held_bytes_ = 0;
  std::unique_ptr<BatchConcatenator> concatenator_;
  std::vector<const RecordBatch*> pointers_;
  CoalesceCounters counters_;
};

}  // namespace sluice::internal
