#include <cstddef>

#include "body_views_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "arrow_message_generated.h"
#include "base/simd_dispatch_internal.h"

namespace sluice::ipc {

namespace {

// The AVX2 loop reads an entry as {offset, length} and writes a view as {address, size}.
static_assert(sizeof(fb::Buffer) == 16 && sizeof(BufferView) == 16);
static_assert(offsetof(BufferView, data) == 0 && offsetof(BufferView, size) == 8);

// Resolves entries [begin, count) one at a time, OR-ing into the accumulated bits:
// `*high_bits` collects offsets and lengths, `*past_end` the entries that end past the body,
// `*any_address` the addresses viewed and `*any_length` the lengths.
void ViewEntries(const fb::Buffer* entries, uint32_t begin, uint32_t count, uintptr_t body_address,
                 uint64_t body_length, BufferView* __restrict views, uint64_t* high_bits,
                 uint64_t* past_end, uintptr_t* any_address, uint64_t* any_length) {
  for (uint32_t i = begin; i < count; ++i) {
    // Unsigned, so a negative offset or length has its high bits set; both below 2^62, their
    // sum does not wrap.
    const auto offset = static_cast<uint64_t>(entries[i].offset());
    const auto length = static_cast<uint64_t>(entries[i].length());
    *high_bits |= offset | length;
    *past_end |= static_cast<uint64_t>(offset + length > body_length);
    // As an integer: the address is only used once every buffer is found inside the body.
    const uintptr_t address = length == 0 ? 0 : body_address + offset;
    *any_address |= address;
    *any_length |= length;
    views[i] = BufferView{reinterpret_cast<const uint8_t*>(address), static_cast<int64_t>(length)};
  }
}

BodyViewsSummary Summarize(uint64_t high_bits, uint64_t past_end, uintptr_t any_address,
                           uint64_t any_length) {
  return BodyViewsSummary{(high_bits >> 62) == 0 && past_end == 0, any_address, any_length != 0};
}

BodyViewsSummary ViewBuffersScalar(const fb::Buffer* entries, uint32_t count,
                                   uintptr_t body_address, uint64_t body_length,
                                   BufferView* views) {
  uint64_t high_bits = 0, past_end = 0, any_length = 0;
  uintptr_t any_address = 0;
  ViewEntries(entries, 0, count, body_address, body_length, views, &high_bits, &past_end,
              &any_address, &any_length);
  return Summarize(high_bits, past_end, any_address, any_length);
}

#if SLUICE_HAVE_AVX2_DISPATCH
// Resolves the two entries at `entries` into the two views at `views`: lanes {offset0,
// length0, offset1, length1} become {address0, length0, address1, length1}. The lengths are
// swapped onto the offsets' lanes to add and test them; the odd lanes of those results are the
// same sums again and are ignored or harmless (a length's test against zero decides nothing
// there; an offset + length past the end is past the end on either lane). Into `*bad` go the
// entry (negative or huge offsets and lengths set its top bits) and the all-ones lanes of an
// entry that ends past the body; into `*written`, the views.
SLUICE_TARGET_AVX2 inline void ViewTwoEntries(const fb::Buffer* entries, BufferView* views,
                                              __m256i body, __m256i limit, __m256i* bad,
                                              __m256i* written) {
  const __m256i entry = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(entries));
  const __m256i swapped = _mm256_shuffle_epi32(entry, _MM_SHUFFLE(1, 0, 3, 2));
  // Signed comparison: with both terms below 2^62 (else `entry` itself marks `bad`) the sum
  // is positive.
  const __m256i past_end = _mm256_cmpgt_epi64(_mm256_add_epi64(entry, swapped), limit);
  *bad = _mm256_or_si256(*bad, _mm256_or_si256(entry, past_end));
  const __m256i empty = _mm256_cmpeq_epi64(swapped, _mm256_setzero_si256());
  const __m256i address = _mm256_andnot_si256(empty, _mm256_add_epi64(entry, body));
  const __m256i view = _mm256_blend_epi32(address, entry, 0b11001100);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(views), view);
  *written = _mm256_or_si256(*written, view);
}

// Two entries a step, then the last entry alone.
[[gnu::noinline]] SLUICE_TARGET_AVX2 BodyViewsSummary ViewBuffersAvx2(const fb::Buffer* entries,
                                                                      uint32_t count,
                                                                      uintptr_t body_address,
                                                                      uint64_t body_length,
                                                                      BufferView* views) {
  const __m256i body = _mm256_set1_epi64x(static_cast<int64_t>(body_address));
  const __m256i limit = _mm256_set1_epi64x(static_cast<int64_t>(body_length));
  __m256i bad = _mm256_setzero_si256();
  __m256i written = _mm256_setzero_si256();
  uint32_t i = 0;
  for (; i + 2 <= count; i += 2) {
    ViewTwoEntries(entries + i, views + i, body, limit, &bad, &written);
  }
  alignas(32) uint64_t lanes[2][4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), bad);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), written);
  uint64_t high_bits = lanes[0][0] | lanes[0][1] | lanes[0][2] | lanes[0][3];
  uint64_t past_end = 0;
  uintptr_t any_address = lanes[1][0] | lanes[1][2];
  uint64_t any_length = lanes[1][1] | lanes[1][3];
  ViewEntries(entries, i, count, body_address, body_length, views, &high_bits, &past_end,
              &any_address, &any_length);
  return Summarize(high_bits, past_end, any_address, any_length);
}

// The lanes of four views (or entries) that hold addresses (or offsets); the others hold lengths.
constexpr __mmask8 kAddressLanes = 0b01010101;

// Resolves the (up to) four entries at `entries` selected by `lanes` (two mask bits an entry)
// into the views at `views`, as ViewTwoEntries does two: lanes {offset, length, ...} become
// {address, length, ...}; lanes outside the mask are neither read nor written. Into `*bad` go
// the entries' bits, and into `*past_end` the lanes of an entry that ends past the body.
SLUICE_TARGET_AVX512 inline void ViewFourEntries(const fb::Buffer* entries, BufferView* views,
                                                 __mmask8 lanes, __m512i body, __m512i limit,
                                                 __m512i* bad, __mmask8* past_end,
                                                 __m512i* written) {
  const __m512i entry = _mm512_maskz_loadu_epi64(lanes, entries);
  // (The zero-masked forms: GCC 12 warns that the plain ones read an undefined vector.)
  const __m512i swapped = _mm512_maskz_shuffle_epi32(0xffff, entry, _MM_PERM_BADC);
  *past_end |= _mm512_cmpgt_epi64_mask(_mm512_add_epi64(entry, swapped), limit);
  *bad = _mm512_or_si512(*bad, entry);
  // On an address lane, the length: an empty buffer is viewed at no address.
  const __mmask8 viewed = _mm512_mask_test_epi64_mask(kAddressLanes, swapped, swapped);
  const __m512i view = _mm512_mask_add_epi64(
      _mm512_maskz_mov_epi64(static_cast<__mmask8>(~kAddressLanes), entry), viewed, entry, body);
  _mm512_mask_storeu_epi64(views, lanes, view);
  *written = _mm512_or_si512(*written, view);
}

// Four entries a step, then the last ones under a mask.
[[gnu::noinline]] SLUICE_TARGET_AVX512 BodyViewsSummary ViewBuffersAvx512(const fb::Buffer* entries,
                                                                          uint32_t count,
                                                                          uintptr_t body_address,
                                                                          uint64_t body_length,
                                                                          BufferView* views) {
  const __m512i body = _mm512_set1_epi64(static_cast<int64_t>(body_address));
  const __m512i limit = _mm512_set1_epi64(static_cast<int64_t>(body_length));
  __m512i bad = _mm512_setzero_si512();
  __m512i written = _mm512_setzero_si512();
  __mmask8 past_end = 0;
  uint32_t i = 0;
  for (; i + 4 <= count; i += 4) {
    ViewFourEntries(entries + i, views + i, 0xff, body, limit, &bad, &past_end, &written);
  }
  if (i < count) {
    const auto lanes = static_cast<__mmask8>((1u << (2 * (count - i))) - 1);
    ViewFourEntries(entries + i, views + i, lanes, body, limit, &bad, &past_end, &written);
  }
  alignas(64) uint64_t lanes[2][8];
  _mm512_store_si512(lanes[0], bad);
  _mm512_store_si512(lanes[1], written);
  uint64_t high_bits = 0, any_length = 0;
  uintptr_t any_address = 0;
  for (int lane = 0; lane < 8; lane += 2) {
    high_bits |= lanes[0][lane] | lanes[0][lane + 1];
    any_address |= lanes[1][lane];
    any_length |= lanes[1][lane + 1];
  }
  return Summarize(high_bits, past_end, any_address, any_length);
}
#endif

}  // namespace

BodyViewsSummary ViewBuffersInBody(const fb::Buffer* entries, uint32_t count, const uint8_t* body,
                                   int64_t body_length, BufferView* views) {
  const auto body_address = reinterpret_cast<uintptr_t>(body);
  const auto limit = static_cast<uint64_t>(body_length);
#if SLUICE_HAVE_AVX2_DISPATCH
  if (internal::CpuHasAvx512()) {
    return ViewBuffersAvx512(entries, count, body_address, limit, views);
  }
  if (internal::CpuHasAvx2()) return ViewBuffersAvx2(entries, count, body_address, limit, views);
#endif
  return ViewBuffersScalar(entries, count, body_address, limit, views);
}

}  // namespace sluice::ipc
