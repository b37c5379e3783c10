// CompressionWorker: one background thread that encodes (gathers and compresses) a writer's
// blocks beside the writer's own thread.
//
// Work moves in jobs: a run of consecutive blocks, each named by its rows in the held batches.
// Both threads claim a job's blocks in order from one counter and encode each block whole,
// gathering its rows and compressing them with an encoder of their own, into their own buffer
// of messages. A block is gathered and compressed on one core, so its gathered bytes are still
// in that core's cache when the codec reads them. (Gathering on one thread and compressing on
// the other moved every gathered byte between the cores, and left whichever step was faster
// waiting for the other.) Blocks are handed over by the job, not one by one, because waking a
// sleeping thread costs about as much as encoding a small block; and a thread that waits for
// the other polls for a while before it sleeps, so that during a flush neither has to be woken.
//
// There are two job slots, and both may be in flight: the writer plans a job (its blocks'
// rows; no data is touched) and submits it while the other is still being encoded. Waiting for
// the older job, the writer's thread encodes blocks of it, and once none is left to claim,
// blocks of the newer one, rather than wait for the thread's last block of the older: so
// neither thread idles at the end of a job. The writer then appends the older job's messages
// to its file while the thread goes on with the newer job. The file is touched only by the
// writer's thread, in the same order as without the worker: the bytes are the same.
//
// Memory: two slots, each one job's framed messages, fixed once warm (the writer bounds a job's
// bytes), and a second encoder with its codec context and the gather scratch of one block; a
// warm job allocates nothing. Stopping (Stop() or destruction) drops the blocks no thread has
// started, waits for those being encoded, and joins the thread.
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
  /// The rows of one block: rows[i] of held batch sources[i], for i < count, with the
  /// readable_ahead entries after them (see SegmentEncoder::AppendRows).
  struct BlockRows {
    const uint32_t* sources = nullptr;
    const uint32_t* rows = nullptr;
    int64_t count = 0;
    int64_t readable_ahead = 0;
  };

  /// A run of blocks: planned by the writer, encoded by the two threads.
  class Job {
   public:
    std::vector<BlockRows> blocks;

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

    // Prepares the job for encoding its blocks.
    void Reset();
    // Returns whether a block is left to claim. (The thread asks this of slots it may be
    // about to lose while it polls, so it reads atomics only.)
    bool claimable() const { return next_.load() < count_.load(); }
    // Returns whether every block was encoded or dropped.
    bool done() const { return settled_.load() == count_.load(); }
    // Claims the next block and encodes it with `encoder` into messages_[framer]; returns
    // false if none was left. A block after a failed one is dropped, not encoded.
    bool EncodeOne(SegmentEncoder* encoder, int framer);
    // Claims every block no thread has started, dropping them.
    void DropUnclaimed();

    AlignedBuffer messages_[2];
    std::vector<Place> places_;
    std::atomic<size_t> count_{0};    // blocks.size() as of Reset()
    std::atomic<size_t> next_{0};     // the next block to claim
    std::atomic<size_t> settled_{0};  // blocks encoded or dropped
    // The first block that failed (blocks.size() if none) and its error (OK if none).
    std::mutex failure_mutex_;
    std::atomic<size_t> first_failed_{0};
    Status failure_;
  };

  /// Starts the thread; `encoder` (a compressing one) must outlive this object. While a job is
  /// in flight, the encoder is used by the thread only. Makes a second encoder like it for the
  /// caller's share.
  static Result<std::unique_ptr<CompressionWorker>> Make(SegmentEncoder* encoder);
  /// Stops the thread (see Stop).
  ~CompressionWorker();
  CompressionWorker(const CompressionWorker&) = delete;
  CompressionWorker& operator=(const CompressionWorker&) = delete;

  /// Binds the caller's encoder to the batches the jobs' rows name (the writer binds its own
  /// encoder, the thread's). Requires !busy().
  void BindBatches(std::span<const RecordBatch* const> batches);

  /// Returns slot `index` (0 or 1). The caller may touch a slot unless it is in flight.
  Job* job(int index) { return &jobs_[index]; }
  /// Returns how many jobs are in flight (submitted and not yet waited for): 0, 1 or 2.
  int in_flight() const { return in_flight_count_; }
  bool busy() const { return in_flight_count_ > 0; }
  /// Returns the slot of the oldest job in flight. Requires busy().
  int oldest() const { return oldest_; }

  /// Puts slot `index` in flight: the thread encodes its blocks (stopping at the first error)
  /// after those of the job in flight before it, if any. Requires in_flight() < 2 and `index`
  /// not in flight.
  void Submit(int index);
  /// Waits until the oldest job in flight is done, encoding blocks of the jobs in flight on the
  /// caller's thread while any are left to claim, and takes it out of flight; returns its slot.
  /// Requires busy().
  int Wait();
  /// Drops every block of the jobs in flight that no thread has started and waits for the
  /// rest: afterwards nothing is in flight.
  void Cancel();

  /// Lets the thread end as soon as no block is left for it to claim, so that it ends while the
  /// caller goes on (a writer that has submitted its last job writes its file meanwhile). Jobs
  /// may still be submitted and waited for: the caller's thread then encodes them alone.
  void StopWhenIdle();
  /// Cancels what is in flight and joins the thread. Idempotent; after it, only the destructor
  /// may be called.
  void Stop();

  /// Returns the time both threads spent encoding blocks (gathering and compressing), summed.
  /// Read it while !busy().
  int64_t encode_nanos() const { return encode_nanos_[0] + encode_nanos_[1]; }
  /// Returns the metrics of the caller's encoder (the blocks it encoded).
  const SegmentEncoderMetrics& caller_encoder_metrics() const { return caller_encoder_->metrics(); }

 private:
  CompressionWorker(SegmentEncoder* encoder, std::unique_ptr<SegmentEncoder> caller_encoder);
  void Run();
  // The slot of the oldest job in flight with a block left to claim, or -1.
  int ClaimableJob() const;
  // Waits until `ready()`, polling first; the thread notifies finished_ after each job it
  // leaves.
  template <typename Ready>
  void WaitForThread(Ready ready);

  SegmentEncoder* const encoder_;
  const std::unique_ptr<SegmentEncoder> caller_encoder_;
  Job jobs_[2];
  int oldest_ = 0;                    // the caller's view
  int in_flight_count_ = 0;           // the caller's view
  int64_t encode_nanos_[2] = {0, 0};  // the thread's, the caller's

  // The jobs in flight as the thread sees them: queue_[0] the older, then queue_[1]; -1 when
  // empty. Changed under mutex_ (so a sleeper cannot miss a change), read without it while
  // polling.
  std::mutex mutex_;
  std::condition_variable submitted_;  // a job or stop_, for the thread
  std::condition_variable finished_;   // the thread left a job, for the caller
  std::atomic<int> queue_[2] = {-1, -1};
  std::atomic<int> pinned_{-1};  // the slot the thread is encoding blocks of, or -1
  std::atomic<bool> stop_{false};

  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace sluice::internal
