#include <algorithm>
#include <chrono>

#include "read_ahead_thread_internal.h"

namespace sluice::internal {

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
    {
      std::unique_lock<std::mutex> lock(mutex_);
      consumed_.wait(lock, [this] { return stop_ || batches_.size() < depth_; });
      if (stop_) return;
    }
    RecordBatch batch;
    Result<BatchProducer::Outcome> outcome = producer_->Next(/*wait=*/true, &batch);
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
    }
    produced_.notify_one();
    if (!outcome.ok() || *outcome == BatchProducer::Outcome::kEnd) return;
  }
}

Result<BatchProducer::Outcome> ReadAheadThread::Next(bool wait, RecordBatch* out,
                                                     int64_t* wait_nanos) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wait && batches_.empty() && !done_) {
    const auto start = std::chrono::steady_clock::now();
    produced_.wait(lock, [this] { return !batches_.empty() || done_; });
    *wait_nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  }
  if (!batches_.empty()) {
    *out = std::move(batches_.front());
    batches_.pop_front();
    lock.unlock();
    consumed_.notify_one();
    return BatchProducer::Outcome::kBatch;
  }
  if (done_) {
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
