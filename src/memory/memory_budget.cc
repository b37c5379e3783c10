#include "sluice/memory/memory_budget.h"

#include <algorithm>

namespace sluice {

void FixedMemoryBudget::NotePeak(int64_t now) {
  int64_t previous = peak_.load(std::memory_order_relaxed);
  while (now > previous && !peak_.compare_exchange_weak(previous, now, std::memory_order_relaxed)) {
  }
}

bool FixedMemoryBudget::TryReserve(int64_t bytes) {
  int64_t current = reserved_.load(std::memory_order_relaxed);
  while (true) {
    if (limit_ >= 0 && current + bytes > limit_) return false;
    if (reserved_.compare_exchange_weak(current, current + bytes, std::memory_order_relaxed)) {
      NotePeak(current + bytes);
      return true;
    }
  }
}

void FixedMemoryBudget::ForceReserve(int64_t bytes) {
  NotePeak(reserved_.fetch_add(bytes, std::memory_order_relaxed) + bytes);
}

void FixedMemoryBudget::Release(int64_t bytes) {
  reserved_.fetch_sub(bytes, std::memory_order_relaxed);
}

bool HostMemoryBudget::TryReserve(int64_t bytes) {
  const int64_t granted = acquire_(bytes);
  if (granted < bytes) {
    if (granted > 0) release_(granted);
    return false;
  }
  reserved_ += bytes;
  peak_ = std::max(peak_, reserved_);
  return true;
}

void HostMemoryBudget::ForceReserve(int64_t bytes) {
  // Take what the host grants; the rest is counted here so Release stays balanced.
  const int64_t granted = std::max<int64_t>(0, acquire_(bytes));
  forced_ += bytes - std::min(granted, bytes);
  if (granted > bytes) release_(granted - bytes);
  reserved_ += bytes;
  peak_ = std::max(peak_, reserved_);
}

void HostMemoryBudget::Release(int64_t bytes) {
  // Memory forced beyond the host's grant is given back first, and never to the host.
  const int64_t from_forced = std::min(forced_, bytes);
  forced_ -= from_forced;
  if (bytes > from_forced) release_(bytes - from_forced);
  reserved_ -= bytes;
}

}  // namespace sluice
