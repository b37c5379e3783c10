// PushedBlockQueue: the source a host pushes fetched blocks into while a PartitionReader reads.
//
// Spark fetches remote map outputs asynchronously: ShuffleBlockFetcherIterator hands over one
// block per map output (that output's bytes for the requested partitions) as each arrives, on
// the network threads. A host bridges that to Sluice by pushing each block here, from any thread,
// and closing the queue after the last one; the reader takes the blocks in push order. A reader
// whose next block has not arrived waits in Next(), or reports "not ready" from TryNext() so a
// host that pushes and reads on one thread never blocks.
//
// Pushing never blocks (Spark bounds the bytes in flight itself, spark.reducer.maxSizeInFlight);
// queued_bytes() tells a host that wants its own bound how much is waiting. A block's owner is
// released as soon as the reader no longer needs its bytes. A fetch that failed is pushed as a
// failure, so it reaches the consumer in order, or is skipped like any failed map output.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "sluice/base/status.h"
#include "sluice/read/segment_source.h"

namespace sluice {

class PushedBlockQueue {
 public:
  /// Makes an empty, open queue. One reader reads it.
  static std::shared_ptr<PushedBlockQueue> Make();

  /// Hands over one map output's bytes. Thread-safe, never blocks. Returns Invalid after
  /// Close() and Cancelled once the reader is gone; the block (and its owner) is dropped then.
  Status Push(SegmentBlock block);
  /// Reports a map output that could not be fetched. The reader fails with `failure` (its
  /// message prefixed by `name`) after the blocks pushed before it, or, when it skips failed
  /// sources, records it and reads on. Thread-safe.
  Status PushFailure(std::string name, Status failure);
  /// Ends the queue: the reader finishes after the blocks already pushed. Idempotent.
  void Close();

  /// Returns the blocks pushed and not yet taken by the reader.
  int64_t queued_blocks() const;
  /// Returns the bytes of those blocks.
  int64_t queued_bytes() const;

  // The reader's side.

  /// A pushed block, or a pushed failure (then `failure` is not OK).
  struct Item {
    SegmentBlock block;
    Status failure;
  };
  enum class PopOutcome : uint8_t { kItem, kNotReady, kClosed, kDetached };
  /// Takes the oldest item. Without `wait`, returns kNotReady when none is queued and the
  /// queue is open; with `wait`, blocks until an item, Close() or Detach().
  PopOutcome Pop(bool wait, Item* out);
  /// Called when the reader goes away: drops what is queued, refuses further pushes, and wakes
  /// a Pop that is waiting (it returns kDetached).
  void Detach();

 private:
  PushedBlockQueue() = default;

  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Item> items_;
  int64_t queued_bytes_ = 0;
  bool closed_ = false;
  bool detached_ = false;
};

}  // namespace sluice
