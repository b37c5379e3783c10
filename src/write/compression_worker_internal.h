// CompressionWorker: one background thread that compresses and frames a writer's blocks while
// the writer's own thread gathers the next ones.
//
// Work moves in jobs: a run of consecutive blocks gathered into one GatheredBlocks, compressed
// by the thread into one buffer of framed RecordBatch messages. Blocks are handed over by the
// job, not one by one, because a hand-over to a sleeping thread costs about as much as
// compressing a small block (at 200 partitions a block is ~20 KiB and ~15 us of lz4); and a
// thread that waits for the other polls for a while before it sleeps, so that during a flush,
// when jobs follow each other closely, neither has to be woken.
//
// There are two job slots. The writer gathers a job into one slot and submits it; while the
// thread compresses it, the writer appends the messages of the previous job to its file and
// gathers the next job into the other slot; then it waits for the submitted job, submits the
// next, and so on. So one job is in flight (the queue is one deep) and the file is touched only
// by the writer's thread, in the same order as without the worker: the bytes are the same.
//
// Memory: two slots, each one job of gathered scratch and its framed messages, fixed once warm
// (the writer bounds a job's gathered bytes); a warm job allocates nothing. Stopping (Stop() or
// destruction) skips a submitted job the thread has not started, waits for the one it is
// compressing, and joins the thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/base/stopwatch.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice::internal {

class CompressionWorker {
 public:
  /// A run of blocks: gathered by the writer, compressed and framed by the thread.
  struct Job {
    GatheredBlocks blocks;
    /// The framed messages of blocks [0, framed), back to back; message i ends at ends[i].
    AlignedBuffer messages;
    std::vector<int64_t> ends;
    size_t framed = 0;
    /// The encoder's error for block `framed` when framed < blocks.size().
    Status status;

    std::span<const uint8_t> message(size_t index) const {
      const int64_t start = index == 0 ? 0 : ends[index - 1];
      return {messages.data() + start, static_cast<size_t>(ends[index] - start)};
    }
  };

  /// Starts the thread; `encoder` (a compressing one) must outlive this object. While a job is
  /// in flight, the encoder's AppendGathered runs on the thread only.
  explicit CompressionWorker(SegmentEncoder* encoder);
  /// Stops the thread (see Stop).
  ~CompressionWorker();
  CompressionWorker(const CompressionWorker&) = delete;
  CompressionWorker& operator=(const CompressionWorker&) = delete;

  /// Returns slot `index` (0 or 1). The caller may touch a slot unless it is in flight.
  Job* job(int index) { return &jobs_[index]; }
  /// Returns whether a submitted job has not been waited for, and which slot it is.
  bool busy() const { return in_flight_ >= 0; }
  int in_flight() const { return in_flight_; }

  /// Hands slot `index` to the thread, which frames all its blocks (stopping at the first
  /// error). Requires !busy().
  void Submit(int index);
  /// Waits until the job in flight is done. Requires busy().
  void Wait();

  /// Waits for the job being compressed, if any, and joins the thread. Idempotent; after it,
  /// only the destructor may be called.
  void Stop();

  /// Returns the time the caller spent in Wait().
  int64_t wait_nanos() const { return wait_nanos_; }

  /// Returns the bytes of scratch both slots hold now.
  int64_t scratch_bytes() const;

 private:
  void Run();
  void Frame(Job* job);

  SegmentEncoder* const encoder_;
  Job jobs_[2];
  int in_flight_ = -1;  // the caller's view
  int64_t wait_nanos_ = 0;

  // job_ and stop_ change under mutex_ (so a sleeper cannot miss a change) and are read without
  // it while spinning.
  std::mutex mutex_;
  std::condition_variable submitted_;  // a job or stop_, for the thread
  std::condition_variable finished_;   // the job is done, for the caller
  std::atomic<int> job_{-1};           // slot submitted and not yet finished
  std::atomic<bool> stop_{false};
  // The pace of the last job the thread finished (set before job_ is cleared), and when the
  // caller submitted the job in flight: Wait sleeps through most of a wait they predict long.
  std::atomic<int64_t> last_frame_nanos_{0};
  std::atomic<int64_t> last_frame_bytes_{0};
  SteadyClock::time_point submitted_at_;

  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace sluice::internal
