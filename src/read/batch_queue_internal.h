// BatchQueue: record batches waiting for their consumer, first in, first out.
//
// A ring of slots that only grows. Batches pass through a reader's queues one block at a time,
// tens of thousands of times; a std::deque allocates a chunk every few batches and frees one
// as it empties, which costs more than the rest of the queueing.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "sluice/format/record_batch.h"

namespace sluice::internal {

class BatchQueue {
 public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }

  RecordBatch& front() { return slots_[head_]; }

  void push_back(RecordBatch&& batch) {
    if (count_ == slots_.size()) Grow();
    slots_[(head_ + count_) & (slots_.size() - 1)] = std::move(batch);
    ++count_;
  }

  /// Removes the front batch; its slot keeps what is left of it (nothing, once moved from).
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --count_;
  }

 private:
  // Doubles the slots (a power of two, so that positions wrap with a mask), the queued
  // batches first, in order.
  void Grow() {
    std::vector<RecordBatch> grown(slots_.empty() ? 4 : 2 * slots_.size());
    for (size_t i = 0; i < count_; ++i) {
      grown[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    }
    slots_ = std::move(grown);
    head_ = 0;
  }

  std::vector<RecordBatch> slots_;
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace sluice::internal
