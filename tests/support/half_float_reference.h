// A reference decoding of IEEE 754 half precision for the tests, written from the format's
// definition (value = (-1)^sign x 2^(exponent - 15) x 1.fraction, subnormals 2^-14 x
// 0.fraction) with std::ldexp, independent of the bit manipulation in sluice/base/half_float.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace sluice::testing {

inline double ReferenceHalfToDouble(uint16_t half) {
  const double sign = (half & 0x8000) != 0 ? -1.0 : 1.0;
  const int exponent = (half >> 10) & 0x1f;
  const int fraction = half & 0x3ff;
  if (exponent == 0x1f) {
    return fraction == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (exponent == 0) return sign * std::ldexp(fraction, -24);
  return sign * std::ldexp(1024 + fraction, exponent - 25);
}

}  // namespace sluice::testing
