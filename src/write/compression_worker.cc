#include "compression_worker_internal.h"
#include "sluice/base/check.h"
#include "sluice/base/stopwatch.h"

namespace sluice::internal {

namespace {

// How long a thread waiting for the other polls before it sleeps. Waking a sleeping thread
// costs tens of microseconds, more on a VM whose idle virtual CPU halts (measured here: lz4 at
// 200 partitions, 0.49-0.52 of the raw codec's throughput without polling, 0.66-0.72 with
// 300 us to 3 ms of it). The poll yields, so other runnable threads get the core meanwhile.
constexpr int64_t kPollNanos = 500'000;

// How long before a job's predicted end a caller that slept for it wakes to poll: a margin for
// a job slower than the last and for the wake itself.
constexpr int64_t kWakeEarlyNanos = 100'000;

// Returns whether `ready()` holds, polling it for up to kPollNanos.
template <typename Ready>
bool PollUntil(Ready ready) {
  const auto start = SteadyClock::now();
  while (!ready()) {
    if (NanosSince(start) > kPollNanos) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

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
    lock.unlock();
    PollUntil([this] { return stop_.load() || job_.load() >= 0; });
    lock.lock();
    submitted_.wait(lock, [this] { return stop_ || job_ >= 0; });
    if (stop_) return;
    Job* job = &jobs_[job_];
    lock.unlock();
    const auto start = SteadyClock::now();
    Frame(job);
    last_frame_nanos_.store(NanosSince(start), std::memory_order_relaxed);
    last_frame_bytes_.store(job->blocks.gathered_bytes(), std::memory_order_relaxed);
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
  submitted_at_ = SteadyClock::now();
}

void CompressionWorker::Wait() {
  SLUICE_DCHECK(in_flight_ >= 0);
  const auto start = SteadyClock::now();
  // A job framed at the last job's pace that is far from done (the codec is slower than
  // gathering, as zstd is): sleep until shortly before it should be, rather than poll that long.
  const int64_t last_bytes = last_frame_bytes_.load(std::memory_order_relaxed);
  if (last_bytes > 0 && job_.load() >= 0) {
    const double nanos_per_byte =
        static_cast<double>(last_frame_nanos_.load(std::memory_order_relaxed)) /
        static_cast<double>(last_bytes);
    const auto expected_end =
        submitted_at_ +
        std::chrono::nanoseconds(static_cast<int64_t>(
            nanos_per_byte * static_cast<double>(jobs_[in_flight_].blocks.gathered_bytes())));
    const auto wake = expected_end - std::chrono::nanoseconds(kWakeEarlyNanos);
    if (wake > start) {
      std::unique_lock<std::mutex> lock(mutex_);
      finished_.wait_until(lock, wake, [this] { return job_ < 0; });
    }
  }
  if (!PollUntil([this] { return job_.load() < 0; })) {
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
