// AlignedBufferPool: aligned buffers handed out as shared owners, which come back to the pool
// instead of being freed when the last owner is dropped.
//
// Decoded batches are zero-copy views of the memory they were decoded from: the bytes a reader
// read a file range into (for codec none, and for every buffer stored uncompressed), and the
// arena a block was decompressed into. Such memory may be reused only once the last batch
// viewing it is gone, and a reader goes through one buffer of about the same size per read or
// per block, thousands of times. The pool keeps an owner of each of its buffers and lends out
// copies, which the decoder puts into each batch viewing them; a buffer whose only owner left
// is the pool's is free again. Lending one out is a reference count increment and giving it
// back is the decrement when the last batch drops it, on whichever thread: no lock, no
// allocation, no callback. The pool holds buffers of at most `capacity_bytes` in all, lent or
// free; beyond that it hands out buffers of its own, which are freed when dropped.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "sluice/base/aligned_buffer.h"

namespace sluice::internal {

class AlignedBufferPool {
 public:
  /// Makes a pool that holds buffers of at most `capacity_bytes` in all.
  static std::shared_ptr<AlignedBufferPool> Make(int64_t capacity_bytes);

  /// Returns a buffer of `size` bytes (contents undefined) whose last owner returns it to the
  /// pool by dropping it; sets `*made` (when given) to whether the buffer is new rather than
  /// reused. One thread at a time may call Acquire (and free_buffers); owners may be dropped on
  /// any thread, and may outlive the pool.
  std::shared_ptr<AlignedBuffer> Acquire(int64_t size, bool* made = nullptr);

  /// Returns the pooled buffers currently free (not concurrently with Acquire), and the buffers
  /// made since the pool was created (from any thread).
  int64_t free_buffers() const;
  int64_t buffers_made() const { return buffers_made_.load(std::memory_order_relaxed); }
  /// Returns the capacity of the pooled buffers, lent or free (same thread as Acquire).
  int64_t pooled_bytes() const { return pooled_bytes_; }

 private:
  explicit AlignedBufferPool(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // Returns the index of a free pooled buffer: the last one lent, else one of the few after
  // it; or -1.
  int64_t FindFree();

  const int64_t capacity_bytes_;
  std::vector<std::shared_ptr<AlignedBuffer>> pooled_;
  int64_t pooled_bytes_ = 0;  // capacity of the buffers in pooled_
  size_t next_ = 0;           // one past the last buffer lent: FindFree looks before it, then on
  std::atomic<int64_t> buffers_made_{0};
};

}  // namespace sluice::internal
