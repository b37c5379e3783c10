#include "sluice/io/io_fault_injection.h"

#include <atomic>

namespace sluice::io_faults {

namespace {
std::atomic<int64_t> remaining{-1};
std::atomic<int> injected_error{0};
}  // namespace

void FailWritesAfter(int64_t bytes_allowed, int error_number) {
  injected_error.store(error_number);
  remaining.store(bytes_allowed);
}

int CheckWrite(int64_t size) {
  int64_t left = remaining.load(std::memory_order_relaxed);
  if (left < 0) return 0;
  if (size > left) {
    remaining.store(0);
    return injected_error.load();
  }
  remaining.fetch_sub(size);
  return 0;
}

}  // namespace sluice::io_faults
