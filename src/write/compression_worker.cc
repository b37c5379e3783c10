#include "base/poll_until_internal.h"
#include "compression_worker_internal.h"
#include "sluice/base/check.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/stopwatch.h"

namespace sluice::internal {

namespace {

// How long a thread waiting for the other polls before it sleeps (see PollUntil): polling for
// a fraction of a millisecond raised lz4's throughput at 200 partitions by about a third
// against sleeping at once (DEVELOPING.md, "Figures behind the constants").
constexpr int64_t kPollNanos = 500'000;

}  // namespace

void CompressionWorker::Job::Reset() {
  for (AlignedBuffer& messages : messages_) messages.Clear();
  places_.resize(blocks.size());
  count_.store(blocks.size());
  next_.store(0);
  settled_.store(0);
  first_failed_.store(blocks.size());
  failure_ = Status::OK();
}

bool CompressionWorker::Job::EncodeOne(SegmentEncoder* encoder, int framer) {
  const size_t index = next_.fetch_add(1);
  if (index >= count_.load()) return false;
  // Nothing after a failed block is delivered, so encoding it is wasted.
  if (index < first_failed_.load()) {
    AlignedBuffer& out = messages_[framer];
    const int64_t start = out.size();
    const BlockRows& block = blocks[index];
    Status status = GuardFailures("encoding a block", [&] {
      return encoder->AppendRows(block.sources, block.rows, block.count, &out,
                                 block.readable_ahead);
    });
    if (status.ok()) {
      places_[index] = Place{framer, start, out.size()};
    } else {
      out.Resize(start);
      std::lock_guard<std::mutex> lock(failure_mutex_);
      if (index < first_failed_.load()) {
        first_failed_.store(index);
        failure_ = std::move(status);
      }
    }
  }
  settled_.fetch_add(1);
  return true;
}

void CompressionWorker::Job::DropUnclaimed() {
  const size_t count = count_.load();
  const size_t first_unclaimed = next_.exchange(count);
  if (first_unclaimed < count) settled_.fetch_add(count - first_unclaimed);
}

Result<std::unique_ptr<CompressionWorker>> CompressionWorker::Make(SegmentEncoder* encoder) {
  SLUICE_ASSIGN_OR_RAISE(auto caller_encoder,
                         SegmentEncoder::Make(encoder->schema(), encoder->options()));
  return std::unique_ptr<CompressionWorker>(
      new CompressionWorker(encoder, std::move(caller_encoder)));
}

CompressionWorker::CompressionWorker(SegmentEncoder* encoder,
                                     std::unique_ptr<SegmentEncoder> caller_encoder)
    : encoder_(encoder), caller_encoder_(std::move(caller_encoder)), thread_([this] { Run(); }) {}

CompressionWorker::~CompressionWorker() {
  Stop();
}

void CompressionWorker::BindBatches(std::span<const RecordBatch* const> batches) {
  SLUICE_DCHECK(!busy());
  caller_encoder_->BindBatches(batches);
}

void CompressionWorker::Stop() {
  if (!thread_.joinable()) return;
  Cancel();
  StopWhenIdle();
  thread_.join();
}

void CompressionWorker::StopWhenIdle() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  submitted_.notify_one();
}

int CompressionWorker::ClaimableJob() const {
  for (const auto& slot : queue_) {
    const int index = slot.load();
    if (index >= 0 && jobs_[index].claimable()) return index;
  }
  return -1;
}

void CompressionWorker::Run() {
  // The first job comes only after the writer has taken all its input (or enough to spill), so
  // the thread sleeps at once rather than poll for it; it polls after each job, as the jobs of
  // a flush follow each other closely.
  bool poll = false;
  while (true) {
    if (poll) PollUntil(kPollNanos, [this] { return stop_.load() || ClaimableJob() >= 0; });
    int index = -1;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      submitted_.wait(lock, [&] {
        index = ClaimableJob();
        return stop_ || index >= 0;
      });
      // Asked to stop: what is left to claim first (nothing, once Stop() has cancelled).
      if (index < 0) return;
      // Chosen under the mutex, with the caller's view of the queue: the slot stays in flight
      // (and its blocks untouched) until the thread leaves it.
      pinned_.store(index);
    }
    Job& job = jobs_[index];
    const auto start = SteadyClock::now();
    while (job.EncodeOne(encoder_, /*framer=*/0)) {
    }
    encode_nanos_[0] += NanosSince(start);
    poll = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pinned_.store(-1);
    }
    finished_.notify_one();
  }
}

template <typename Ready>
void CompressionWorker::WaitForThread(Ready ready) {
  if (PollUntil(kPollNanos, ready)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, ready);
}

void CompressionWorker::Submit(int index) {
  SLUICE_DCHECK(in_flight_count_ < 2);
  jobs_[index].Reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_[in_flight_count_].store(index);
  }
  submitted_.notify_one();
  if (in_flight_count_ == 0) oldest_ = index;
  in_flight_count_ += 1;
}

int CompressionWorker::Wait() {
  SLUICE_DCHECK(busy());
  Job& oldest = jobs_[oldest_];
  const auto start = SteadyClock::now();
  // The older job's blocks first, then, while the thread finishes its last, the newer's.
  while (oldest.EncodeOne(caller_encoder_.get(), /*framer=*/1)) {
  }
  if (in_flight_count_ == 2) {
    Job& newer = jobs_[1 - oldest_];
    while (!oldest.done() && newer.EncodeOne(caller_encoder_.get(), /*framer=*/1)) {
    }
  }
  encode_nanos_[1] += NanosSince(start);
  // Done, and left by the thread (which may still be between its last claim and leaving).
  const int slot = oldest_;
  WaitForThread([&] { return oldest.done() && pinned_.load() != slot; });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_[0].store(queue_[1].load());
    queue_[1].store(-1);
  }
  in_flight_count_ -= 1;
  oldest_ = 1 - slot;
  return slot;
}

void CompressionWorker::Cancel() {
  for (int i = 0; i < in_flight_count_; ++i) jobs_[queue_[i].load()].DropUnclaimed();
  while (busy()) Wait();
}

}  // namespace sluice::internal
