// The byte layout of Spark's UnsafeRow, UnsafeArrayData and UnsafeMapData, shared by both row
// converters.
//
// UnsafeRow of n fields:   null bitset ((n + 63) / 64 words) | n 8-byte slots | variable region
// UnsafeArrayData of n:    n as an 8-byte word | null bitset ((n + 63) / 64 words)
//                          | n elements of their natural width, padded to a word | variable region
// UnsafeMapData:           key array size in bytes (8-byte word) | key array | value array
//
// A fixed-width value sits in its slot or element; a variable-length one (string, binary,
// decimal of precision > 18, calendar interval, struct, array, map) stores (offset << 32 | size),
// the offset counted from the start of the row or array that holds the slot. All words are
// little-endian, null bits are LSB first in each word, every variable-length part starts on a word
// boundary.
#pragma once

#include <cstdint>

#include "sluice/format/data_type.h"

namespace sluice::row_internal {

/// Bytes in the word Spark aligns everything to.
constexpr int64_t kWordBytes = 8;

/// Decimal.MAX_LONG_DIGITS: decimals of this precision or less are an unscaled long in the slot.
constexpr int32_t kMaxLongDigits = 18;

/// Bytes Spark's UnsafeRowWriter reserves in a row's variable region for a decimal of precision
/// above 18, null or not (the largest unscaled value of 38 digits fits in 16 bytes).
constexpr int64_t kRowDecimalBytes = 16;

/// Bytes of a calendar interval in a variable region: int32 months, int32 days, int64
/// microseconds. A row reserves them for a null interval too (Spark's UnsafeWriter).
constexpr int64_t kCalendarIntervalBytes = 16;

/// Rounds up to a multiple of the word.
constexpr int64_t RoundUpToWord(int64_t bytes) {
  return (bytes + 7) & ~int64_t{7};
}

/// Returns the bytes of a null bitset for `count` fields or elements: one word per 64.
constexpr int64_t BitsetBytes(int64_t count) {
  return ((count + 63) / 64) * kWordBytes;
}

/// Returns the bytes of an UnsafeRow's null bitset and slots.
constexpr int64_t RowFixedBytes(int64_t fields) {
  return BitsetBytes(fields) + kWordBytes * fields;
}

/// Returns the bytes of an UnsafeArrayData's element count and null bitset.
constexpr int64_t ArrayHeaderBytes(int64_t elements) {
  return kWordBytes + BitsetBytes(elements);
}

/// Returns true when a decimal of `precision` is stored as bytes in the variable region.
constexpr bool IsLargeDecimal(int32_t precision) {
  return precision > kMaxLongDigits;
}

/// Returns the bytes one element of `type` takes in an UnsafeArrayData: the natural width of
/// boolean, byte, short, int, long, float, double, date and timestamp; 8 for a decimal of
/// precision <= 18 (its unscaled long); 8 for everything else, which stores (offset, size) or,
/// for null, nothing (Spark's GenerateUnsafeProjection: elementOrOffsetSize).
inline int ArrayElementWidth(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
      return 1;
    case TypeId::kInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
    case TypeId::kIntervalYearMonth:
      return 4;
    default:
      return 8;
  }
}

/// Returns true when values of `type` store (offset, size) and bytes in a variable region.
inline bool HasVariablePart(const DataType& type) {
  switch (type.id()) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      return true;
    case TypeId::kDecimal128:
      return IsLargeDecimal(type.precision());
    case TypeId::kIntervalMonthDayNano:  // a calendar interval
      return true;
    default:
      return false;
  }
}

/// Packs a slot of a variable-length value.
inline uint64_t PackOffsetAndSize(int64_t offset, int64_t size) {
  return (static_cast<uint64_t>(offset) << 32) | static_cast<uint32_t>(size);
}

/// Unpacks a slot of a variable-length value, as Spark does: both halves are signed ints.
inline int32_t SlotOffset(uint64_t slot) {
  return static_cast<int32_t>(slot >> 32);
}
inline int32_t SlotSize(uint64_t slot) {
  return static_cast<int32_t>(slot & 0xffffffffu);
}

}  // namespace sluice::row_internal
