// Bit and byte helpers for Arrow's LSB-first validity bitmaps and little-endian integers.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace sluice::bits {

/// Returns the number of bytes that hold `bit_count` bits.
constexpr int64_t BytesForBits(int64_t bit_count) {
  return (bit_count + 7) >> 3;
}

/// Rounds `size` up to a multiple of `alignment` (a power of two).
constexpr int64_t RoundUp(int64_t size, int64_t alignment) {
  return (size + alignment - 1) & ~(alignment - 1);
}

/// Returns bit `index` of an LSB-first bitmap.
inline bool GetBit(const uint8_t* bitmap, int64_t index) {
  return (bitmap[index >> 3] >> (index & 7)) & 1;
}

inline void SetBit(uint8_t* bitmap, int64_t index) {
  bitmap[index >> 3] |= static_cast<uint8_t>(1u << (index & 7));
}

inline void ClearBit(uint8_t* bitmap, int64_t index) {
  bitmap[index >> 3] &= static_cast<uint8_t>(~(1u << (index & 7)));
}

inline void SetBitTo(uint8_t* bitmap, int64_t index, bool value) {
  // Branch-free: clear, then or in the value.
  const uint8_t mask = static_cast<uint8_t>(1u << (index & 7));
  bitmap[index >> 3] = static_cast<uint8_t>((bitmap[index >> 3] & ~mask) | (value ? mask : 0));
}

/// Counts the set bits in [offset, offset + length) of a bitmap.
int64_t CountSetBits(const uint8_t* bitmap, int64_t offset, int64_t length);

/// Copies `length` bits from `source` at `source_offset` to `dest` at `dest_offset`.
/// Bits of `dest` outside the destination range are preserved.
void CopyBits(const uint8_t* source, int64_t source_offset, int64_t length, uint8_t* dest,
              int64_t dest_offset);

/// Sets `length` bits of `dest` starting at `dest_offset` to `value`.
void FillBits(uint8_t* dest, int64_t dest_offset, int64_t length, bool value);

/// Reads a little-endian or native value from possibly unaligned memory.
template <typename T>
inline T LoadUnaligned(const void* source) {
  T value;
  std::memcpy(&value, source, sizeof(T));
  return value;
}

template <typename T>
inline void StoreUnaligned(void* dest, T value) {
  std::memcpy(dest, &value, sizeof(T));
}

/// Converts between host order and big-endian (Spark's index and checksum files, UnsafeRow
/// framing). The host is little-endian; static_assert below keeps that true.
static_assert(std::endian::native == std::endian::little, "Sluice supports little-endian hosts");
inline uint32_t ToBigEndian32(uint32_t value) {
  return __builtin_bswap32(value);
}
inline uint64_t ToBigEndian64(uint64_t value) {
  return __builtin_bswap64(value);
}
inline uint32_t FromBigEndian32(uint32_t value) {
  return __builtin_bswap32(value);
}
inline uint64_t FromBigEndian64(uint64_t value) {
  return __builtin_bswap64(value);
}

}  // namespace sluice::bits
