// PositiveModulo: Spark's pmod(value, n) for a 32-bit value and a divisor fixed for the task,
// without a hardware division per row.
//
// A partitioner divides every row's hash by the same partition count, so the division is
// replaced by Lemire's "fastmod" (Lemire, Kaser, Kurz, "Faster Remainder by Direct Computation",
// 2019): with M = ceil(2^64 / d), the remainder of any 32-bit a is
//     a mod d = ((M * a mod 2^64) * d) >> 64,
// exact for every a < 2^32 and every 1 <= d < 2^32: their Theorem 1 holds whenever
// F >= N + log2(d), here F = 64 bits of fraction, N = 32 bits of input and log2(d) < 32. For
// d = 1, M wraps to 0 and the formula gives 0, which is also exact. positive_modulo_test checks a
// dense sample of inputs and every edge against `%`.
//
// Spark's pmod of a signed hash h is ((h % n) + n) % n. Adding 2^31 makes h unsigned (flipping
// its top bit), so pmod(h, n) = ((h + 2^31) mod n - 2^31 mod n) mod n, and the last step is a
// single compare-and-add: one multiply-shift and no branch per row.
#pragma once

#include <cstdint>

namespace sluice {

class PositiveModulo {
 public:
  /// Prepares the reciprocal of `divisor`, which must be at least 1.
  explicit PositiveModulo(uint32_t divisor)
      : divisor_(divisor),
        multiplier_(UINT64_MAX / divisor + 1),
        bias_(static_cast<uint32_t>((uint64_t{1} << 31) % divisor)) {}

  uint32_t divisor() const { return divisor_; }

  /// Returns value mod divisor for an unsigned value.
  uint32_t Mod(uint32_t value) const {
    const uint64_t low_bits = multiplier_ * value;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(low_bits) * divisor_) >> 64);
  }

  /// Returns Spark's pmod(value, divisor): the remainder in [0, divisor) of a signed value.
  uint32_t Pmod(int32_t value) const {
    const uint32_t shifted = Mod(static_cast<uint32_t>(value) ^ 0x80000000u);
    // shifted - bias_ is in (-divisor, divisor): add divisor back when it went below zero.
    const uint32_t difference = shifted - bias_;
    return shifted >= bias_ ? difference : difference + divisor_;
  }

  /// Replaces each of `count` values, read as the bits of a signed int32, by its pmod.
  void PmodInPlace(uint32_t* values, int64_t count) const;

 private:
  uint32_t divisor_;
  uint64_t multiplier_;
  uint32_t bias_;  // 2^31 mod divisor
};

}  // namespace sluice
