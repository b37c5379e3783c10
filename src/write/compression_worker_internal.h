// CompressionWorker: one background thread that compresses and frames a writer's blocks while
// the writer's own thread gathers the next ones, and takes a share of the compressing when it
// would otherwise wait.
//
// Work moves in jobs: a run of consecutive blocks gathered into one GatheredBlocks, compressed
// and framed into RecordBatch messages. Blocks are handed over by the job, not one by one,
// because a hand-over to a sleeping thread costs about as much as compressing a small block
// (at 200 partitions a block is ~20 KiB and ~15 us of lz4); and a thread that waits for the
// other polls for a while before it sleeps, so that during a flush, when jobs follow each other
// closely, neither has to be woken.
//
// There are two job slots. The writer gathers a job into one slot and submits it; while the
// thread compresses it, the writer appends the messages of the previous job to its file and
// gathers the next job into the other slot; then it waits for the submitted job, submits the
// next, and so on. So one job is in flight (the queue is one deep) and the file is touched only
// by the writer's thread, in the same order as without the worker: the bytes are the same.
//
// Waiting for a job, the writer's thread frames blocks of it too, with an encoder of its own:
// both threads claim the job's blocks in order from one counter, and each appends the messages
// of its blocks to its own buffer. When the codec is slower than gathering (zstd) the two
// threads share the compression; when gathering is slower there is nothing left to claim.
//
// Memory: two slots, each one job of gathered scratch and its framed messages, fixed once warm
// (the writer bounds a job's gathered bytes), and a second encoder with its codec context; a
// warm job allocates nothing. Stopping (Stop() or destruction) skips a submitted job the thread
// has not started, waits for the one it is compressing, and joins the thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice::internal {

class CompressionWorker {
 public:
  /// A run of blocks: gathered by the writer, compressed and framed by the two threads.
  class Job {
   public:
    GatheredBlocks blocks;

    /// Blocks [0, framed()) are framed; when framed() < blocks.size(), status() is the error of
    /// block framed(). Valid once the job is done.
    size_t framed() const { return first_failed_.load(); }
    const Status& status() const { return failure_; }

    /// Returns the framed message of block `index` < framed().
    std::span<const uint8_t> message(size_t index) const {
      const Place& place = places_[index];
      return {messages_[place.framer].data() + place.start,
              static_cast<size_t>(place.end - place.start)};
    }

   private:
    friend class CompressionWorker;

    // Where a block's message is: in the buffer of the thread that framed it (0: the worker's,
    // 1: the caller's).
    struct Place {
      int framer = 0;
      int64_t start = 0;
      int64_t end = 0;
    };

    // Prepares the job for framing its blocks.
    void Reset();
    // Claims blocks in order and frames each with `encoder` into messages_[framer] until none
    // is left or a claimed block fails.
    void FrameClaimed(SegmentEncoder* encoder, int framer);

    AlignedBuffer messages_[2];
    std::vector<Place> places_;
    std::atomic<size_t> next_{0};  // the next block to claim
    // The first block that failed (blocks.size() if none) and its error (OK if none).
    std::mutex failure_mutex_;
    std::atomic<size_t> first_failed_{0};
    Status failure_;
  };

  /// Starts the thread; `encoder` (a compressing one) must outlive this object. While a job is
  /// in flight, the encoder's AppendGathered runs on the thread only. Makes a second encoder
  /// like it for the caller's share.
  static Result<std::unique_ptr<CompressionWorker>> Make(SegmentEncoder* encoder);
  /// Stops the thread (see Stop).
  ~CompressionWorker();
  CompressionWorker(const CompressionWorker&) = delete;
  CompressionWorker& operator=(const CompressionWorker&) = delete;

  /// Returns slot `index` (0 or 1). The caller may touch a slot unless it is in flight.
  Job* job(int index) { return &jobs_[index]; }
  /// Returns whether a submitted job has not been waited for, and which slot it is.
  bool busy() const { return in_flight_ >= 0; }
  int in_flight() const { return in_flight_; }

  /// Hands slot `index` to the thread, which frames its blocks (stopping at the first error).
  /// Requires !busy().
  void Submit(int index);
  /// Frames blocks of the job in flight on the caller's thread while any are left, then waits
  /// until the job is done. Requires busy().
  void Wait();

  /// Waits for the job being compressed, if any, and joins the thread. Idempotent; after it,
  /// only the destructor may be called.
  void Stop();

  /// Returns the time the caller spent in Wait(), its share of the framing included.
  int64_t wait_nanos() const { return wait_nanos_; }
  /// Returns the metrics of the caller's encoder (the blocks it framed in Wait()).
  const SegmentEncoderMetrics& caller_encoder_metrics() const { return caller_encoder_->metrics(); }

 private:
  CompressionWorker(SegmentEncoder* encoder, std::unique_ptr<SegmentEncoder> caller_encoder);
  void Run();

  SegmentEncoder* const encoder_;
  const std::unique_ptr<SegmentEncoder> caller_encoder_;
  Job jobs_[2];
  int in_flight_ = -1;  // the caller's view
  int64_t wait_nanos_ = 0;

  // job_ and stop_ change under mutex_ (so a sleeper cannot miss a change) and are read without
  // it while polling.
  std::mutex mutex_;
  std::condition_variable submitted_;  // a job or stop_, for the thread
  std::condition_variable finished_;   // the thread is done with the job, for the caller
  std::atomic<int> job_{-1};           // slot submitted and not yet finished by the thread
  std::atomic<bool> stop_{false};

  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace sluice::internal
