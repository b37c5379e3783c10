#include "sluice/row/columnar_to_row_converter.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "row/unsafe_row_layout_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/check.h"
#include "sluice/row/spark_type.h"

namespace sluice {
namespace row_internal {

namespace {

// Rows converted per chunk: each column writes its slot in every row of the chunk, so the chunk's
// output (256 rows of up to a few KiB) stays in L2 while all columns pass over it.
constexpr int64_t kChunkRows = 64;

// Spark row sizes are Java ints.
constexpr int64_t kMaxRowBytes = std::numeric_limits<int32_t>::max();

template <typename T>
T Load(const uint8_t* source) {
  return bits::LoadUnaligned<T>(source);
}

void Store64(uint8_t* dest, uint64_t value) {
  bits::StoreUnaligned<uint64_t>(dest, value);
}

// Returns true when some value of `array` may be null (a null-type array is all nulls).
bool MayHaveNulls(const ArrayData& array) {
  return array.type->id() == TypeId::kNull ||
         (array.null_count > 0 && array.buffers[0].data != nullptr);
}

// Returns 1 when value `index` of an array for which MayHaveNulls holds is null, 0 otherwise,
// with no branch on the data (nulls are often random, and mispredictions cost more than this).
unsigned NullAt(const ArrayData& array, int64_t index) {
  const uint8_t* validity = array.buffers[0].data;
  if (validity == nullptr) return 1;  // the null type
  return 1u ^ static_cast<unsigned>(bits::GetBit(validity, array.offset + index));
}

// ORs the null flag of value `index` into bit `bit` of the bitset at `bitset`.
void OrNullBit(const ArrayData& array, int64_t index, uint8_t* bitset, int64_t bit) {
  bitset[bit >> 3] |= static_cast<uint8_t>(NullAt(array, index) << (bit & 7));
}

void SetNullBit(uint8_t* bitset, int64_t bit) {
  bitset[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
}

// Returns `count` (1 to 64) bits of an LSB-first bitmap starting at bit `start`, reading only the
// bytes that hold them.
uint64_t ReadBits(const uint8_t* bitmap, int64_t start, int count) {
  const uint8_t* first = bitmap + (start >> 3);
  const int shift = static_cast<int>(start & 7);
  const int bytes = (shift + count + 7) >> 3;
  unsigned __int128 gathered = 0;
  for (int b = 0; b < bytes; ++b) gathered |= static_cast<unsigned __int128>(first[b]) << (8 * b);
  return static_cast<uint64_t>(gathered >> shift);
}

// Calls fn(k) for every null value among values [begin, begin + count) of `array`, k counted
// from `begin`, skipping 64 valid values at a time: nulls cost work, valid values do not.
template <typename Fn>
void ForEachNull(const ArrayData& array, int64_t begin, int64_t count, Fn&& fn) {
  if (!MayHaveNulls(array)) return;
  const uint8_t* validity = array.buffers[0].data;
  if (validity == nullptr) {  // the null type
    for (int64_t k = 0; k < count; ++k) fn(k);
    return;
  }
  for (int64_t k = 0; k < count; k += 64) {
    const int chunk = static_cast<int>(std::min<int64_t>(64, count - k));
    uint64_t nulls = ~ReadBits(validity, array.offset + begin + k, chunk);
    if (chunk < 64) nulls &= (uint64_t{1} << chunk) - 1;
    while (nulls != 0) {
      fn(k + std::countr_zero(nulls));
      nulls &= nulls - 1;
    }
  }
}

// Copies a variable-length value to `dest` with its last word zero-padded, as Spark does.
void WriteBytes(uint8_t* dest, const uint8_t* source, int64_t size) {
  if ((size & 7) != 0) Store64(dest + (size & ~int64_t{7}), 0);
  if (size > 0) std::memcpy(dest, source, static_cast<size_t>(size));
}

// Returns how many bytes Java's BigInteger.toByteArray gives `value`: the fewest big-endian
// two's-complement bytes that keep the sign, 1 to 16.
int64_t MinimalBigEndianSize(__int128 value) {
  const auto magnitude = static_cast<unsigned __int128>(value < 0 ? ~value : value);
  const auto high = static_cast<uint64_t>(magnitude >> 64);
  const auto low = static_cast<uint64_t>(magnitude);
  const int bit_length = high != 0 ? 128 - std::countl_zero(high) : 64 - std::countl_zero(low);
  // The sign bit of a 128-bit value is never counted, so this is at most 16.
  return std::min<int64_t>(bit_length / 8 + 1, 16);
}

// Writes `value` as BigInteger.toByteArray does; returns the byte count.
int64_t ToMinimalBigEndian(__int128 value, uint8_t* out) {
  const int64_t size = MinimalBigEndianSize(value);
  const auto bits_of_value = static_cast<unsigned __int128>(value);
  for (int64_t i = 0; i < size; ++i) {
    out[i] = static_cast<uint8_t>(bits_of_value >> (8 * (size - 1 - i)));
  }
  return size;
}

// Java writes every NaN as the canonical one (UnsafeWriter normalises floats and doubles).
uint32_t CanonicalFloatBits(uint32_t bits) {
  return (bits & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : bits;
}
uint64_t CanonicalDoubleBits(uint64_t bits) {
  return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? 0x7ff8000000000000ull : bits;
}

}  // namespace

// Which values of an array a writer handles: [begin, begin + count), or indices[0..count).
struct Selection {
  int64_t begin = 0;
  int64_t count = 0;
  const int64_t* indices = nullptr;
};

// Calls fn(position, index) for every selected value, with the dense case compiled apart.
template <typename Fn>
inline void ForEachSelected(const Selection& selection, Fn&& fn) {
  if (selection.indices == nullptr) {
    for (int64_t p = 0; p < selection.count; ++p) fn(p, selection.begin + p);
  } else {
    for (int64_t p = 0; p < selection.count; ++p) fn(p, selection.indices[p]);
  }
}

// Where selected value p goes when it is a field of UnsafeRow structs: its slot is at
// starts[p] + slot_offset, its variable part at cursors[p], which it advances.
struct FieldTargets {
  uint8_t* out;
  const int64_t* starts;
  int64_t* cursors;
  int64_t slot_offset;
};

// Arrays of elements: array r holds child values [begins[r], begins[r] + lengths[r]).
struct ElementRuns {
  int64_t count;
  const int64_t* begins;
  const int64_t* lengths;
};

// Where the elements of each array go: the array starts at starts[r], element e's slot is at
// slots[r] + e * width, and the elements' variable parts follow one another from cursors[r].
struct ElementTargets {
  uint8_t* out;
  ElementRuns runs;
  const int64_t* starts;
  const int64_t* slots;
  int64_t* cursors;
};

// Writes one column, or one field nested in a column, into UnsafeRow bytes.
//
// A chunk visits every writer twice with the same values: a sizes pass (only writers with a
// variable part are called) and a write pass. Writers of nested types compute their children's
// selections and sizes in the sizes pass and reuse them in the write pass.
class ValueWriter {
 public:
  ValueWriter(const DataType* type, std::string path)
      : type_(type), path_(std::move(path)), variable_(HasVariablePart(*type)) {}
  virtual ~ValueWriter() = default;

  /// Returns true when values take bytes in a variable region.
  bool variable() const { return variable_; }

  /// Adds to sizes[p] the variable-region bytes of selected value p as a field of a row.
  virtual void AddFieldSizes(const ArrayData&, const Selection&, int64_t*) {}
  /// Adds to sizes[r] the variable-region bytes of the elements of array r.
  virtual void AddElementSizes(const ArrayData&, const ElementRuns&, int64_t*) {}

  /// Writes the slot (and variable part) of every selected value.
  virtual Status WriteFields(const ArrayData& array, const Selection& selection,
                             const FieldTargets& targets) = 0;
  /// Writes the elements (and their variable parts) of every array.
  virtual Status WriteElements(const ArrayData& array, const ElementTargets& targets) = 0;

 protected:
  const DataType* type_;
  std::string path_;
  bool variable_;
};

namespace {

// Sets the null bit of every null element of every array.
void SetElementNullBits(const ArrayData& child, const ElementRuns& runs, const int64_t* starts,
                        uint8_t* out) {
  if (!MayHaveNulls(child)) return;
  for (int64_t r = 0; r < runs.count; ++r) {
    uint8_t* bitset = out + starts[r] + kWordBytes;
    ForEachNull(child, runs.begins[r], runs.lengths[r], [&](int64_t e) { SetNullBit(bitset, e); });
  }
}

// Writes the header of an array of `elements` at `position` and zeroes the padding after its
// elements; returns where its elements and its variable region start.
void BeginArray(uint8_t* out, int64_t position, int64_t elements, int64_t width,
                int64_t* element_slots, int64_t* variable_start) {
  Store64(out + position, static_cast<uint64_t>(elements));
  const int64_t header = ArrayHeaderBytes(elements);
  if (header > kWordBytes) {
    std::memset(out + position + kWordBytes, 0, static_cast<size_t>(header - kWordBytes));
  }
  const int64_t fixed = elements * width;
  if ((fixed & 7) != 0) Store64(out + position + header + (fixed & ~int64_t{7}), 0);
  *element_slots = position + header;
  *variable_start = position + header + RoundUpToWord(fixed);
}

// Fixed-width values: Arrow values of type `Arrow` become `Element`s (unsigned, so a slot holds
// them zero-extended, as Spark's writeLong(0) then writeInt does). `kBitCopy` means the bytes
// are identical, so arrays are copied with one memcpy.
template <typename Arrow, typename Element, Element (*kConvert)(Arrow), bool kBitCopy>
class FixedWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    const uint8_t* values = array.buffers[1].data + array.offset * kArrowWidth;
    uint8_t* out = targets.out;
    if (!MayHaveNulls(array) || selection.indices == nullptr) {
      ForEachSelected(selection, [&](int64_t p, int64_t i) {
        const Element value = kConvert(Load<Arrow>(values + i * kArrowWidth));
        Store64(out + targets.starts[p] + targets.slot_offset, value);
      });
      // Then zero the slots of the nulls.
      ForEachNull(array, selection.begin, selection.count,
                  [&](int64_t p) { Store64(out + targets.starts[p] + targets.slot_offset, 0); });
    } else {
      ForEachSelected(selection, [&](int64_t p, int64_t i) {
        const uint64_t value = kConvert(Load<Arrow>(values + i * kArrowWidth));
        const uint64_t keep = uint64_t{NullAt(array, i)} - 1;  // all ones when valid
        Store64(out + targets.starts[p] + targets.slot_offset, value & keep);
      });
    }
    return Status::OK();
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    const uint8_t* values = array.buffers[1].data + array.offset * kArrowWidth;
    const bool nulls = MayHaveNulls(array);
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      uint8_t* dest = targets.out + targets.slots[r];
      const int64_t begin = targets.runs.begins[r];
      const int64_t elements = targets.runs.lengths[r];
      if constexpr (kBitCopy) {
        if (elements > 0) {
          std::memcpy(dest, values + begin * kArrowWidth,
                      static_cast<size_t>(elements * kArrowWidth));
        }
      } else {
        for (int64_t e = 0; e < elements; ++e) {
          bits::StoreUnaligned<Element>(dest + e * kElementWidth,
                                        kConvert(Load<Arrow>(values + (begin + e) * kArrowWidth)));
        }
      }
      if (nulls) {
        ForEachNull(array, begin, elements,
                    [&](int64_t e) { bits::StoreUnaligned<Element>(dest + e * kElementWidth, 0); });
      }
    }
    return Status::OK();
  }

 private:
  static constexpr int64_t kArrowWidth = sizeof(Arrow);
  static constexpr int64_t kElementWidth = sizeof(Element);
};

template <typename Arrow, typename Element>
Element ZeroExtend(Arrow value) {
  return static_cast<Element>(value);
}

// Booleans: one byte, 0 or 1.
class BooleanWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    const uint8_t* values = array.buffers[1].data;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      const bool value = array.IsValid(i) && bits::GetBit(values, array.offset + i);
      Store64(targets.out + targets.starts[p] + targets.slot_offset, value ? 1 : 0);
    });
    return Status::OK();
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    const uint8_t* values = array.buffers[1].data;
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      uint8_t* dest = targets.out + targets.slots[r];
      const int64_t begin = targets.runs.begins[r];
      for (int64_t e = 0; e < targets.runs.lengths[r]; ++e) {
        dest[e] = array.IsValid(begin + e) && bits::GetBit(values, array.offset + begin + e);
      }
    }
    return Status::OK();
  }
};

// Spark's NullType: always null, the slot or element zeroed.
class NullWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  Status WriteFields(const ArrayData&, const Selection& selection,
                     const FieldTargets& targets) override {
    ForEachSelected(selection, [&](int64_t p, int64_t) {
      Store64(targets.out + targets.starts[p] + targets.slot_offset, 0);
    });
    return Status::OK();
  }

  Status WriteElements(const ArrayData&, const ElementTargets& targets) override {
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      if (targets.runs.lengths[r] > 0) {
        std::memset(targets.out + targets.slots[r], 0,
                    static_cast<size_t>(targets.runs.lengths[r] * kWordBytes));
      }
    }
    return Status::OK();
  }
};

// Decimals of precision <= 18: the unscaled value as a long.
class DecimalLongWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    Status status;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      uint64_t value = 0;
      if (array.IsValid(i) && !ToLong(array, i, &value, &status)) return;
      Store64(targets.out + targets.starts[p] + targets.slot_offset, value);
    });
    return status;
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    Status status;
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      const int64_t begin = targets.runs.begins[r];
      for (int64_t e = 0; e < targets.runs.lengths[r]; ++e) {
        uint64_t value = 0;
        if (array.IsValid(begin + e) && !ToLong(array, begin + e, &value, &status)) continue;
        Store64(targets.out + targets.slots[r] + e * kWordBytes, value);
      }
    }
    return status;
  }

 private:
  // Reads value `index` as a long; on overflow records the first error and returns false.
  bool ToLong(const ArrayData& array, int64_t index, uint64_t* value, Status* status) const {
    const auto wide = Load<__int128>(array.buffers[1].data + (array.offset + index) * 16);
    const auto narrow = static_cast<int64_t>(wide);
    if (wide != narrow) {
      if (status->ok()) {
        *status = Status::Invalid("column ", path_, ", value ", index, ": a ", type_->ToString(),
                                  " value does not fit in the 64-bit unscaled long Spark stores "
                                  "for precision <= 18");
      }
      return false;
    }
    *value = static_cast<uint64_t>(narrow);
    return true;
  }
};

// Calendar intervals from month_day_nano: int32 months, int32 days and int64 microseconds in
// 16 bytes of the variable region, reserved (zero) in a row for a null interval too, as Spark's
// UnsafeWriter does; nothing for a null element of an array. Nanoseconds that are not whole
// microseconds have no Spark form and are refused.
class CalendarIntervalWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  void AddFieldSizes(const ArrayData&, const Selection& selection, int64_t* sizes) override {
    for (int64_t p = 0; p < selection.count; ++p) sizes[p] += kCalendarIntervalBytes;
  }

  void AddElementSizes(const ArrayData& array, const ElementRuns& runs, int64_t* sizes) override {
    for (int64_t r = 0; r < runs.count; ++r) {
      for (int64_t e = 0; e < runs.lengths[r]; ++e) {
        if (array.IsValid(runs.begins[r] + e)) sizes[r] += kCalendarIntervalBytes;
      }
    }
  }

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    uint8_t* out = targets.out;
    Status status;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      const int64_t position = targets.cursors[p];
      Store64(out + position, 0);
      Store64(out + position + 8, 0);
      if (array.IsValid(i)) Write(array, i, out + position, &status);
      Store64(out + targets.starts[p] + targets.slot_offset,
              PackOffsetAndSize(position - targets.starts[p], kCalendarIntervalBytes));
      targets.cursors[p] = position + kCalendarIntervalBytes;
    });
    return status;
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    uint8_t* out = targets.out;
    Status status;
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      int64_t cursor = targets.cursors[r];
      for (int64_t e = 0; e < targets.runs.lengths[r]; ++e) {
        const int64_t i = targets.runs.begins[r] + e;
        uint8_t* slot = out + targets.slots[r] + e * kWordBytes;
        if (!array.IsValid(i)) {
          Store64(slot, 0);
          continue;
        }
        Write(array, i, out + cursor, &status);
        Store64(slot, PackOffsetAndSize(cursor - targets.starts[r], kCalendarIntervalBytes));
        cursor += kCalendarIntervalBytes;
      }
      targets.cursors[r] = cursor;
    }
    return status;
  }

 private:
  // Writes value `i` (months, days, nanoseconds) as months, days, microseconds at `out`; the
  // first refusal is kept in `status`.
  void Write(const ArrayData& array, int64_t i, uint8_t* out, Status* status) const {
    const uint8_t* value = array.buffers[1].data + (array.offset + i) * kCalendarIntervalBytes;
    const int64_t nanoseconds = Load<int64_t>(value + 8);
    if (nanoseconds % 1000 != 0 && status->ok()) {
      *status = Status::Invalid("column ", path_, ", value ", i, ": ", nanoseconds,
                                " nanoseconds are not whole microseconds, which a Spark calendar "
                                "interval holds");
    }
    std::memcpy(out, value, 8);  // months, days
    Store64(out + 8, static_cast<uint64_t>(nanoseconds / 1000));
  }
};

// Decimals of precision > 18: minimal big-endian bytes in the variable region, in a 16-byte
// region in a row (reserved even when null) and in a word-rounded one in an array.
class LargeDecimalWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  void AddFieldSizes(const ArrayData&, const Selection& selection, int64_t* sizes) override {
    for (int64_t p = 0; p < selection.count; ++p) sizes[p] += kRowDecimalBytes;
  }

  void AddElementSizes(const ArrayData& array, const ElementRuns& runs, int64_t* sizes) override {
    for (int64_t r = 0; r < runs.count; ++r) {
      for (int64_t e = 0; e < runs.lengths[r]; ++e) {
        const int64_t i = runs.begins[r] + e;
        if (array.IsValid(i)) sizes[r] += RoundUpToWord(MinimalBigEndianSize(Value(array, i)));
      }
    }
  }

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    uint8_t* out = targets.out;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      const int64_t position = targets.cursors[p];
      Store64(out + position, 0);
      Store64(out + position + 8, 0);
      int64_t size = 0;
      if (array.IsValid(i)) size = ToMinimalBigEndian(Value(array, i), out + position);
      Store64(out + targets.starts[p] + targets.slot_offset,
              PackOffsetAndSize(position - targets.starts[p], size));
      targets.cursors[p] = position + kRowDecimalBytes;
    });
    return Status::OK();
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    uint8_t* out = targets.out;
    uint8_t bytes[16];
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      int64_t cursor = targets.cursors[r];
      for (int64_t e = 0; e < targets.runs.lengths[r]; ++e) {
        const int64_t i = targets.runs.begins[r] + e;
        uint8_t* slot = out + targets.slots[r] + e * kWordBytes;
        if (!array.IsValid(i)) {
          Store64(slot, 0);
          continue;
        }
        const int64_t size = ToMinimalBigEndian(Value(array, i), bytes);
        WriteBytes(out + cursor, bytes, size);
        Store64(slot, PackOffsetAndSize(cursor - targets.starts[r], size));
        cursor += RoundUpToWord(size);
      }
      targets.cursors[r] = cursor;
    }
    return Status::OK();
  }

 private:
  static __int128 Value(const ArrayData& array, int64_t index) {
    return Load<__int128>(array.buffers[1].data + (array.offset + index) * 16);
  }
};

// Strings and binaries: the bytes, word-padded with zeros, in the variable region.
class BinaryWriter final : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  void AddFieldSizes(const ArrayData& array, const Selection& selection, int64_t* sizes) override {
    const int32_t* offsets = array.value_offsets<int32_t>();
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      if (array.IsValid(i)) sizes[p] += RoundUpToWord(offsets[i + 1] - offsets[i]);
    });
  }

  void AddElementSizes(const ArrayData& array, const ElementRuns& runs, int64_t* sizes) override {
    const int32_t* offsets = array.value_offsets<int32_t>();
    const bool nulls = MayHaveNulls(array);
    for (int64_t r = 0; r < runs.count; ++r) {
      const int64_t begin = runs.begins[r];
      const int64_t end = begin + runs.lengths[r];
      if (!nulls) {
        // Every element is word-padded on its own, so sum the rounded sizes.
        for (int64_t i = begin; i < end; ++i) {
          sizes[r] += RoundUpToWord(offsets[i + 1] - offsets[i]);
        }
      } else {
        for (int64_t i = begin; i < end; ++i) {
          if (array.IsValid(i)) sizes[r] += RoundUpToWord(offsets[i + 1] - offsets[i]);
        }
      }
    }
  }

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    const int32_t* offsets = array.value_offsets<int32_t>();
    const uint8_t* bytes = array.value_bytes();
    uint8_t* out = targets.out;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      uint8_t* slot = out + targets.starts[p] + targets.slot_offset;
      if (!array.IsValid(i)) {
        Store64(slot, 0);
        return;
      }
      const int64_t size = offsets[i + 1] - offsets[i];
      const int64_t position = targets.cursors[p];
      WriteBytes(out + position, bytes + offsets[i], size);
      Store64(slot, PackOffsetAndSize(position - targets.starts[p], size));
      targets.cursors[p] = position + RoundUpToWord(size);
    });
    return Status::OK();
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    const int32_t* offsets = array.value_offsets<int32_t>();
    const uint8_t* bytes = array.value_bytes();
    uint8_t* out = targets.out;
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      int64_t cursor = targets.cursors[r];
      const int64_t begin = targets.runs.begins[r];
      for (int64_t e = 0; e < targets.runs.lengths[r]; ++e) {
        const int64_t i = begin + e;
        uint8_t* slot = out + targets.slots[r] + e * kWordBytes;
        if (!array.IsValid(i)) {
          Store64(slot, 0);
          continue;
        }
        const int64_t size = offsets[i + 1] - offsets[i];
        WriteBytes(out + cursor, bytes + offsets[i], size);
        Store64(slot, PackOffsetAndSize(cursor - targets.starts[r], size));
        cursor += RoundUpToWord(size);
      }
      targets.cursors[r] = cursor;
    }
    return Status::OK();
  }
};

// The nested values a struct, list or map writer found in its sizes pass, one per valid value in
// selection order, with the bytes each takes; the write pass places them.
class NestedValues {
 public:
  void Clear() {
    begins_.clear();
    lengths_.clear();
    sizes_.clear();
  }
  // Adds a nested value: for lists and maps, the child range it covers.
  void Add(int64_t begin, int64_t length) {
    begins_.push_back(begin);
    lengths_.push_back(length);
  }
  int64_t count() const { return static_cast<int64_t>(begins_.size()); }
  ElementRuns Runs() const { return ElementRuns{count(), begins_.data(), lengths_.data()}; }
  std::vector<int64_t>& sizes() { return sizes_; }
  // Makes room for the positions of the write pass.
  void PrepareTargets() {
    starts_.resize(begins_.size());
    slots_.resize(begins_.size());
    cursors_.resize(begins_.size());
  }
  int64_t* starts() { return starts_.data(); }
  int64_t* slots() { return slots_.data(); }
  int64_t* cursors() { return cursors_.data(); }
  const std::vector<int64_t>& begins() const { return begins_; }
  const std::vector<int64_t>& lengths() const { return lengths_; }

 private:
  std::vector<int64_t> begins_;
  std::vector<int64_t> lengths_;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> starts_;
  std::vector<int64_t> slots_;
  std::vector<int64_t> cursors_;
};

// Calls fn(index) for every valid selected value, in order.
template <typename Fn>
void ForEachValidField(const ArrayData& array, const Selection& selection, Fn&& fn) {
  if (!MayHaveNulls(array)) {
    ForEachSelected(selection, [&](int64_t, int64_t i) { fn(i); });
  } else {
    ForEachSelected(selection, [&](int64_t, int64_t i) {
      if (array.IsValid(i)) fn(i);
    });
  }
}

// A writer of a value that is itself a nested UnsafeRow, UnsafeArrayData or UnsafeMapData. The
// sizes pass finds the valid values (Collect) and their sizes; the write pass places each at its
// parent's cursor, writes its slot, and lets the subclass write the nested value (Begin) and its
// children (WriteChildren).
class NestedWriter : public ValueWriter {
 public:
  using ValueWriter::ValueWriter;

  void AddFieldSizes(const ArrayData& array, const Selection& selection, int64_t* sizes) override {
    nested_.Clear();
    ForEachValidField(array, selection, [&](int64_t i) { Collect(array, i); });
    ComputeSizes(array);
    int64_t q = 0;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      if (array.IsValid(i)) sizes[p] += nested_.sizes()[q++];
    });
  }

  void AddElementSizes(const ArrayData& array, const ElementRuns& runs, int64_t* sizes) override {
    nested_.Clear();
    for (int64_t r = 0; r < runs.count; ++r) {
      for (int64_t i = runs.begins[r]; i < runs.begins[r] + runs.lengths[r]; ++i) {
        if (array.IsValid(i)) Collect(array, i);
      }
    }
    ComputeSizes(array);
    int64_t q = 0;
    for (int64_t r = 0; r < runs.count; ++r) {
      for (int64_t i = runs.begins[r]; i < runs.begins[r] + runs.lengths[r]; ++i) {
        if (array.IsValid(i)) sizes[r] += nested_.sizes()[q++];
      }
    }
  }

  Status WriteFields(const ArrayData& array, const Selection& selection,
                     const FieldTargets& targets) override {
    nested_.PrepareTargets();
    int64_t q = 0;
    ForEachSelected(selection, [&](int64_t p, int64_t i) {
      uint8_t* slot = targets.out + targets.starts[p] + targets.slot_offset;
      if (!array.IsValid(i)) {
        Store64(slot, 0);
        return;
      }
      const int64_t position = targets.cursors[p];
      const int64_t size = nested_.sizes()[q];
      Store64(slot, PackOffsetAndSize(position - targets.starts[p], size));
      targets.cursors[p] = position + size;
      Begin(targets.out, q++, position);
    });
    return WriteChildren(array, targets.out);
  }

  Status WriteElements(const ArrayData& array, const ElementTargets& targets) override {
    nested_.PrepareTargets();
    int64_t q = 0;
    for (int64_t r = 0; r < targets.runs.count; ++r) {
      int64_t cursor = targets.cursors[r];
      for (int64_t e = 0; e < targets.runs.lengths[r]; ++e) {
        uint8_t* slot = targets.out + targets.slots[r] + e * kWordBytes;
        if (!array.IsValid(targets.runs.begins[r] + e)) {
          Store64(slot, 0);
          continue;
        }
        const int64_t size = nested_.sizes()[q];
        Store64(slot, PackOffsetAndSize(cursor - targets.starts[r], size));
        Begin(targets.out, q++, cursor);
        cursor += size;
      }
      targets.cursors[r] = cursor;
    }
    return WriteChildren(array, targets.out);
  }

 protected:
  // Records valid value `index` in nested_.
  virtual void Collect(const ArrayData& array, int64_t index) = 0;
  // Fills nested_.sizes() with the total bytes of every collected value.
  virtual void ComputeSizes(const ArrayData& array) = 0;
  // Writes the fixed part of collected value q at `position`.
  virtual void Begin(uint8_t* out, int64_t q, int64_t position) = 0;
  // Writes the children of every collected value.
  virtual Status WriteChildren(const ArrayData& array, uint8_t* out) = 0;

  NestedValues nested_;
};

// Structs: a nested UnsafeRow per valid value.
class StructWriter final : public NestedWriter {
 public:
  StructWriter(const DataType* type, std::string path,
               std::vector<std::unique_ptr<ValueWriter>> children)
      : NestedWriter(type, std::move(path)),
        children_(std::move(children)),
        bitset_bytes_(BitsetBytes(static_cast<int64_t>(children_.size()))),
        fixed_bytes_(RowFixedBytes(static_cast<int64_t>(children_.size()))) {}

 protected:
  void Collect(const ArrayData&, int64_t index) override { nested_.Add(index, 0); }

  void ComputeSizes(const ArrayData& array) override {
    // The children see the valid structs only: a dense range when they are consecutive, the
    // collected indices (kept alive by nested_ until the write pass) otherwise.
    const int64_t count = nested_.count();
    const std::vector<int64_t>& indices = nested_.begins();
    const bool dense = count > 0 && indices.back() - indices.front() == count - 1;
    selection_ =
        dense ? Selection{indices.front(), count, nullptr} : Selection{0, count, indices.data()};
    nested_.sizes().assign(static_cast<size_t>(count), fixed_bytes_);
    for (size_t j = 0; j < children_.size(); ++j) {
      if (children_[j]->variable()) {
        children_[j]->AddFieldSizes(array.children[j], selection_, nested_.sizes().data());
      }
    }
  }

  void Begin(uint8_t* out, int64_t q, int64_t position) override {
    nested_.starts()[q] = position;
    nested_.cursors()[q] = position + fixed_bytes_;
    if (bitset_bytes_ > 0) std::memset(out + position, 0, static_cast<size_t>(bitset_bytes_));
  }

  Status WriteChildren(const ArrayData& array, uint8_t* out) override {
    const int64_t* starts = nested_.starts();
    for (size_t j = 0; j < children_.size(); ++j) {
      const ArrayData& child = array.children[j];
      const auto field = static_cast<int64_t>(j);
      SLUICE_RETURN_NOT_OK(children_[j]->WriteFields(
          child, selection_,
          FieldTargets{out, starts, nested_.cursors(), bitset_bytes_ + kWordBytes * field}));
      if (selection_.indices == nullptr) {
        ForEachNull(child, selection_.begin, selection_.count,
                    [&](int64_t q) { SetNullBit(out + starts[q], field); });
      } else if (MayHaveNulls(child)) {
        ForEachSelected(selection_,
                        [&](int64_t q, int64_t i) { OrNullBit(child, i, out + starts[q], field); });
      }
    }
    return Status::OK();
  }

 private:
  std::vector<std::unique_ptr<ValueWriter>> children_;
  int64_t bitset_bytes_;
  int64_t fixed_bytes_;
  Selection selection_;
};

// Lists: an UnsafeArrayData per valid value.
class ListWriter final : public NestedWriter {
 public:
  ListWriter(const DataType* type, std::string path, std::unique_ptr<ValueWriter> element)
      : NestedWriter(type, std::move(path)),
        element_(std::move(element)),
        element_width_(ArrayElementWidth(type->child_type(0))) {}

 protected:
  void Collect(const ArrayData& array, int64_t index) override {
    const int32_t* offsets = array.value_offsets<int32_t>();
    nested_.Add(offsets[index], offsets[index + 1] - offsets[index]);
  }

  void ComputeSizes(const ArrayData& array) override {
    std::vector<int64_t>& sizes = nested_.sizes();
    sizes.resize(static_cast<size_t>(nested_.count()));
    for (int64_t q = 0; q < nested_.count(); ++q) {
      const int64_t elements = nested_.lengths()[q];
      sizes[q] = ArrayHeaderBytes(elements) + RoundUpToWord(elements * element_width_);
    }
    if (element_->variable()) {
      element_->AddElementSizes(array.children[0], nested_.Runs(), sizes.data());
    }
  }

  void Begin(uint8_t* out, int64_t q, int64_t position) override {
    nested_.starts()[q] = position;
    BeginArray(out, position, nested_.lengths()[q], element_width_, &nested_.slots()[q],
               &nested_.cursors()[q]);
  }

  Status WriteChildren(const ArrayData& array, uint8_t* out) override {
    const ElementRuns runs = nested_.Runs();
    SLUICE_RETURN_NOT_OK(element_->WriteElements(
        array.children[0],
        ElementTargets{out, runs, nested_.starts(), nested_.slots(), nested_.cursors()}));
    SetElementNullBits(array.children[0], runs, nested_.starts(), out);
    return Status::OK();
  }

 private:
  std::unique_ptr<ValueWriter> element_;
  int64_t element_width_;
};

// Maps: an UnsafeMapData per valid value: the key array's size, the key array, the value array.
class MapWriter final : public NestedWriter {
 public:
  MapWriter(const DataType* type, std::string path, std::unique_ptr<ValueWriter> key,
            std::unique_ptr<ValueWriter> value)
      : NestedWriter(type, std::move(path)),
        key_(std::move(key)),
        value_(std::move(value)),
        key_width_(ArrayElementWidth(type->child_type(0).child_type(0))),
        value_width_(ArrayElementWidth(type->child_type(0).child_type(1))) {}

 protected:
  void Collect(const ArrayData& array, int64_t index) override {
    const int32_t* offsets = array.value_offsets<int32_t>();
    nested_.Add(offsets[index], offsets[index + 1] - offsets[index]);
  }

  void ComputeSizes(const ArrayData& array) override {
    const ArrayData& entries = array.children[0];
    const auto count = static_cast<size_t>(nested_.count());
    key_sizes_.resize(count);
    value_sizes_.resize(count);
    for (size_t q = 0; q < count; ++q) {
      const int64_t elements = nested_.lengths()[q];
      key_sizes_[q] = ArrayHeaderBytes(elements) + RoundUpToWord(elements * key_width_);
      value_sizes_[q] = ArrayHeaderBytes(elements) + RoundUpToWord(elements * value_width_);
    }
    const ElementRuns runs = nested_.Runs();
    if (key_->variable()) key_->AddElementSizes(entries.children[0], runs, key_sizes_.data());
    if (value_->variable()) {
      value_->AddElementSizes(entries.children[1], runs, value_sizes_.data());
    }
    std::vector<int64_t>& sizes = nested_.sizes();
    sizes.resize(count);
    for (size_t q = 0; q < count; ++q) sizes[q] = kWordBytes + key_sizes_[q] + value_sizes_[q];
    value_starts_.resize(count);
    value_slots_.resize(count);
    value_cursors_.resize(count);
  }

  void Begin(uint8_t* out, int64_t q, int64_t position) override {
    const int64_t elements = nested_.lengths()[q];
    Store64(out + position, static_cast<uint64_t>(key_sizes_[q]));
    const int64_t key_array = position + kWordBytes;
    nested_.starts()[q] = key_array;
    BeginArray(out, key_array, elements, key_width_, &nested_.slots()[q], &nested_.cursors()[q]);
    const int64_t value_array = key_array + key_sizes_[q];
    value_starts_[q] = value_array;
    BeginArray(out, value_array, elements, value_width_, &value_slots_[q], &value_cursors_[q]);
  }

  Status WriteChildren(const ArrayData& array, uint8_t* out) override {
    const ArrayData& entries = array.children[0];
    const ElementRuns runs = nested_.Runs();
    SLUICE_RETURN_NOT_OK(key_->WriteElements(
        entries.children[0],
        ElementTargets{out, runs, nested_.starts(), nested_.slots(), nested_.cursors()}));
    SetElementNullBits(entries.children[0], runs, nested_.starts(), out);
    SLUICE_RETURN_NOT_OK(value_->WriteElements(
        entries.children[1], ElementTargets{out, runs, value_starts_.data(), value_slots_.data(),
                                            value_cursors_.data()}));
    SetElementNullBits(entries.children[1], runs, value_starts_.data(), out);
    return Status::OK();
  }

 private:
  std::unique_ptr<ValueWriter> key_;
  std::unique_ptr<ValueWriter> value_;
  int64_t key_width_;
  int64_t value_width_;
  std::vector<int64_t> key_sizes_;
  std::vector<int64_t> value_sizes_;
  std::vector<int64_t> value_starts_;
  std::vector<int64_t> value_slots_;
  std::vector<int64_t> value_cursors_;
};

template <typename Arrow, typename Element>
std::unique_ptr<ValueWriter> MakeFixedWriter(const DataType& type, const std::string& path) {
  return std::make_unique<
      FixedWriter<Arrow, Element, &ZeroExtend<Arrow, Element>, sizeof(Arrow) == sizeof(Element)>>(
      &type, path);
}

std::unique_ptr<ValueWriter> MakeWriter(const DataType& type, const std::string& path) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::make_unique<NullWriter>(&type, path);
    case TypeId::kBoolean:
      return std::make_unique<BooleanWriter>(&type, path);
    case TypeId::kInt8:
      return MakeFixedWriter<uint8_t, uint8_t>(type, path);
    case TypeId::kInt16:
      return MakeFixedWriter<uint16_t, uint16_t>(type, path);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kIntervalYearMonth:
      return MakeFixedWriter<uint32_t, uint32_t>(type, path);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:  // microseconds (CheckSparkSchema)
    case TypeId::kTime64:    // nanoseconds
      return MakeFixedWriter<uint64_t, uint64_t>(type, path);
    case TypeId::kFloat32:
      return std::make_unique<FixedWriter<uint32_t, uint32_t, &CanonicalFloatBits, false>>(&type,
                                                                                           path);
    case TypeId::kFloat64:
      return std::make_unique<FixedWriter<uint64_t, uint64_t, &CanonicalDoubleBits, false>>(&type,
                                                                                            path);
    case TypeId::kDecimal128:
      if (IsLargeDecimal(type.precision())) {
        return std::make_unique<LargeDecimalWriter>(&type, path);
      }
      return std::make_unique<DecimalLongWriter>(&type, path);
    case TypeId::kIntervalMonthDayNano:
      return std::make_unique<CalendarIntervalWriter>(&type, path);
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return std::make_unique<BinaryWriter>(&type, path);
    case TypeId::kList:
      return std::make_unique<ListWriter>(
          &type, path, MakeWriter(type.child_type(0), path + "." + type.children()[0].name));
    case TypeId::kMap: {
      const DataType& entries = type.child_type(0);
      return std::make_unique<MapWriter>(
          &type, path, MakeWriter(entries.child_type(0), path + "." + entries.children()[0].name),
          MakeWriter(entries.child_type(1), path + "." + entries.children()[1].name));
    }
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<ValueWriter>> children;
      for (const Field& child : type.children()) {
        children.push_back(MakeWriter(*child.type, path + "." + child.name));
      }
      return std::make_unique<StructWriter>(&type, path, std::move(children));
    }
    default:
      // CheckSparkSchema has refused every other type.
      return nullptr;
  }
}

}  // namespace
}  // namespace row_internal

ColumnarToRowConverter::ColumnarToRowConverter(SchemaPtr schema, ColumnarToRowOptions options)
    : schema_(std::move(schema)), options_(options) {}

ColumnarToRowConverter::~ColumnarToRowConverter() = default;

Result<std::unique_ptr<ColumnarToRowConverter>> ColumnarToRowConverter::Make(
    SchemaPtr schema, ColumnarToRowOptions options) {
  if (schema == nullptr) return Status::Invalid("ColumnarToRowConverter needs a schema");
  SLUICE_RETURN_NOT_OK(CheckSparkSchema(*schema));
  std::unique_ptr<ColumnarToRowConverter> converter(
      new ColumnarToRowConverter(std::move(schema), options));
  const auto field_count = static_cast<int64_t>(converter->schema_->num_fields());
  converter->bitset_bytes_ = row_internal::BitsetBytes(field_count);
  converter->fixed_bytes_ = row_internal::RowFixedBytes(field_count);
  for (const Field& field : converter->schema_->fields()) {
    converter->columns_.push_back(row_internal::MakeWriter(*field.type, field.name));
  }
  return converter;
}

Status ColumnarToRowConverter::Convert(const RecordBatch& batch, int64_t start, int64_t count,
                                       UnsafeRowBatch* output) {
  if (batch.num_columns() != columns_.size()) {
    return Status::Invalid("ColumnarToRowConverter: a batch of ", batch.num_columns(),
                           " columns for a schema of ", columns_.size());
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (!batch.column(c).type->Equals(*schema_->field(c).type)) {
      return Status::Invalid("ColumnarToRowConverter: column ", schema_->field(c).name, " is ",
                             batch.column(c).type->ToString(), ", the converter expects ",
                             schema_->field(c).type->ToString());
    }
  }
  if (start < 0 || count < 0 || start > batch.num_rows() - count) {
    return Status::Invalid("ColumnarToRowConverter: rows [", start, ", ", start + count,
                           ") are outside a batch of ", batch.num_rows());
  }
  const int64_t bytes_before = output->bytes.size();
  const size_t rows_before = output->offsets.size();
  for (int64_t chunk = start; chunk < start + count; chunk += row_internal::kChunkRows) {
    Status status = ConvertChunk(batch, chunk,
                                 std::min(row_internal::kChunkRows, start + count - chunk), output);
    if (!status.ok()) {
      output->bytes.Resize(bytes_before);
      output->offsets.resize(rows_before);
      output->sizes.resize(rows_before);
      return status;
    }
  }
  return Status::OK();
}

Status ColumnarToRowConverter::ConvertChunk(const RecordBatch& batch, int64_t start, int64_t count,
                                            UnsafeRowBatch* output) {
  using row_internal::FieldTargets;
  const row_internal::Selection rows{start, count, nullptr};
  const auto size_count = static_cast<size_t>(count);

  // Sizes pass: the fixed region, plus every variable-length column's bytes.
  row_sizes_.assign(size_count, fixed_bytes_);
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c]->variable()) {
      columns_[c]->AddFieldSizes(batch.column(c), rows, row_sizes_.data());
    }
  }
  const int64_t prefix = options_.framing == RowFraming::kSizePrefixed ? 4 : 0;
  int64_t total = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (row_sizes_[k] > row_internal::kMaxRowBytes) {
      return Status::Invalid("ColumnarToRowConverter: row ", start + k, " would take ",
                             row_sizes_[k], " bytes; a Spark row holds at most 2^31 - 1");
    }
    total += prefix + row_sizes_[k];
  }

  // Place the rows, write their size prefixes and zero their null bits.
  const int64_t base = output->bytes.size();
  output->bytes.Resize(base + total);
  uint8_t* out = output->bytes.data();
  row_starts_.resize(size_count);
  row_cursors_.resize(size_count);
  int64_t position = base;
  for (int64_t k = 0; k < count; ++k) {
    const auto size = static_cast<int32_t>(row_sizes_[k]);
    if (prefix > 0) {
      bits::StoreUnaligned<uint32_t>(out + position,
                                     bits::ToBigEndian32(static_cast<uint32_t>(size)));
      position += prefix;
    }
    row_starts_[k] = position;
    row_cursors_[k] = position + fixed_bytes_;
    if (bitset_bytes_ > 0) std::memset(out + position, 0, static_cast<size_t>(bitset_bytes_));
    output->offsets.push_back(position);
    output->sizes.push_back(size);
    position += size;
  }

  // Write pass, column by column.
  for (size_t c = 0; c < columns_.size(); ++c) {
    const ArrayData& column = batch.column(c);
    const auto field = static_cast<int64_t>(c);
    SLUICE_RETURN_NOT_OK(
        columns_[c]->WriteFields(column, rows,
                                 FieldTargets{out, row_starts_.data(), row_cursors_.data(),
                                              bitset_bytes_ + row_internal::kWordBytes * field}));
    row_internal::ForEachNull(column, start, count, [&](int64_t k) {
      row_internal::SetNullBit(out + row_starts_[k], field);
    });
  }
  for (int64_t k = 0; k < count; ++k) {
    SLUICE_DCHECK(row_cursors_[k] == row_starts_[k] + row_sizes_[k]);
  }
  return Status::OK();
}

}  // namespace sluice
