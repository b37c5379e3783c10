#include "sluice/base/allocation_faults.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace sluice::allocation_faults {

namespace {

std::atomic<int64_t> remaining{-1};
std::atomic<bool (*)()> hook{nullptr};
std::once_flag environment_read;

void ReadEnvironment() {
  if (const char* text = std::getenv("SLUICE_FAIL_ALLOCATIONS_AFTER")) {
    char* end = nullptr;
    const long long allowed = std::strtoll(text, &end, 10);
    if (end != text && *end == '\0') remaining.store(allowed);
  }
}

}  // namespace

void FailAllocationsAfter(int64_t allowed) {
  std::call_once(environment_read, [] {});
  remaining.store(allowed);
}

void SetHook(bool (*new_hook)()) {
  hook.store(new_hook);
}

bool ShouldFail() {
  if (bool (*decide)() = hook.load(std::memory_order_relaxed)) return decide();
  std::call_once(environment_read, ReadEnvironment);
  if (remaining.load(std::memory_order_relaxed) < 0) return false;
  return remaining.fetch_sub(1) <= 0;
}

}  // namespace sluice::allocation_faults
