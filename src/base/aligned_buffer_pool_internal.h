// AlignedBufferPool: aligned buffers handed out as shared owners, which come back to the pool
// instead of being freed when the last owner is dropped.
//
// Decoded batches are zero-copy views of the memory they were decoded from: the bytes a reader
// read a file range into (for codec none, and for every buffer stored uncompressed), and the
// arena a block was decompressed into. Such memory may be reused only once the last batch
// viewing it is gone, and a reader goes through one buffer of about the same size per read or
// per block, thousands of times. The pool hands buffers out as owners that the decoder puts
// into each batch viewing them; when the last reference dies (on whichever thread drops it) the
// buffer returns here, so a warm reader allocates nothing per block. Free buffers are kept up
// to `capacity_bytes` in all; the rest are freed.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sluice/base/aligned_buffer.h"

namespace sluice::internal {

class AlignedBufferPool {
 public:
  /// Makes a pool that keeps free buffers of at most `capacity_bytes` in all.
  static std::shared_ptr<AlignedBufferPool> Make(int64_t capacity_bytes);

  /// Returns a buffer of `size` bytes (contents undefined) and the owner that returns it to the
  /// pool when the last reference is dropped; sets `*made` (when given) to whether the buffer
  /// is new rather than reused. Thread-safe.
  std::shared_ptr<AlignedBuffer> Acquire(int64_t size, bool* made = nullptr);

  /// Returns the buffers currently free, and the buffers made since the pool was created.
  int64_t free_buffers() const;
  int64_t buffers_made() const;

 private:
  explicit AlignedBufferPool(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}
  void Return(AlignedBuffer* buffer);

  const int64_t capacity_bytes_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<AlignedBuffer>> free_;
  int64_t free_bytes_ = 0;  // capacity of the buffers in free_
  int64_t buffers_made_ = 0;
  std::weak_ptr<AlignedBufferPool> self_;
};

}  // namespace sluice::internal
