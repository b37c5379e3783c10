#include <algorithm>

#include "base/poll_until_internal.h"
#include "read_ahead_thread_internal.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/stopwatch.h"

namespace sluice::internal {

namespace {

// How long either thread polls before it sleeps (see PollUntil): a small block decodes in a few
// microseconds, and waking a sleeping consumer costs about as much again per batch, which made
// read-ahead slower than none on many tiny blocks until the threads polled briefly first
// (DEVELOPING.md, "Figures behind the constants").
constexpr int64_t kPollNanos = 50'000;

}  // namespace

ReadAheadThread::ReadAheadThread(std::unique_ptr<BatchProducer> producer, int32_t depth)
    : producer_(std::move(producer)),
      depth_(static_cast<size_t>(std::max(depth, 1))),
      thread_([this] { Run(); }) {}

ReadAheadThread::~ReadAheadThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  consumed_.notify_all();
  producer_->Interrupt();
  thread_.join();
}

void ReadAheadThread::Run() {
  while (true) {
    if (!PollUntil(kPollNanos, [this] { return stop_.load() || queued_.load() < depth_; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      consumed_.wait(lock, [this] { return stop_.load() || batches_.size() < depth_; });
    }
    if (stop_.load()) return;
    RecordBatch batch;
    Result<BatchProducer::Outcome> outcome =
        GuardFailures("reading ahead", [&] { return producer_->Next(/*wait=*/true, &batch); });
    const PartitionReaderMetrics metrics = producer_->metrics();
    const auto& failures = producer_->failures();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      published_metrics_ = metrics;
      if (published_failures_.size() != failures.size()) published_failures_ = failures;
      if (!outcome.ok()) {
        final_status_ = outcome.status();
        done_ = true;
      } else if (*outcome == BatchProducer::Outcome::kEnd) {
        done_ = true;
      } else {
        batches_.push_back(std::move(batch));
      }
      queued_.store(batches_.size());
    }
    produced_.notify_one();
    if (!outcome.ok() || *outcome == BatchProducer::Outcome::kEnd) return;
  }
}

Result<BatchProducer::Outcome> ReadAheadThread::Next(bool wait, RecordBatch* out,
                                                     int64_t* wait_nanos) {
  if (wait && queued_.load() == 0 && !done_.load()) {
    const auto start = SteadyClock::now();
    if (!consumer_polls_ ||
        !PollUntil(kPollNanos, [this] { return queued_.load() > 0 || done_.load(); })) {
      std::unique_lock<std::mutex> lock(mutex_);
      produced_.wait(lock, [this] { return !batches_.empty() || done_.load(); });
    }
    const int64_t waited = NanosSince(start);
    *wait_nanos += waited;
    // Poll next time only if a poll would have caught this batch: when batches take longer to
    // make (large coalesced ones), polling first only burns the core the producer may need.
    consumer_polls_ = waited <= kPollNanos;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (!batches_.empty()) {
    *out = std::move(batches_.front());
    batches_.pop_front();
    queued_.store(batches_.size());
    lock.unlock();
    consumed_.notify_one();
    return BatchProducer::Outcome::kBatch;
  }
  if (done_.load()) {
    if (!final_status_.ok()) return final_status_;
    return BatchProducer::Outcome::kEnd;
  }
  return BatchProducer::Outcome::kNotReady;
}

PartitionReaderMetrics ReadAheadThread::metrics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return published_metrics_;
}

std::vector<SourceFailure> ReadAheadThread::failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return published_failures_;
}

}  // namespace sluice::internal
