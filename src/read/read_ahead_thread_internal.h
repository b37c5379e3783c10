// ReadAheadThread: runs a BatchProducer on a background thread, a bounded number of batches
// ahead of the consumer.
//
// The thread reads, verifies, decodes and coalesces while the consumer works on earlier
// batches, and stops when `depth` batches wait. Outcomes reach the consumer in the order they
// were produced: every batch made before a failure is handed over before the failure. A thread
// that waits for the other polls for a while before it sleeps (see PollUntil), so that a fast
// consumer of small batches does not pay a wake-up per batch. The producer's metrics and
// failures are published with each batch, so the consumer reads them without touching the
// producer. Destroying the object stops the thread wherever it is (a wait
// for a pushed block included) and joins it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "batch_producer_internal.h"
#include "batch_queue_internal.h"

namespace sluice::internal {

class ReadAheadThread {
 public:
  /// Starts the thread over `producer`, keeping up to `depth` (>= 1) batches ready.
  ReadAheadThread(std::unique_ptr<BatchProducer> producer, int32_t depth);
  ~ReadAheadThread();
  ReadAheadThread(const ReadAheadThread&) = delete;
  ReadAheadThread& operator=(const ReadAheadThread&) = delete;

  /// Takes the next outcome; with `wait`, blocks until there is one (adding the time waited
  /// to `*wait_nanos`), without it returns kNotReady when the thread has not made one yet.
  Result<BatchProducer::Outcome> Next(bool wait, RecordBatch* out, int64_t* wait_nanos);

  /// Returns the producer's metrics as of its last batch.
  PartitionReaderMetrics metrics() const;
  std::vector<SourceFailure> failures() const;

 private:
  void Run();

  std::unique_ptr<BatchProducer> producer_;
  const size_t depth_;

  mutable std::mutex mutex_;
  std::condition_variable produced_;  // a batch or the end is there for the consumer
  std::condition_variable consumed_;  // there is room for another batch, or stop_
  BatchQueue batches_;
  Status final_status_;
  // Set under mutex_ (so a sleeper cannot miss a change) and read without it while polling:
  // whether the producer is done (final_status_ is then set), stop_, and batches_.size().
  std::atomic<bool> done_{false};
  std::atomic<bool> stop_{false};
  std::atomic<size_t> queued_{0};
  bool consumer_polls_ = true;  // whether the consumer's next wait polls first (its own)
  PartitionReaderMetrics published_metrics_;
  std::vector<SourceFailure> published_failures_;

  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace sluice::internal
