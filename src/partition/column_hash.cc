#include "sluice/partition/column_hash.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/simd_dispatch_internal.h"
#include "partition/column_hash_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/check.h"
#include "sluice/base/half_float.h"
#include "sluice/partition/spark_hash.h"

namespace sluice {

namespace {

// The rows of an array a kernel visits, as logical indices into the array view. Top-level
// columns visit a dense range; list elements are visited through an index vector.
struct DenseRows {
  int64_t first;
  int64_t count;
  int64_t operator[](int64_t k) const { return first + k; }
};

struct IndexedRows {
  const int64_t* indices;
  int64_t count;
  int64_t operator[](int64_t k) const { return indices[k]; }
};

// Returns `count` (1..64) bits of an LSB-first bitmap starting at bit `position`, reading only
// the bytes that hold them.
uint64_t LoadBits(const uint8_t* bitmap, int64_t position, int64_t count) {
  const uint8_t* first_byte = bitmap + (position >> 3);
  const int shift = static_cast<int>(position & 7);
  const int64_t byte_count = (shift + count + 7) >> 3;  // 1..9
  uint64_t low = 0;
  std::memcpy(&low, first_byte, static_cast<size_t>(std::min<int64_t>(byte_count, 8)));
  uint64_t word = low >> shift;
  if (byte_count > 8) word |= static_cast<uint64_t>(first_byte[8]) << (64 - shift);
  return count == 64 ? word : word & ((uint64_t{1} << count) - 1);
}

// Rows per block when a nullable column's validity is unpacked to bytes.
constexpr int64_t kSelectBlockRows = 512;

// kBitBytes[b] holds the 8 bits of b as 8 bytes of 0 or 1, least significant bit first.
constexpr auto kBitBytes = [] {
  std::array<uint64_t, 256> table{};
  for (uint64_t b = 0; b < 256; ++b) {
    for (int bit = 0; bit < 8; ++bit) table[b] |= ((b >> bit) & 1) << (8 * bit);
  }
  return table;
}();

// Writes bits [position, position + count) of a bitmap as one byte (0 or 1) per bit into `out`,
// which has room for count rounded up to 8, and returns how many bits are set.
int64_t UnpackValidity(const uint8_t* bitmap, int64_t position, int64_t count, uint8_t* out) {
  int64_t set = 0;
  for (int64_t word_start = 0; word_start < count; word_start += 64) {
    const int64_t word_bits = std::min<int64_t>(64, count - word_start);
    const uint64_t word = LoadBits(bitmap, position + word_start, word_bits);
    set += std::popcount(word);
    for (int64_t byte = 0; byte < word_bits; byte += 8) {
      std::memcpy(out + word_start + byte, &kBitBytes[(word >> byte) & 0xff], 8);
    }
  }
  return set;
}

// Java's floatToIntBits / doubleToLongBits after Spark's -0.0 check: both zeros hash as +0.0 and
// every NaN as the canonical quiet NaN. Written as selects so loops stay branch-free.
inline int32_t FloatBitsForHash(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  bits = value == 0.0f ? 0u : bits;
  bits = value != value ? 0x7fc00000u : bits;
  return static_cast<int32_t>(bits);
}

inline int64_t DoubleBitsForHash(double value) {
  uint64_t bits = std::bit_cast<uint64_t>(value);
  bits = value == 0.0 ? 0u : bits;
  bits = value != value ? 0x7ff8000000000000ull : bits;
  return static_cast<int64_t>(bits);
}

// Hashes a two's-complement 128-bit value as Spark hashes a BigInteger's toByteArray(): the
// minimal big-endian bytes that keep the sign, bitLength / 8 + 1 of them.
template <typename Hash>
typename Hash::State HashBigIntegerBytes(unsigned __int128 value, typename Hash::State seed) {
  const bool negative = (value >> 127) != 0;
  const unsigned __int128 magnitude_bits = negative ? ~value : value;
  const auto high = static_cast<uint64_t>(magnitude_bits >> 64);
  const auto low = static_cast<uint64_t>(magnitude_bits);
  const int bit_length = high != 0 ? 128 - std::countl_zero(high) : 64 - std::countl_zero(low);
  const int byte_count = bit_length / 8 + 1;  // 1..16 for values of 127 bits or fewer
  uint8_t big_endian[16];
  const uint64_t value_high = static_cast<uint64_t>(value >> 64);
  const uint64_t value_low = static_cast<uint64_t>(value);
  bits::StoreUnaligned(big_endian, bits::ToBigEndian64(value_high));
  bits::StoreUnaligned(big_endian + 8, bits::ToBigEndian64(value_low));
  return Hash::HashBytes(big_endian + 16 - byte_count, byte_count, seed);
}

// Values up to this many bytes are hashed with a fixed number of word rounds.
constexpr int64_t kShortStringBytes = 32;

// Spark's hashUnsafeBytes with the 0 to 3 tail bytes mixed without a branch on their count.
// Random string lengths make the tail loop's exit unpredictable, and its mispredictions cost more
// than always computing three rounds and keeping the ones that exist. Values of 4 bytes or more
// read the tail from the last full 4 bytes of the value, so nothing past it is read. Equal to
// Hash::HashBytes (the property test holds it to the plain version).
template <typename Hash>
typename Hash::State HashStringBytes(const uint8_t* data, int64_t length,
                                     typename Hash::State seed) {
  if constexpr (std::is_same_v<Hash, MurmurHash3Spark>) {
    if (length < 4) return Hash::HashBytes(data, length, seed);
    uint32_t h1 = seed;
    if (length <= kShortStringBytes) {
      // Short values: always eight word rounds, unrolled, keeping those below the length, so
      // no branch depends on the length. Absent words read the last full word instead.
      const int64_t word_count = length >> 2;
      for (int64_t word = 0; word < kShortStringBytes / 4; ++word) {
        const int64_t offset = std::min(4 * word, length - 4);
        const uint32_t mixed =
            Hash::MixH1(h1, Hash::MixK1(bits::LoadUnaligned<uint32_t>(data + offset)));
        h1 = word < word_count ? mixed : h1;
      }
    } else {
      const int64_t aligned = length & ~int64_t{3};
      for (int64_t i = 0; i < aligned; i += 4) {
        h1 = Hash::MixH1(h1, Hash::MixK1(bits::LoadUnaligned<uint32_t>(data + i)));
      }
    }
    const auto tail_count = static_cast<int>(length & 3);
    const uint32_t last_word = bits::LoadUnaligned<uint32_t>(data + length - 4);
    for (int j = 0; j < 3; ++j) {
      // Tail byte j is byte 4 - tail_count + j of the last word (clamped when absent).
      const int byte_index = std::min(4 - tail_count + j, 3);
      const auto tail_byte = static_cast<int8_t>(last_word >> (8 * byte_index));
      const uint32_t mixed =
          Hash::MixH1(h1, Hash::MixK1(static_cast<uint32_t>(static_cast<int32_t>(tail_byte))));
      h1 = j < tail_count ? mixed : h1;
    }
    return Hash::Finalize(h1, static_cast<uint32_t>(length));
  } else {
    return Hash::HashBytes(data, length, seed);
  }
}

// Hashes a two's-complement 256-bit value (32 little-endian bytes) as Spark hashes a
// BigInteger's toByteArray(), as HashBigIntegerBytes does for 128 bits (equal where both apply).
template <typename Hash>
typename Hash::State HashBigIntegerBytes256(const uint8_t* slot, typename Hash::State seed) {
  uint8_t big_endian[32];
  for (int i = 0; i < 32; ++i) big_endian[i] = slot[31 - i];
  const uint8_t sign_byte = (big_endian[0] & 0x80) != 0 ? 0xff : 0x00;
  // Drop leading sign bytes while the next byte still carries the sign bit.
  int first = 0;
  while (first < 31 && big_endian[first] == sign_byte &&
         ((big_endian[first + 1] ^ sign_byte) & 0x80) == 0) {
    ++first;
  }
  return Hash::HashBytes(big_endian + first, 32 - first, seed);
}

// Converts a count of `unit` to the unit `per_second` ticks a second counts, as Java's long
// arithmetic does: multiplying wraps, dividing truncates toward zero.
inline int64_t ConvertTicks(int64_t value, TimeUnit unit, int64_t per_second) {
  const int64_t from = TicksPerSecond(unit);
  if (from <= per_second) {
    return static_cast<int64_t>(static_cast<uint64_t>(value) *
                                static_cast<uint64_t>(per_second / from));
  }
  return value / (from / per_second);
}

constexpr int64_t kMicrosPerMilli = 1'000;
constexpr int64_t kMicrosPerDay = kMillisPerDay * kMicrosPerMilli;

inline int32_t FloorDays(int64_t millis) {
  const int64_t days = millis / kMillisPerDay;
  return static_cast<int32_t>(days - ((millis % kMillisPerDay) < 0 ? 1 : 0));
}

inline unsigned __int128 LoadDecimal128(const uint8_t* slot) {
  const uint64_t low = bits::LoadUnaligned<uint64_t>(slot);
  const uint64_t high = bits::LoadUnaligned<uint64_t>(slot + 8);
  return (static_cast<unsigned __int128>(high) << 64) | low;
}

// The types Update hashes through UpdateInts and UpdateLongs: integers as Spark's int or long.
bool HashedAsInteger(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return true;
    default:
      return false;
  }
}

template <typename Hash>
class ColumnHasher {
 public:
  using State = typename Hash::State;

  // Sets states[k] to the hash of row rows.first + k seeded with Hash::kSeed (the seed itself
  // where the row is null): Update over states that all hold the seed, for the first key column.
  // A fixed-width column without nulls hashes straight into the states and never reads them,
  // which saves a pass over them; in a batch larger than the cache, that pass is where the
  // states' lines are first written, and it waits on memory.
  template <bool kWide = false>
  static void Start(const ArrayData& array, const DenseRows& rows, State* states) {
    if (Validity(array) == nullptr && HashedAsFixedWidth(array.type->id())) {
      return Update</*kFromSeed=*/true, kWide>(array, rows, states);
    }
    std::fill(states, states + rows.count, static_cast<State>(Hash::kSeed));
    Update<false, kWide>(array, rows, states);
  }

  // Folds rows `rows` of `array` into `states` (states[k] for rows[k]). With kFromSeed (only for
  // the types HashedAsFixedWidth lists, without nulls), every state is taken to hold Hash::kSeed
  // and is written without being read. With kWide, integer columns are hashed with 512-bit
  // vectors where the CPU has them (see HashesWithWideVectors).
  template <bool kFromSeed = false, bool kWide = false, typename Rows>
  static void Update(const ArrayData& array, const Rows& rows, State* states) {
    if (rows.count == 0) return;
    const uint8_t* values = array.buffers[1].data;
    const auto fixed = [&](auto hash_value) {
      UpdateFixed<kFromSeed>(array, rows, states, hash_value);
    };
    switch (array.type->id()) {
      case TypeId::kNull:
        return;
      case TypeId::kBoolean:
        return fixed([values](int64_t i, State seed) {
          return Hash::HashInt(bits::GetBit(values, i) ? 1 : 0, seed);
        });
      case TypeId::kInt8:
        return UpdateInts<int8_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kInt16:
        return UpdateInts<int16_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kInt32:
      case TypeId::kDate32:
        return UpdateInts<int32_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kUInt8:
        return UpdateInts<uint8_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kUInt16:
        return UpdateInts<uint16_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kUInt32:
        return UpdateLongs<uint32_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kInt64:
      case TypeId::kTimestamp:
        return UpdateLongs<int64_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kUInt64: {
        // Spark reads Parquet's UINT_64 as DecimalType(20, 0).
        const auto* typed = reinterpret_cast<const uint64_t*>(values);
        return fixed(
            [typed](int64_t i, State seed) { return HashBigIntegerBytes<Hash>(typed[i], seed); });
      }
      case TypeId::kFloat32: {
        const auto* typed = reinterpret_cast<const float*>(values);
        return fixed([typed](int64_t i, State seed) {
          return Hash::HashInt(FloatBitsForHash(typed[i]), seed);
        });
      }
      case TypeId::kFloat64: {
        const auto* typed = reinterpret_cast<const double*>(values);
        return fixed([typed](int64_t i, State seed) {
          return Hash::HashLong(DoubleBitsForHash(typed[i]), seed);
        });
      }
      case TypeId::kDecimal128:
        if (array.type->precision() <= 18) {
          // The unscaled value fits a long: its low 8 bytes.
          return fixed([values](int64_t i, State seed) {
            return Hash::HashLong(bits::LoadUnaligned<int64_t>(values + 16 * i), seed);
          });
        }
        return fixed([values](int64_t i, State seed) {
          return HashBigIntegerBytes<Hash>(LoadDecimal128(values + 16 * i), seed);
        });
      case TypeId::kUtf8:
      case TypeId::kBinary:
        return UpdateBinary<int32_t>(array, rows, states);
      case TypeId::kBinaryView:
      case TypeId::kUtf8View:
        // The bytes, as utf8 and binary hash them: a value lands where its plain form does.
        return UpdateVariable(array, rows, states, [&array](int64_t i, State seed) {
          const std::string_view value = array.view_value(i - array.offset);
          return HashStringBytes<Hash>(reinterpret_cast<const uint8_t*>(value.data()),
                                       static_cast<int64_t>(value.size()), seed);
        });
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        return UpdateBinary<int64_t>(array, rows, states);
      case TypeId::kFixedSizeBinary: {
        const int64_t width = array.type->byte_width();
        return UpdateVariable(array, rows, states, [values, width](int64_t i, State seed) {
          return HashStringBytes<Hash>(values + i * width, width, seed);
        });
      }
      case TypeId::kStruct:
        return UpdateStruct(array, rows, states);
      case TypeId::kList:
      case TypeId::kMap:
        // A map is a list of entries struct<key, value>: folding the struct folds key then value.
        return UpdateList<int32_t>(array, rows, states);
      case TypeId::kLargeList:
        return UpdateList<int64_t>(array, rows, states);
      case TypeId::kFixedSizeList:
        return UpdateFixedSizeList(array, rows, states);
      case TypeId::kListView:
      case TypeId::kLargeListView:
        return UpdateListView(array, rows, states);
      case TypeId::kRunEndEncoded:
        return UpdateRunEndEncoded(array, rows, states);
      case TypeId::kSparseUnion:
      case TypeId::kDenseUnion:
        return UpdateUnion(array, rows, states);
      case TypeId::kDictionary:
        return UpdateDictionary(array, rows, states);
      // Types Spark has, hashed as Spark hashes the value it reads them as; the rest as the
      // Spark type of the same values (README, "Types and how they are partitioned").
      case TypeId::kFloat16: {
        const auto* typed = reinterpret_cast<const uint16_t*>(values);
        return fixed([typed](int64_t i, State seed) {
          return Hash::HashInt(FloatBitsForHash(HalfToFloat(typed[i])), seed);
        });
      }
      case TypeId::kDate64: {
        // The day it falls on, as date32 (Spark's DateType) hashes it.
        const auto* typed = reinterpret_cast<const int64_t*>(values);
        return fixed(
            [typed](int64_t i, State seed) { return Hash::HashInt(FloorDays(typed[i]), seed); });
      }
      case TypeId::kTime32: {
        // Spark's TimeType: nanoseconds since midnight, a long.
        const auto* typed = reinterpret_cast<const int32_t*>(values);
        const TimeUnit unit = array.type->time_unit();
        return fixed([typed, unit](int64_t i, State seed) {
          return Hash::HashLong(ConvertTicks(typed[i], unit, TicksPerSecond(TimeUnit::kNano)),
                                seed);
        });
      }
      case TypeId::kTime64: {
        const auto* typed = reinterpret_cast<const int64_t*>(values);
        const TimeUnit unit = array.type->time_unit();
        return fixed([typed, unit](int64_t i, State seed) {
          return Hash::HashLong(ConvertTicks(typed[i], unit, TicksPerSecond(TimeUnit::kNano)),
                                seed);
        });
      }
      case TypeId::kDuration: {
        // Spark's DayTimeIntervalType: microseconds, a long.
        const auto* typed = reinterpret_cast<const int64_t*>(values);
        const TimeUnit unit = array.type->time_unit();
        return fixed([typed, unit](int64_t i, State seed) {
          return Hash::HashLong(ConvertTicks(typed[i], unit, TicksPerSecond(TimeUnit::kMicro)),
                                seed);
        });
      }
      case TypeId::kIntervalYearMonth:
        // Spark's YearMonthIntervalType: months, an int.
        return UpdateInts<int32_t, kFromSeed, kWide>(array, rows, states);
      case TypeId::kIntervalDayTime:
        // As the DayTimeIntervalType of the same length: days and milliseconds in microseconds,
        // wrapping as Java's long arithmetic does past 292,471 years.
        return fixed([values](int64_t i, State seed) {
          const auto days = static_cast<uint64_t>(bits::LoadUnaligned<int32_t>(values + 8 * i));
          const auto millis =
              static_cast<uint64_t>(bits::LoadUnaligned<int32_t>(values + 8 * i + 4));
          return Hash::HashLong(
              static_cast<int64_t>(days * kMicrosPerDay + millis * kMicrosPerMilli), seed);
        });
      case TypeId::kIntervalMonthDayNano:
        // Spark's CalendarInterval, as Spark reads it from Arrow (nanoseconds / 1000): the
        // microseconds, then the days, then the months.
        return fixed([values](int64_t i, State seed) {
          const auto months = bits::LoadUnaligned<int32_t>(values + 16 * i);
          const auto days = bits::LoadUnaligned<int32_t>(values + 16 * i + 4);
          const auto nanos = bits::LoadUnaligned<int64_t>(values + 16 * i + 8);
          return Hash::HashInt(months, Hash::HashInt(days, Hash::HashLong(nanos / 1000, seed)));
        });
      case TypeId::kDecimal32: {
        // Spark hashes a decimal of at most 18 digits as its unscaled long.
        const auto* typed = reinterpret_cast<const int32_t*>(values);
        return fixed([typed](int64_t i, State seed) { return Hash::HashLong(typed[i], seed); });
      }
      case TypeId::kDecimal64: {
        const auto* typed = reinterpret_cast<const int64_t*>(values);
        return fixed([typed](int64_t i, State seed) { return Hash::HashLong(typed[i], seed); });
      }
      case TypeId::kDecimal256:
        if (array.type->precision() <= 18) {
          return fixed([values](int64_t i, State seed) {
            return Hash::HashLong(bits::LoadUnaligned<int64_t>(values + 32 * i), seed);
          });
        }
        return fixed([values](int64_t i, State seed) {
          return HashBigIntegerBytes256<Hash>(values + 32 * i, seed);
        });
    }
  }

 private:
  // The types Update hashes through UpdateFixed.
  static bool HashedAsFixedWidth(TypeId id) {
    switch (id) {
      case TypeId::kBoolean:
      case TypeId::kUInt64:
      case TypeId::kFloat32:
      case TypeId::kFloat64:
      case TypeId::kDecimal128:
      case TypeId::kFloat16:
      case TypeId::kDate64:
      case TypeId::kTime32:
      case TypeId::kTime64:
      case TypeId::kDuration:
      case TypeId::kIntervalYearMonth:
      case TypeId::kIntervalDayTime:
      case TypeId::kIntervalMonthDayNano:
      case TypeId::kDecimal32:
      case TypeId::kDecimal64:
      case TypeId::kDecimal256:
        return true;
      default:
        return HashedAsInteger(id);
    }
  }

  template <typename T, bool kFromSeed, bool kWide>
  static void UpdateInts(const ArrayData& array, const auto& rows, State* states) {
    const auto* typed = reinterpret_cast<const T*>(array.buffers[1].data);
    UpdateFixed<kFromSeed, kWide>(array, rows, states, [typed](int64_t i, State seed) {
      return Hash::HashInt(static_cast<int32_t>(typed[i]), seed);
    });
  }

  template <typename T, bool kFromSeed, bool kWide>
  static void UpdateLongs(const ArrayData& array, const auto& rows, State* states) {
    const auto* typed = reinterpret_cast<const T*>(array.buffers[1].data);
    UpdateFixed<kFromSeed, kWide>(array, rows, states, [typed](int64_t i, State seed) {
      return Hash::HashLong(static_cast<int64_t>(typed[i]), seed);
    });
  }

  template <typename Offset>
  static void UpdateBinary(const ArrayData& array, const auto& rows, State* states) {
    const auto* offsets = reinterpret_cast<const Offset*>(array.buffers[1].data);
    const uint8_t* bytes = array.buffers[2].data;
    UpdateVariable(array, rows, states, [offsets, bytes](int64_t i, State seed) {
      const Offset start = offsets[i];
      return HashStringBytes<Hash>(bytes + start, offsets[i + 1] - start, seed);
    });
  }

  static const uint8_t* Validity(const ArrayData& array) {
    return array.null_count != 0 ? array.buffers[0].data : nullptr;
  }

  // Fixed-width values: every slot, null or not, holds readable bytes, so a null row is hashed
  // too and the old state selected back without a branch. `hash_value(i, seed)` hashes the value
  // at physical index i.
  template <bool kFromSeed, bool kWide = false, typename Rows, typename ValueHash>
  static void UpdateFixed(const ArrayData& array, const Rows& rows, State* __restrict states,
                          ValueHash hash_value) {
    const int64_t base = array.offset;
    const uint8_t* validity = Validity(array);
    if constexpr (kFromSeed) {
      static_assert(std::is_same_v<Rows, DenseRows>);
      SLUICE_DCHECK(validity == nullptr);
      // The state argument goes unused, so the loop never loads the states.
      return DenseLoop<kWide>(states, base + rows.first, rows.count,
                              [hash_value](int64_t i, State) {
                                return hash_value(i, static_cast<State>(Hash::kSeed));
                              });
    } else if constexpr (std::is_same_v<Rows, DenseRows>) {
      const int64_t first = base + rows.first;
      if (validity == nullptr) return DenseLoop<kWide>(states, first, rows.count, hash_value);
      // Blocks of rows: all valid and all null blocks take the plain paths, mixed ones a select
      // on the validity unpacked to one byte per row.
      alignas(64) uint8_t valid[kSelectBlockRows];
      for (int64_t block = 0; block < rows.count; block += kSelectBlockRows) {
        const int64_t block_size = std::min(kSelectBlockRows, rows.count - block);
        const int64_t valid_count = UnpackValidity(validity, first + block, block_size, valid);
        if (valid_count == 0) continue;
        if (valid_count == block_size) {
          DenseLoop<kWide>(states + block, first + block, block_size, hash_value);
        } else {
          DenseSelectLoop<kWide>(states + block, first + block, block_size, valid, hash_value);
        }
      }
    } else {
      for (int64_t k = 0; k < rows.count; ++k) {
        const int64_t i = base + rows[k];
        if (validity == nullptr) {
          states[k] = hash_value(i, states[k]);
          continue;
        }
        const State old_state = states[k];
        const State new_state = hash_value(i, old_state);
        const State keep_new = State{0} - static_cast<State>(bits::GetBit(validity, i));
        states[k] = (new_state & keep_new) | (old_state & ~keep_new);
      }
    }
  }

  // states[k] = hash_value(first + k, states[k]) for k < count: the loop every fixed-width column
  // spends its time in, compiled for the CPU's widest vectors.
  template <bool kWide, typename ValueHash>
  static void DenseLoop(State* __restrict states, int64_t first, int64_t count,
                        ValueHash hash_value) {
#if SLUICE_HAVE_AVX2_DISPATCH
    if (kWide && internal::CpuHasAvx512()) return DenseLoopAvx512(states, first, count, hash_value);
    if (internal::CpuHasAvx2()) return DenseLoopAvx2(states, first, count, hash_value);
#endif
    for (int64_t k = 0; k < count; ++k) states[k] = hash_value(first + k, states[k]);
  }

  // As DenseLoop, keeping the old state where valid[k] is 0.
  template <bool kWide, typename ValueHash>
  static void DenseSelectLoop(State* __restrict states, int64_t first, int64_t count,
                              const uint8_t* valid, ValueHash hash_value) {
#if SLUICE_HAVE_AVX2_DISPATCH
    if (kWide && internal::CpuHasAvx512()) {
      return DenseSelectLoopAvx512(states, first, count, valid, hash_value);
    }
    if (internal::CpuHasAvx2()) {
      return DenseSelectLoopAvx2(states, first, count, valid, hash_value);
    }
#endif
    SelectLoop(states, first, count, valid, hash_value);
  }

#if SLUICE_HAVE_AVX2_DISPATCH
  template <typename ValueHash>
  SLUICE_TARGET_AVX512 static void DenseLoopAvx512(State* __restrict states, int64_t first,
                                                   int64_t count, ValueHash hash_value) {
    for (int64_t k = 0; k < count; ++k) states[k] = hash_value(first + k, states[k]);
  }

  template <typename ValueHash>
  SLUICE_TARGET_AVX2 static void DenseLoopAvx2(State* __restrict states, int64_t first,
                                               int64_t count, ValueHash hash_value) {
    for (int64_t k = 0; k < count; ++k) states[k] = hash_value(first + k, states[k]);
  }

  template <typename ValueHash>
  SLUICE_TARGET_AVX512 static void DenseSelectLoopAvx512(State* __restrict states, int64_t first,
                                                         int64_t count, const uint8_t* valid,
                                                         ValueHash hash_value) {
    SelectLoop(states, first, count, valid, hash_value);
  }

  template <typename ValueHash>
  SLUICE_TARGET_AVX2 static void DenseSelectLoopAvx2(State* __restrict states, int64_t first,
                                                     int64_t count, const uint8_t* valid,
                                                     ValueHash hash_value) {
    SelectLoop(states, first, count, valid, hash_value);
  }
#endif

  template <typename ValueHash>
  static inline __attribute__((always_inline)) void SelectLoop(State* __restrict states,
                                                               int64_t first, int64_t count,
                                                               const uint8_t* valid,
                                                               ValueHash hash_value) {
    for (int64_t k = 0; k < count; ++k) {
      const State old_state = states[k];
      const State new_state = hash_value(first + k, old_state);
      const State keep_new = State{0} - static_cast<State>(valid[k]);
      states[k] = (new_state & keep_new) | (old_state & ~keep_new);
    }
  }

  // Variable-length values: the hash costs a loop over bytes, so null rows are skipped with a
  // branch rather than hashed.
  template <typename Rows, typename ValueHash>
  static void UpdateVariable(const ArrayData& array, const Rows& rows, State* __restrict states,
                             ValueHash hash_value) {
    const int64_t base = array.offset;
    const uint8_t* validity = Validity(array);
    if (validity == nullptr) {
      for (int64_t k = 0; k < rows.count; ++k) states[k] = hash_value(base + rows[k], states[k]);
      return;
    }
    for (int64_t k = 0; k < rows.count; ++k) {
      const int64_t i = base + rows[k];
      if (bits::GetBit(validity, i)) states[k] = hash_value(i, states[k]);
    }
  }

  // A struct folds its fields in order. Children are aligned with the struct view, so the same
  // rows are visited in each child; where the struct itself is null the old state is kept.
  template <typename Rows>
  static void UpdateStruct(const ArrayData& array, const Rows& rows, State* states) {
    const uint8_t* validity = Validity(array);
    if (validity == nullptr) {
      for (const ArrayData& child : array.children) Update(child, rows, states);
      return;
    }
    std::vector<State> folded(states, states + rows.count);
    for (const ArrayData& child : array.children) Update(child, rows, folded.data());
    for (int64_t k = 0; k < rows.count; ++k) {
      if (bits::GetBit(validity, array.offset + rows[k])) states[k] = folded[k];
    }
  }

  template <typename Offset, typename Rows>
  static void UpdateList(const ArrayData& array, const Rows& rows, State* states) {
    const auto* offsets = reinterpret_cast<const Offset*>(array.buffers[1].data);
    UpdateElements(array, rows, states, [offsets](int64_t i) {
      return std::pair<int64_t, int64_t>{offsets[i], offsets[i + 1]};
    });
  }

  // A fixed-size list folds as the list of the same elements.
  template <typename Rows>
  static void UpdateFixedSizeList(const ArrayData& array, const Rows& rows, State* states) {
    const int64_t size = array.type->list_size();
    UpdateElements(array, rows, states, [size](int64_t i) {
      return std::pair<int64_t, int64_t>{i * size, (i + 1) * size};
    });
  }

  // A list view folds as the list of the same elements (its offset and size say which).
  template <typename Rows>
  static void UpdateListView(const ArrayData& array, const Rows& rows, State* states) {
    UpdateElements(array, rows, states, [&array](int64_t i) {
      const auto [offset, size] = ListViewRange(array, i - array.offset);
      return std::pair<int64_t, int64_t>{offset, offset + size};
    });
  }

  // A run-end encoded row hashes as the value its run holds: it lands where the same value
  // unencoded does. Rows mostly come in order, so the run of the last row is tried first.
  template <typename Rows>
  static void UpdateRunEndEncoded(const ArrayData& array, const Rows& rows, State* states) {
    const ArrayData& run_ends = array.children[0];
    std::vector<int64_t> physical(static_cast<size_t>(rows.count));
    int64_t run = -1;
    int64_t run_begin = 0;
    int64_t run_end = 0;
    for (int64_t k = 0; k < rows.count; ++k) {
      const int64_t logical = array.offset + rows[k];
      if (logical < run_begin || logical >= run_end) {
        run = RunEndPhysicalIndex(array, rows[k]);
        run_begin = run == 0 ? 0 : RunEndAt(run_ends, run - 1);
        run_end = RunEndAt(run_ends, run);
      }
      physical[static_cast<size_t>(k)] = run;
    }
    Update(array.children[1], IndexedRows{physical.data(), rows.count}, states);
  }

  // A dictionary row hashes as the value its index selects: it lands where the same value
  // unencoded does. A null row keeps its state, as a null of any type does.
  template <typename Rows>
  static void UpdateDictionary(const ArrayData& array, const Rows& rows, State* states) {
    const uint8_t* validity = Validity(array);
    std::vector<int64_t> slots;
    std::vector<int64_t> indices;
    slots.reserve(static_cast<size_t>(rows.count));
    indices.reserve(static_cast<size_t>(rows.count));
    for (int64_t k = 0; k < rows.count; ++k) {
      if (validity != nullptr && !bits::GetBit(validity, array.offset + rows[k])) continue;
      slots.push_back(k);
      indices.push_back(DictionaryIndexAt(array, rows[k]));
    }
    const auto count = static_cast<int64_t>(slots.size());
    if (count == rows.count) {
      return Update(array.children[0], IndexedRows{indices.data(), count}, states);
    }
    std::vector<State> folded(static_cast<size_t>(count));
    for (int64_t a = 0; a < count; ++a) folded[a] = states[slots[a]];
    Update(array.children[0], IndexedRows{indices.data(), count}, folded.data());
    for (int64_t a = 0; a < count; ++a) states[slots[a]] = folded[a];
  }

  // A union row hashes as the value its type id selects, as that child's type hashes it: sparse
  // and dense unions of the same values alike. The rows are taken child by child.
  template <typename Rows>
  static void UpdateUnion(const ArrayData& array, const Rows& rows, State* states) {
    const size_t children = array.children.size();
    std::vector<std::vector<int64_t>> slots(children);
    std::vector<std::vector<int64_t>> child_rows(children);
    for (int64_t k = 0; k < rows.count; ++k) {
      const auto [child, row] = UnionChildRow(array, rows[k]);
      slots[static_cast<size_t>(child)].push_back(k);
      child_rows[static_cast<size_t>(child)].push_back(row);
    }
    std::vector<State> folded;
    for (size_t c = 0; c < children; ++c) {
      const auto count = static_cast<int64_t>(slots[c].size());
      if (count == 0) continue;
      folded.resize(static_cast<size_t>(count));
      for (int64_t a = 0; a < count; ++a) folded[a] = states[slots[c][a]];
      Update(array.children[c], IndexedRows{child_rows[c].data(), count}, folded.data());
      for (int64_t a = 0; a < count; ++a) states[slots[c][a]] = folded[a];
    }
  }

  // A list folds its elements in order. The elements of different rows are independent, so the
  // kernel goes position by position: round p hashes element p of every row that has one, as one
  // column pass over the child with an index vector, until no row has elements left.
  // `elements_of(i)` gives the child rows [start, end) of physical row i.
  template <typename Rows, typename ElementsOf>
  static void UpdateElements(const ArrayData& array, const Rows& rows, State* states,
                             ElementsOf elements_of) {
    const uint8_t* validity = Validity(array);
    std::vector<int64_t> slots;     // which state each active row folds into
    std::vector<int64_t> elements;  // its next element, a logical row of the child
    std::vector<int64_t> ends;      // one past its last element
    slots.reserve(static_cast<size_t>(rows.count));
    elements.reserve(static_cast<size_t>(rows.count));
    ends.reserve(static_cast<size_t>(rows.count));
    for (int64_t k = 0; k < rows.count; ++k) {
      const int64_t i = array.offset + rows[k];
      if (validity != nullptr && !bits::GetBit(validity, i)) continue;
      const auto [start, end] = elements_of(i);
      if (start >= end) continue;
      slots.push_back(k);
      elements.push_back(start);
      ends.push_back(end);
    }
    const ArrayData& child = array.children[0];
    std::vector<State> folded(slots.size());
    while (!slots.empty()) {
      const auto active = static_cast<int64_t>(slots.size());
      for (int64_t a = 0; a < active; ++a) folded[a] = states[slots[a]];
      Update(child, IndexedRows{elements.data(), active}, folded.data());
      int64_t kept = 0;
      for (int64_t a = 0; a < active; ++a) {
        states[slots[a]] = folded[a];
        if (elements[a] + 1 < ends[a]) {
          slots[kept] = slots[a];
          elements[kept] = elements[a] + 1;
          ends[kept] = ends[a];
          ++kept;
        }
      }
      slots.resize(static_cast<size_t>(kept));
      elements.resize(static_cast<size_t>(kept));
      ends.resize(static_cast<size_t>(kept));
    }
  }
};

template <typename Hash, bool kWide>
void HashChunks(const RecordBatch& batch, std::span<const int> key_columns,
                typename Hash::State* states) {
  // A chunk at a time, so the states stay in cache while every key column folds into them.
  constexpr int64_t kChunkRows = 4096;
  const int64_t rows = batch.num_rows();
  for (int64_t first = 0; first < rows; first += kChunkRows) {
    const int64_t count = std::min(kChunkRows, rows - first);
    typename Hash::State* chunk = states + first;
    ColumnHasher<Hash>::template Start<kWide>(batch.column(static_cast<size_t>(key_columns[0])),
                                              DenseRows{first, count}, chunk);
    for (const int key : key_columns.subspan(1)) {
      ColumnHasher<Hash>::template Update<false, kWide>(batch.column(static_cast<size_t>(key)),
                                                        DenseRows{first, count}, chunk);
    }
  }
}

template <typename Hash>
Status HashColumns(const RecordBatch& batch, std::span<const int> key_columns,
                   typename Hash::State* states) {
  SLUICE_RETURN_NOT_OK(internal::CheckKeyColumns(batch, key_columns, "hash key"));
  const bool wide = std::all_of(key_columns.begin(), key_columns.end(), [&](int key) {
    return internal::HashesWithWideVectors(batch.column(static_cast<size_t>(key)).type->id());
  });
  if (wide) {
    HashChunks<Hash, /*kWide=*/true>(batch, key_columns, states);
  } else {
    HashChunks<Hash, /*kWide=*/false>(batch, key_columns, states);
  }
  return Status::OK();
}

}  // namespace

namespace internal {

bool HashesWithWideVectors(TypeId key_type) {
  return HashedAsInteger(key_type);
}

void FoldColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states,
                       bool wide) {
  using Hasher = ColumnHasher<MurmurHash3Spark>;
  if (wide) return Hasher::Update<false, true>(array, DenseRows{first, count}, states);
  Hasher::Update(array, DenseRows{first, count}, states);
}

void StartColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states,
                        bool wide) {
  using Hasher = ColumnHasher<MurmurHash3Spark>;
  if (wide) return Hasher::Start<true>(array, DenseRows{first, count}, states);
  Hasher::Start(array, DenseRows{first, count}, states);
}

Status CheckKeyColumns(const RecordBatch& batch, std::span<const int> key_columns,
                       std::string_view role) {
  if (key_columns.empty()) return Status::Invalid("no ", role, " column given");
  for (const int key : key_columns) {
    if (key < 0 || static_cast<size_t>(key) >= batch.num_columns()) {
      return Status::Invalid(role, " column ", key, " does not exist: the batch has ",
                             batch.num_columns(), " columns");
    }
    const ArrayData& column = batch.column(static_cast<size_t>(key));
    if (column.length != batch.num_rows()) {
      return Status::Invalid(role, " column ", key, " has ", column.length,
                             " rows but the batch has ", batch.num_rows());
    }
  }
  return Status::OK();
}

}  // namespace internal

Status Murmur3HashColumns(const RecordBatch& batch, std::span<const int> key_columns,
                          uint32_t* hashes) {
  return HashColumns<MurmurHash3Spark>(batch, key_columns, hashes);
}

Status XxHash64Columns(const RecordBatch& batch, std::span<const int> key_columns,
                       int64_t* hashes) {
  static_assert(sizeof(int64_t) == sizeof(uint64_t));
  return HashColumns<XxHash64Spark>(batch, key_columns, reinterpret_cast<uint64_t*>(hashes));
}

}  // namespace sluice
