#include <algorithm>

#include "aligned_buffer_pool_internal.h"

namespace sluice::internal {

std::shared_ptr<AlignedBufferPool> AlignedBufferPool::Make(int64_t capacity_bytes) {
  std::shared_ptr<AlignedBufferPool> pool(new AlignedBufferPool(std::max<int64_t>(capacity_bytes, 0)));
  pool->self_ = pool;
  return pool;
}

std::shared_ptr<AlignedBuffer> AlignedBufferPool::Acquire(int64_t size, bool* made) {
  std::unique_ptr<AlignedBuffer> buffer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      // Any free buffer will do: reads of one reader have similar sizes, and a buffer that is
      // too small grows once and then fits.
      buffer = std::move(free_.back());
      free_.pop_back();
      free_bytes_ -= buffer->capacity();
    } else {
      buffers_made_ += 1;
    }
  }
  if (made != nullptr) *made = buffer == nullptr;
  if (buffer == nullptr) buffer = std::make_unique<AlignedBuffer>();
  buffer->Clear();  // a reused buffer that must grow has nothing worth copying
  buffer->Resize(size);
  // The deleter holds the pool weakly: a buffer outliving its reader is simply freed.
  std::weak_ptr<AlignedBufferPool> pool = self_;
  return std::shared_ptr<AlignedBuffer>(buffer.release(), [pool](AlignedBuffer* returned) {
    if (auto alive = pool.lock()) {
      alive->Return(returned);
    } else {
      delete returned;
    }
  });
}

void AlignedBufferPool::Return(AlignedBuffer* buffer) {
  std::unique_ptr<AlignedBuffer> owned(buffer);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_bytes_ + owned->capacity() <= capacity_bytes_) {
      free_bytes_ += owned->capacity();
      free_.push_back(std::move(owned));
    }
  }
  // A buffer the pool has no room for is freed here, outside the lock.
}

int64_t AlignedBufferPool::free_buffers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(free_.size());
}

int64_t AlignedBufferPool::buffers_made() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return buffers_made_;
}

}  // namespace sluice::internal
