#include <algorithm>

#include "aligned_buffer_pool_internal.h"

namespace sluice::internal {

namespace {

// How many pooled buffers Acquire looks at before making a new one. Buffers are mostly given
// back in the order they were lent, so the one after the last lent is nearly always free; a
// consumer holding many batches makes the pool look at a few, not all.
constexpr size_t kMaxLooks = 4;

}  // namespace

std::shared_ptr<AlignedBufferPool> AlignedBufferPool::Make(int64_t capacity_bytes) {
  return std::shared_ptr<AlignedBufferPool>(
      new AlignedBufferPool(std::max<int64_t>(capacity_bytes, 0)));
}

int64_t AlignedBufferPool::FindFree() {
  const size_t count = pooled_.size();
  if (count == 0) return -1;
  // Free when the pool's own owner is the only one left. The count is read relaxed; the fence
  // makes whatever the last other owner did with the bytes happen before the pool reuses them
  // (it dropped its reference with a release decrement).
  auto is_free = [this](size_t index) {
    if (pooled_[index].use_count() != 1) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    return true;
  };
  // The last one lent first: a consumer done with each batch before asking for the next gives
  // it back at once, and it is the one still in the cache.
  const size_t last = (next_ + count - 1) % count;
  if (is_free(last)) return static_cast<int64_t>(last);
  for (size_t look = 0; look < std::min(count, kMaxLooks); ++look) {
    const size_t index = (next_ + look) % count;
    if (is_free(index)) {
      next_ = index + 1;
      return static_cast<int64_t>(index);
    }
  }
  next_ = (next_ + kMaxLooks) % count;  // look further on next time
  return -1;
}

std::shared_ptr<AlignedBuffer> AlignedBufferPool::Acquire(int64_t size, bool* made) {
  const int64_t index = FindFree();
  if (index >= 0) {
    std::shared_ptr<AlignedBuffer> buffer = pooled_[static_cast<size_t>(index)];
    const int64_t old_capacity = buffer->capacity();
    buffer->Clear();  // a buffer that must grow has nothing worth copying
    buffer->Resize(size);
    pooled_bytes_ += buffer->capacity() - old_capacity;
    if (pooled_bytes_ > capacity_bytes_) {
      // Grown past what the pool may hold: lend it as the pool's no longer.
      pooled_bytes_ -= buffer->capacity();
      pooled_.erase(pooled_.begin() + index);
    }
    if (made != nullptr) *made = false;
    return buffer;
  }
  buffers_made_.fetch_add(1, std::memory_order_relaxed);
  if (made != nullptr) *made = true;
  auto buffer = std::make_shared<AlignedBuffer>();
  buffer->Resize(size);
  if (pooled_bytes_ + buffer->capacity() <= capacity_bytes_) {
    pooled_bytes_ += buffer->capacity();
    pooled_.push_back(buffer);
    next_ = pooled_.size();  // this one is the last lent
  }
  return buffer;
}

int64_t AlignedBufferPool::free_buffers() const {
  return std::count_if(pooled_.begin(), pooled_.end(),
                       [](const auto& buffer) { return buffer.use_count() == 1; });
}

}  // namespace sluice::internal
