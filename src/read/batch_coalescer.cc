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
  SLUICE_RETURN_NOT_OK(Join(0, held_.size(), out));
  held_.clear();
  held_rows_ = 0;
  held_bytes_ = 0;
  return Status::OK();
}

Status BatchCoalescer::Join(size_t begin, size_t end, BatchQueue* out) {
  if (end - begin == 1) {
    out->push_back(std::move(held_[begin]));
    return Status::OK();
  }
  const auto start = std::chrono::steady_clock::now();
  if (concatenator_ == nullptr) {
    SLUICE_ASSIGN_OR_RAISE(concatenator_, BatchConcatenator::Make(held_[begin].schema()));
  }
  pointers_.clear();
  for (size_t i = begin; i < end; ++i) pointers_.push_back(&held_[i]);
  Result<RecordBatch> joined = concatenator_->Concatenate(pointers_);
  if (!joined.ok()) {
    if (!concatenator_->dictionary_overflow()) return joined.status();
    const size_t middle = begin + (end - begin) / 2;
    SLUICE_RETURN_NOT_OK(Join(begin, middle, out));
    return Join(middle, end, out);
  }
  out->push_back(std::move(joined).ValueUnsafe());
  counters_.coalesced_batches += 1;
  counters_.coalesced_inputs += static_cast<int64_t>(end - begin);
  counters_.coalesce_nanos +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  return Status::OK();
}

}  // namespace sluice::internal
