#include "sluice/partition/column_hash.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#include "partition/column_hash_internal.h"
#include "sluice/base/bit_ops.h"
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

inline unsigned __int128 LoadDecimal128(const uint8_t* slot) {
  const uint64_t low = bits::LoadUnaligned<uint64_t>(slot);
  const uint64_t high = bits::LoadUnaligned<uint64_t>(slot + 8);
  return (static_cast<unsigned __int128>(high) << 64) | low;
}

template <typename Hash>
class ColumnHasher {
 public:
  using State = typename Hash::State;

  // Folds rows `rows` of `array` into `states` (states[k] for rows[k]).
  template <typename Rows>
  static void Update(const ArrayData& array, const Rows& rows, State* states) {
    if (rows.count == 0) return;
    const uint8_t* values = array.buffers[1].data;
    switch (array.type->id()) {
      case TypeId::kNull:
        return;
      case TypeId::kBoolean:
        return UpdateFixed(array, rows, states, [values](int64_t i, State seed) {
          return Hash::HashInt(bits::GetBit(values, i) ? 1 : 0, seed);
        });
      case TypeId::kInt8:
        return UpdateInts<int8_t>(array, rows, states);
      case TypeId::kInt16:
        return UpdateInts<int16_t>(array, rows, states);
      case TypeId::kInt32:
      case TypeId::kDate32:
        return UpdateInts<int32_t>(array, rows, states);
      case TypeId::kUInt8:
        return UpdateInts<uint8_t>(array, rows, states);
      case TypeId::kUInt16:
        return UpdateInts<uint16_t>(array, rows, states);
      case TypeId::kUInt32:
        return UpdateLongs<uint32_t>(array, rows, states);
      case TypeId::kInt64:
      case TypeId::kTimestamp:
        return UpdateLongs<int64_t>(array, rows, states);
      case TypeId::kUInt64: {
        // Spark reads Parquet's UINT_64 as DecimalType(20, 0).
        const auto* typed = reinterpret_cast<const uint64_t*>(values);
        return UpdateFixed(array, rows, states, [typed](int64_t i, State seed) {
          return HashBigIntegerBytes<Hash>(typed[i], seed);
        });
      }
      case TypeId::kFloat32: {
        const auto* typed = reinterpret_cast<const float*>(values);
        return UpdateFixed(array, rows, states, [typed](int64_t i, State seed) {
          return Hash::HashInt(FloatBitsForHash(typed[i]), seed);
        });
      }
      case TypeId::kFloat64: {
        const auto* typed = reinterpret_cast<const double*>(values);
        return UpdateFixed(array, rows, states, [typed](int64_t i, State seed) {
          return Hash::HashLong(DoubleBitsForHash(typed[i]), seed);
        });
      }
      case TypeId::kDecimal128:
        if (array.type->precision() <= 18) {
          // The unscaled value fits a long: its low 8 bytes.
          return UpdateFixed(array, rows, states, [values](int64_t i, State seed) {
            return Hash::HashLong(bits::LoadUnaligned<int64_t>(values + 16 * i), seed);
          });
        }
        return UpdateFixed(array, rows, states, [values](int64_t i, State seed) {
          return HashBigIntegerBytes<Hash>(LoadDecimal128(values + 16 * i), seed);
        });
      case TypeId::kUtf8:
      case TypeId::kBinary:
        return UpdateBinary<int32_t>(array, rows, states);
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        return UpdateBinary<int64_t>(array, rows, states);
      case TypeId::kFixedSizeBinary: {
        const int64_t width = array.type->byte_width();
        return UpdateVariable(array, rows, states, [values, width](int64_t i, State seed) {
          return Hash::HashBytes(values + i * width, width, seed);
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
    }
  }

 private:
  template <typename T>
  static void UpdateInts(const ArrayData& array, const auto& rows, State* states) {
    const auto* typed = reinterpret_cast<const T*>(array.buffers[1].data);
    UpdateFixed(array, rows, states, [typed](int64_t i, State seed) {
      return Hash::HashInt(static_cast<int32_t>(typed[i]), seed);
    });
  }

  template <typename T>
  static void UpdateLongs(const ArrayData& array, const auto& rows, State* states) {
    const auto* typed = reinterpret_cast<const T*>(array.buffers[1].data);
    UpdateFixed(array, rows, states, [typed](int64_t i, State seed) {
      return Hash::HashLong(static_cast<int64_t>(typed[i]), seed);
    });
  }

  template <typename Offset>
  static void UpdateBinary(const ArrayData& array, const auto& rows, State* states) {
    const auto* offsets = reinterpret_cast<const Offset*>(array.buffers[1].data);
    const uint8_t* bytes = array.buffers[2].data;
    UpdateVariable(array, rows, states, [offsets, bytes](int64_t i, State seed) {
      const Offset start = offsets[i];
      return Hash::HashBytes(bytes + start, offsets[i + 1] - start, seed);
    });
  }

  static const uint8_t* Validity(const ArrayData& array) {
    return array.null_count != 0 ? array.buffers[0].data : nullptr;
  }

  // Fixed-width values: every slot, null or not, holds readable bytes, so a null row is hashed
  // too and the old state selected back without a branch. `hash_value(i, seed)` hashes the value
  // at physical index i.
  template <typename Rows, typename ValueHash>
  static void UpdateFixed(const ArrayData& array, const Rows& rows, State* __restrict states,
                          ValueHash hash_value) {
    const int64_t base = array.offset;
    const uint8_t* validity = Validity(array);
    if (validity == nullptr) {
      for (int64_t k = 0; k < rows.count; ++k) states[k] = hash_value(base + rows[k], states[k]);
      return;
    }
    if constexpr (std::is_same_v<Rows, DenseRows>) {
      // 64 rows at a time: all valid and all null blocks take the plain paths.
      for (int64_t block = 0; block < rows.count; block += 64) {
        const int64_t block_size = std::min<int64_t>(64, rows.count - block);
        const int64_t first = base + rows.first + block;
        const uint64_t word = LoadBits(validity, first, block_size);
        State* block_states = states + block;
        if (word == 0) continue;
        if (word == (block_size == 64 ? ~uint64_t{0} : (uint64_t{1} << block_size) - 1)) {
          for (int64_t j = 0; j < block_size; ++j) {
            block_states[j] = hash_value(first + j, block_states[j]);
          }
          continue;
        }
        for (int64_t j = 0; j < block_size; ++j) {
          const State old_state = block_states[j];
          const State new_state = hash_value(first + j, old_state);
          const State keep_new = State{0} - static_cast<State>((word >> j) & 1);
          block_states[j] = (new_state & keep_new) | (old_state & ~keep_new);
        }
      }
    } else {
      for (int64_t k = 0; k < rows.count; ++k) {
        const int64_t i = base + rows[k];
        const State old_state = states[k];
        const State new_state = hash_value(i, old_state);
        const State keep_new = State{0} - static_cast<State>(bits::GetBit(validity, i));
        states[k] = (new_state & keep_new) | (old_state & ~keep_new);
      }
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

  // A list folds its elements in order. The elements of different rows are independent, so the
  // kernel goes position by position: round p hashes element p of every row that has one, as one
  // column pass over the child with an index vector, until no row has elements left.
  template <typename Offset, typename Rows>
  static void UpdateList(const ArrayData& array, const Rows& rows, State* states) {
    const auto* offsets = reinterpret_cast<const Offset*>(array.buffers[1].data);
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
      const auto start = static_cast<int64_t>(offsets[i]);
      const auto end = static_cast<int64_t>(offsets[i + 1]);
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

template <typename Hash>
Status HashColumns(const RecordBatch& batch, std::span<const int> key_columns,
                   typename Hash::State* states) {
  SLUICE_RETURN_NOT_OK(internal::CheckKeyColumns(batch, key_columns, "hash key"));
  std::fill(states, states + batch.num_rows(), static_cast<typename Hash::State>(Hash::kSeed));
  for (const int key : key_columns) {
    ColumnHasher<Hash>::Update(batch.column(static_cast<size_t>(key)),
                               DenseRows{0, batch.num_rows()}, states);
  }
  return Status::OK();
}

}  // namespace

namespace internal {

void FoldColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states) {
  ColumnHasher<MurmurHash3Spark>::Update(array, DenseRows{first, count}, states);
}

void FoldColumnXxHash64(const ArrayData& array, int64_t first, int64_t count, uint64_t* states) {
  ColumnHasher<XxHash64Spark>::Update(array, DenseRows{first, count}, states);
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
