#include "compression_worker_internal.h"
#include "sluice/base/check.h"
#include "sluice/base/stopwatch.h"

namespace sluice::internal {

CompressionWorker::CompressionWorker(SegmentEncoder* encoder)
    : encoder_(encoder), thread_([this] { Run(); }) {}

CompressionWorker::~CompressionWorker() {
  Stop();
}

void CompressionWorker::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  submitted_.notify_one();
  thread_.join();
  in_flight_ = -1;
}

void CompressionWorker::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    submitted_.wait(lock, [this] { return stop_ || job_ >= 0; });
    if (stop_) return;
    Job* job = &jobs_[job_];
    lock.unlock();
    Frame(job);
    lock.lock();
    job_ = -1;
    finished_.notify_one();
  }
}

void CompressionWorker::Frame(Job* job) {
  job->messages.Clear();
  job->ends.clear();
  job->framed = 0;
  job->status = Status::OK();
  for (size_t i = 0; i < job->blocks.size(); ++i) {
    job->status = encoder_->AppendGathered(&job->blocks, i, &job->messages);
    if (!job->status.ok()) return;
    job->ends.push_back(job->messages.size());
    job->framed = i + 1;
  }
}

void CompressionWorker::Submit(int index) {
  SLUICE_DCHECK(in_flight_ < 0);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = index;
  }
  submitted_.notify_one();
  in_flight_ = index;
}

void CompressionWorker::Wait() {
  SLUICE_DCHECK(in_flight_ >= 0);
  const auto start = SteadyClock::now();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return job_ < 0; });
  }
  wait_nanos_ += NanosSince(start);
  in_flight_ = -1;
}

int64_t CompressionWorker::scratch_bytes() const {
  int64_t bytes = 0;
  for (const Job& job : jobs_) bytes += job.blocks.scratch_capacity() + job.messages.capacity();
  return bytes;
}

}  // namespace sluice::internal
