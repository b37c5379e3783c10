#include "sluice/read/pushed_block_queue.h"

namespace sluice {

std::shared_ptr<PushedBlockQueue> PushedBlockQueue::Make() {
  return std::shared_ptr<PushedBlockQueue>(new PushedBlockQueue());
}

Status PushedBlockQueue::Push(SegmentBlock block) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (detached_) {
      return Status::Cancelled("the reader of this queue is gone; block '", block.name,
                               "' was dropped");
    }
    if (closed_) {
      return Status::Invalid("the queue is closed; block '", block.name, "' was dropped");
    }
    queued_bytes_ += block.size;
    items_.push_back(Item{std::move(block), Status::OK()});
  }
  arrived_.notify_one();
  return Status::OK();
}

Status PushedBlockQueue::PushFailure(std::string name, Status failure) {
  if (failure.ok()) {
    return Status::Invalid("PushFailure of '", name, "' needs a failed status");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (detached_) return Status::Cancelled("the reader of this queue is gone");
    if (closed_) return Status::Invalid("the queue is closed");
    Item item;
    item.block.name = std::move(name);
    item.failure = std::move(failure);
    items_.push_back(std::move(item));
  }
  arrived_.notify_one();
  return Status::OK();
}

void PushedBlockQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  arrived_.notify_all();
}

int64_t PushedBlockQueue::queued_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(items_.size());
}

int64_t PushedBlockQueue::queued_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_bytes_;
}

PushedBlockQueue::PopOutcome PushedBlockQueue::Pop(bool wait, Item* out) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wait) {
    arrived_.wait(lock, [this] { return detached_ || closed_ || !items_.empty(); });
  }
  if (detached_) return PopOutcome::kDetached;
  if (items_.empty()) return closed_ ? PopOutcome::kClosed : PopOutcome::kNotReady;
  Item item = std::move(items_.front());
  items_.pop_front();
  queued_bytes_ -= item.block.size;
  lock.unlock();
  // Assigned outside the lock: whatever `out` held before is released here.
  *out = std::move(item);
  return PopOutcome::kItem;
}

void PushedBlockQueue::Detach() {
  std::deque<Item> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    detached_ = true;
    dropped.swap(items_);
    queued_bytes_ = 0;
  }
  arrived_.notify_all();
  // The dropped blocks' owners are released here, outside the lock: a host's release callback
  // may push or query the queue.
}

}  // namespace sluice
