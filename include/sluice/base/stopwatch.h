// Monotonic time for metrics.
#pragma once

#include <chrono>
#include <cstdint>

namespace sluice {

using SteadyClock = std::chrono::steady_clock;

/// Returns the nanoseconds since `start`.
inline int64_t NanosSince(SteadyClock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - start).count();
}

}  // namespace sluice
