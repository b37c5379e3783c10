// Sums that stop at the largest int64 instead of overflowing.
//
// Arrow lengths are 64-bit and a batch without columns (or of nulls only) may declare any of
// them with no bytes behind it, so counters that add up lengths declared by input (rows over the
// blocks of a stream, over the batches of a writer) can be driven past INT64_MAX by legal input;
// they saturate rather than overflow.
#pragma once

#include <cstdint>
#include <limits>

namespace sluice {

/// Returns `total` + `amount` for a non-negative `amount`, or INT64_MAX where that overflows.
constexpr int64_t SaturatingAdd(int64_t total, int64_t amount) {
  int64_t sum = 0;
  return __builtin_add_overflow(total, amount, &sum) ? std::numeric_limits<int64_t>::max() : sum;
}

}  // namespace sluice
