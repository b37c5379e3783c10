// ReadBufferPool: the aligned buffers a reader reads file ranges into, reused once no batch
// points into them.
//
// Decoded batches are zero-copy views of the bytes they were read from (for codec none, and for
// every buffer stored uncompressed), so a read buffer may be reused only when the last batch
// viewing it is gone. The pool hands out buffers as MemoryOwners: the decoder puts the owner
// into each batch that views the bytes, and when the last reference dies the buffer returns
// here (from whichever thread drops it) instead of being freed. A buffer nobody pins, such as
// one whose partitions were all decompressed into arenas, comes back as soon as its block is
// decoded. Free buffers are kept up to `capacity_bytes` in all; the rest are freed.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/format/record_batch.h"

namespace sluice::internal {

class ReadBufferPool {
 public:
  /// Makes a pool that keeps free buffers of at most `capacity_bytes` in all.
  static std::shared_ptr<ReadBufferPool> Make(int64_t capacity_bytes);

  /// Returns a buffer of `size` bytes (contents undefined) and the owner that returns it to the
  /// pool when the last reference is dropped. Thread-safe.
  std::shared_ptr<AlignedBuffer> Acquire(int64_t size);

  /// Returns the buffers currently free, and the buffers made since the pool was created.
  int64_t free_buffers() const;
  int64_t buffers_made() const;

 private:
  explicit ReadBufferPool(int64_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}
  void Return(AlignedBuffer* buffer);

  const int64_t capacity_bytes_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<AlignedBuffer>> free_;
  int64_t free_bytes_ = 0;  // capacity of the buffers in free_
  int64_t buffers_made_ = 0;
  std::weak_ptr<ReadBufferPool> self_;
};

}  // namespace sluice::internal
