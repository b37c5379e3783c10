// PollUntil: waiting a short while for another thread without going to sleep.
//
// Waking a sleeping thread costs tens of microseconds, more on a VM whose idle virtual CPU
// halts: more than a writer takes to compress a small job or a reader to decode a small block.
// A thread that expects the other to be done soon therefore polls the condition, yielding the
// core between polls so that other runnable threads get it meanwhile, and sleeps (on a condition
// variable, under the mutex that guards the condition) only if the poll times out.
#pragma once

#include <cstdint>
#include <thread>

#include "sluice/base/stopwatch.h"

namespace sluice::internal {

/// Returns whether `ready()` holds, polling it for up to `max_nanos`.
template <typename Ready>
bool PollUntil(int64_t max_nanos, Ready ready) {
  if (ready()) return true;
  const auto start = SteadyClock::now();
  while (!ready()) {
    if (NanosSince(start) > max_nanos) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace sluice::internal
