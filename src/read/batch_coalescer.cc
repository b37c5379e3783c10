#include <chrono>

#include "batch_coalescer_internal.h"
#include "sluice/base/saturating_arithmetic.h"

namespace sluice::internal {

Status BatchCoalescer::Add(RecordBatch batch, BatchQueue* out) {
  const int64_t rows = batch.num_rows();
  if (rows == 0) return Status::OK();
  const int64_t bytes = batch.ReferencedBytes();
  // Half a target or more (written without doubling `rows`, which input may declare up to
  // INT64_MAX).
  if (rows >= target_rows_ - target_rows_ / 2 || bytes * 2 >= target_bytes_) {
    SLUICE_RETURN_NOT_OK(Flush(out));
    out->push_back(std::move(batch));
    return Status::OK();
  }
  if (held_rows_ + rows > target_rows_ || held_bytes_ + bytes > target_bytes_) {
    SLUICE_RETURN_NOT_OK(Flush(out));
  }
  held_rows_ = SaturatingAdd(held_rows_, rows);
  held_bytes_ += bytes;
  held_.push_back(std::move(batch));
  if (held_rows_ == target_rows_) return Flush(out);
  return Status::OK();
}

Status BatchCoalescer::Flush(BatchQueue* out) {
  if (held_.empty()) return Status::OK();
  if (held_.size() == 1 || HasDictionary(*held_.front().schema())) {
    // Batches with dictionary columns go as they are, each with its own dictionaries.
    for (RecordBatch& batch : held_) out->push_back(std::move(batch));
  } else {
    const auto start = std::chrono::steady_clock::now();
    if (concatenator_ == nullptr) {
      SLUICE_ASSIGN_OR_RAISE(concatenator_, BatchConcatenator::Make(held_.front().schema()));
    }
    pointers_.clear();
    for (const RecordBatch& batch : held_) pointers_.push_back(&batch);
    SLUICE_ASSIGN_OR_RAISE(RecordBatch joined, concatenator_->Concatenate(pointers_));
    out->push_back(std::move(joined));
    counters_.coalesced_batches += 1;
    counters_.coalesced_inputs += static_cast<int64_t>(held_.size());
    counters_.coalesce_nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now() - start)
                                    .count();
  }
  held_.clear();
  held_rows_ = 0;
  held_bytes_ = 0;
  return Status::OK();
}

}  // namespace sluice::internal
