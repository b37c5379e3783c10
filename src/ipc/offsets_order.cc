#include <algorithm>

#include "offsets_order_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/simd_dispatch_internal.h"

namespace sluice::ipc {

namespace {

// Where each kernel takes a column's count from: the column itself, or one count for all
// (loop-invariant, so the compiler sets the loops up once).
template <typename Offset>
struct CountOfEachColumn {
  int64_t operator()(const PendingOffsets<Offset>& column) const { return column.count; }
};
template <typename Offset>
struct OneCount {
  int64_t count;
  int64_t operator()(const PendingOffsets<Offset>&) const { return count; }
};

template <typename Offset, typename CountOf>
bool OffsetsIncreaseScalar(const PendingOffsets<Offset>* columns, size_t size, CountOf count_of) {
  uint32_t decreasing = 0;
  for (size_t c = 0; c < size; ++c) {
    const Offset* __restrict offsets = columns[c].offsets;
    const int64_t count = count_of(columns[c]);
    for (int64_t i = 0; i < count; ++i) {
      decreasing |= static_cast<uint32_t>(offsets[i + 1] < offsets[i]);
    }
  }
  return decreasing == 0;
}

#if SLUICE_HAVE_AVX2_DISPATCH
// Lanes where offsets[i] > offsets[i + 1], for the eight (32-bit) or four (64-bit) neighbours
// from `offsets`.
template <typename Offset>
SLUICE_TARGET_AVX2 inline __m256i DecreasingLanes(const Offset* offsets) {
  const __m256i current = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(offsets));
  const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(offsets + 1));
  if constexpr (sizeof(Offset) == 4) {
    return _mm256_cmpgt_epi32(current, next);
  } else {
    return _mm256_cmpgt_epi64(current, next);
  }
}

// Two comparisons a step (a 64-row column of 32-bit offsets is four steps), one accumulator for
// all columns, and the neighbours left over one at a time.
template <typename Offset, typename CountOf>
[[gnu::noinline]] SLUICE_TARGET_AVX2 bool OffsetsIncreaseAvx2(const PendingOffsets<Offset>* columns,
                                                              size_t size, CountOf count_of) {
  constexpr int64_t kLanes = 32 / sizeof(Offset);
  __m256i decreasing = _mm256_setzero_si256();
  uint32_t tail_decreasing = 0;
  for (size_t c = 0; c < size; ++c) {
    const Offset* offsets = columns[c].offsets;
    const int64_t count = count_of(columns[c]);
    int64_t i = 0;
    for (; i + 2 * kLanes <= count; i += 2 * kLanes) {
      decreasing = _mm256_or_si256(
          decreasing,
          _mm256_or_si256(DecreasingLanes(offsets + i), DecreasingLanes(offsets + i + kLanes)));
    }
    if (i + kLanes <= count) {
      decreasing = _mm256_or_si256(decreasing, DecreasingLanes(offsets + i));
      i += kLanes;
    }
    for (; i < count; ++i) tail_decreasing |= static_cast<uint32_t>(offsets[i + 1] < offsets[i]);
  }
  return _mm256_testz_si256(decreasing, decreasing) && tail_decreasing == 0;
}

// The lanes (of the first `lanes`, a mask) where offsets[i] > offsets[i + 1], for sixteen
// (32-bit) or eight (64-bit) neighbours from `offsets`; lanes outside the mask load nothing.
template <typename Offset>
SLUICE_TARGET_AVX512 inline __mmask16 DecreasingMask(const Offset* offsets, __mmask16 lanes) {
  if constexpr (sizeof(Offset) == 4) {
    return _mm512_cmpgt_epi32_mask(_mm512_maskz_loadu_epi32(lanes, offsets),
                                   _mm512_maskz_loadu_epi32(lanes, offsets + 1));
  } else {
    const auto mask = static_cast<__mmask8>(lanes);
    return _mm512_cmpgt_epi64_mask(_mm512_maskz_loadu_epi64(mask, offsets),
                                   _mm512_maskz_loadu_epi64(mask, offsets + 1));
  }
}

// Two comparisons a step, then the column's last lanes under a mask: no scalar tail. The
// decreasing lanes are OR-ed up in a mask register.
template <typename Offset, typename CountOf>
[[gnu::noinline]] SLUICE_TARGET_AVX512 bool OffsetsIncreaseAvx512(
    const PendingOffsets<Offset>* columns, size_t size, CountOf count_of) {
  constexpr int64_t kLanes = 64 / sizeof(Offset);
  constexpr auto kAllLanes = static_cast<__mmask16>((uint32_t{1} << kLanes) - 1);
  __mmask16 decreasing = 0;
  for (size_t c = 0; c < size; ++c) {
    const Offset* offsets = columns[c].offsets;
    const int64_t count = count_of(columns[c]);
    int64_t i = 0;
    for (; i + 2 * kLanes <= count; i += 2 * kLanes) {
      decreasing =
          _kor_mask16(decreasing, _kor_mask16(DecreasingMask(offsets + i, kAllLanes),
                                              DecreasingMask(offsets + i + kLanes, kAllLanes)));
    }
    for (; i < count; i += kLanes) {
      const int64_t left = std::min(count - i, kLanes);
      decreasing = _kor_mask16(
          decreasing,
          DecreasingMask(offsets + i, static_cast<__mmask16>((uint32_t{1} << left) - 1)));
    }
  }
  return _kortestz_mask16_u8(decreasing, decreasing) != 0;
}
#endif

template <typename Offset, typename CountOf>
bool Dispatch(const PendingOffsets<Offset>* columns, size_t size, CountOf count_of) {
#if SLUICE_HAVE_AVX2_DISPATCH
  if (internal::CpuHasAvx512()) return OffsetsIncreaseAvx512(columns, size, count_of);
  if (internal::CpuHasAvx2()) return OffsetsIncreaseAvx2(columns, size, count_of);
#endif
  return OffsetsIncreaseScalar(columns, size, count_of);
}

}  // namespace

template <typename Offset>
bool OffsetsIncrease(const PendingOffsets<Offset>* columns, size_t size) {
  return Dispatch(columns, size, CountOfEachColumn<Offset>{});
}

template <typename Offset>
bool OffsetsIncrease(const PendingOffsets<Offset>* columns, size_t size, int64_t count) {
  return Dispatch(columns, size, OneCount<Offset>{count});
}

template bool OffsetsIncrease(const PendingOffsets<int32_t>*, size_t);
template bool OffsetsIncrease(const PendingOffsets<int64_t>*, size_t);
template bool OffsetsIncrease(const PendingOffsets<int32_t>*, size_t, int64_t);
template bool OffsetsIncrease(const PendingOffsets<int64_t>*, size_t, int64_t);

}  // namespace sluice::ipc
