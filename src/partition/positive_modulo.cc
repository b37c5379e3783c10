#include "sluice/partition/positive_modulo.h"

#include "base/simd_dispatch_internal.h"

#if SLUICE_HAVE_AVX2_DISPATCH
#include <immintrin.h>
#endif

namespace sluice {

namespace {

#if SLUICE_HAVE_AVX2_DISPATCH
// Lemire's remainder for the 32-bit values in the low halves of four 64-bit lanes, with the same
// M and d as PositiveModulo::Mod and 32 x 32 -> 64-bit multiplies only:
//   M * a mod 2^64     = M_low * a + (M_high * a << 32)              (mod 2^64)
//   (L * d) >> 64      = (L_high * d + (L_low * d >> 32)) >> 32        for L = M * a mod 2^64
// The second line is exact: L_low * d >> 32 drops bits below 2^32 only, which cannot carry into
// bit 64 of the full product, and L_high * d + (L_low * d >> 32) < 2^64. So every lane equals the
// scalar Mod, and the scalar proof of exactness covers it.
SLUICE_TARGET_AVX2 inline __m256i ModFourLanes(__m256i values, __m256i multiplier_low,
                                               __m256i multiplier_high, __m256i divisor) {
  const __m256i low_product = _mm256_mul_epu32(values, multiplier_low);
  const __m256i high_product = _mm256_mul_epu32(values, multiplier_high);
  const __m256i fraction = _mm256_add_epi64(low_product, _mm256_slli_epi64(high_product, 32));
  const __m256i fraction_low_times_d = _mm256_mul_epu32(fraction, divisor);
  const __m256i fraction_high_times_d = _mm256_mul_epu32(_mm256_srli_epi64(fraction, 32), divisor);
  const __m256i sum =
      _mm256_add_epi64(fraction_high_times_d, _mm256_srli_epi64(fraction_low_times_d, 32));
  return _mm256_srli_epi64(sum, 32);
}

// Pmod of eight values at a time; returns how many values it handled (a multiple of 8).
SLUICE_TARGET_AVX2 int64_t PmodAvx2(uint32_t* values, int64_t count, uint64_t multiplier,
                                    uint32_t divisor, uint32_t bias) {
  const __m256i multiplier_low = _mm256_set1_epi64x(static_cast<int64_t>(multiplier & 0xffffffffu));
  const __m256i multiplier_high = _mm256_set1_epi64x(static_cast<int64_t>(multiplier >> 32));
  const __m256i divisor_lanes = _mm256_set1_epi64x(divisor);
  const __m256i divisor32 = _mm256_set1_epi32(static_cast<int32_t>(divisor));
  const __m256i bias32 = _mm256_set1_epi32(static_cast<int32_t>(bias));
  const __m256i sign_bit = _mm256_set1_epi32(static_cast<int32_t>(0x80000000u));
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    auto* slot = reinterpret_cast<__m256i*>(values + i);
    // value + 2^31 makes the signed value unsigned.
    const __m256i shifted = _mm256_xor_si256(_mm256_loadu_si256(slot), sign_bit);
    // Even elements sit in the low halves of the 64-bit lanes, odd ones are shifted down there.
    const __m256i even = ModFourLanes(shifted, multiplier_low, multiplier_high, divisor_lanes);
    const __m256i odd = ModFourLanes(_mm256_srli_epi64(shifted, 32), multiplier_low,
                                     multiplier_high, divisor_lanes);
    const __m256i remainder = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0b10101010);
    // remainder - bias, plus divisor where that went below zero (an unsigned compare:
    // remainder >= bias exactly when max(remainder, bias) == remainder).
    const __m256i not_below = _mm256_cmpeq_epi32(_mm256_max_epu32(remainder, bias32), remainder);
    const __m256i result = _mm256_add_epi32(_mm256_sub_epi32(remainder, bias32),
                                            _mm256_andnot_si256(not_below, divisor32));
    _mm256_storeu_si256(slot, result);
  }
  return i;
}
#endif

}  // namespace

void PositiveModulo::PmodInPlace(uint32_t* values, int64_t count) const {
  int64_t done = 0;
#if SLUICE_HAVE_AVX2_DISPATCH
  if (internal::CpuHasAvx2()) done = PmodAvx2(values, count, multiplier_, divisor_, bias_);
#endif
  for (int64_t i = done; i < count; ++i) values[i] = Pmod(static_cast<int32_t>(values[i]));
}

}  // namespace sluice
