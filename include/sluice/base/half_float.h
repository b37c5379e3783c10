// IEEE 754 half precision (Arrow's halffloat, 1 sign, 5 exponent and 10 fraction bits) widened
// to single precision, exactly: every half value is a float value.
#pragma once

#include <bit>
#include <cstdint>

namespace sluice {

constexpr float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t fraction = half & 0x3ffu;
  if (exponent == 0x1f) {  // infinity or NaN; a NaN keeps its payload
    return std::bit_cast<float>(sign | 0x7f800000u | (fraction << 13));
  }
  if (exponent != 0) {  // normal: rebias 15 -> 127
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (fraction << 13));
  }
  if (fraction == 0) return std::bit_cast<float>(sign);  // signed zero
  // Subnormal: fraction * 2^-24, normalised.
  int shift = 0;
  while ((fraction & 0x400u) == 0) {
    fraction <<= 1;
    ++shift;
  }
  const auto float_exponent = static_cast<uint32_t>(113 - shift);
  return std::bit_cast<float>(sign | (float_exponent << 23) | ((fraction & 0x3ffu) << 13));
}

}  // namespace sluice
