// Spark's RangePartitioner: a row goes to the first bound that is not below its key ("advance
// while key > bound"), so a key equal to a bound goes to that bound's partition and keys above
// every bound go to the last partition. Spark scans linearly up to 128 bounds and binary-searches
// beyond; for sorted bounds both give the number of bounds below the key, which is what is
// computed here either way (PartitionerOptions::range_linear_scan_max_bounds picks the faster).
//
// Column-wise search: bounds are sorted lexicographically by the key columns, so the bounds equal
// to a row's key in its first k columns form a contiguous range. Each row keeps such a range
// [lower, upper); each key column narrows it, in one typed pass over the column, to the bounds
// also equal in that column (a lower and an upper bound search inside the range). After the last
// column, `lower` is the number of bounds strictly below the key: the partition.
//
// Values are compared in a normalized form: fixed-width keys become unsigned integers whose order
// is the key order (sign bit flipped for signed values; floats with -0.0 folded into 0.0 and every
// NaN equal and above +infinity, as Spark orders them; every bit inverted for a descending key),
// strings and binaries compare as unsigned bytes, shorter prefix first (UTF8String.compareTo).
// Nulls sort first or last within each range, independent of the direction.
#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <string_view>
#include <type_traits>

#include "base/simd_dispatch_internal.h"
#include "partition/partitioner_internal.h"
#include "partition/row_prefetch_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/half_float.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/dictionary_values.h"
#include "sluice/format/type_visitor.h"

namespace sluice::internal {

namespace {

// One key column's bounds, and the search that narrows each row's range of bounds.
class RangeKey {
 public:
  virtual ~RangeKey() = default;

  // Narrows, for rows [first, first + count) of `keys`, each row's range [lower[k], upper[k]) of
  // candidate bounds to the bounds equal to the row's key in this column; lower[k] becomes the
  // first bound in the range that is not below the key. With `full_range` every range is all
  // bounds on entry and is not read; without `need_upper`, `upper` is not written.
  virtual void Narrow(const ArrayData& keys, int64_t first, int64_t count, bool full_range,
                      bool need_upper, uint32_t* lower, uint32_t* upper) const = 0;

  // Returns <0, 0 or >0 as bound row `a` sorts before, with or after bound row `b` in this column.
  virtual int CompareBounds(int64_t a, int64_t b) const = 0;
};

// Maps a fixed-width value to an unsigned integer with the same order.
template <typename T>
uint64_t OrderedBits(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    double widened = value;  // exact: float to double keeps order, zeros and NaN
    widened = widened == 0.0 ? 0.0 : widened;
    uint64_t bits = std::bit_cast<uint64_t>(widened);
    bits = widened != widened ? 0x7ff8000000000000ull : bits;
    return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(value)) ^ (uint64_t{1} << 63);
  } else {
    return static_cast<uint64_t>(value);
  }
}

// Readers return the normalized value at a physical index of a column.
template <typename T>
struct NumberReader {
  NumberReader(const ArrayData& array, bool descending)
      : values(reinterpret_cast<const T*>(array.buffers[1].data)),
        invert(descending ? ~uint64_t{0} : 0) {}
  uint64_t operator()(int64_t i) const { return OrderedBits(values[i]) ^ invert; }
  const T* values;
  uint64_t invert;
};

struct BooleanReader {
  BooleanReader(const ArrayData& array, bool descending)
      : values(array.buffers[1].data), invert(descending ? ~uint64_t{0} : 0) {}
  uint64_t operator()(int64_t i) const {
    return static_cast<uint64_t>(bits::GetBit(values, i)) ^ invert;
  }
  const uint8_t* values;
  uint64_t invert;
};

struct Decimal128Reader {
  Decimal128Reader(const ArrayData& array, bool descending)
      : values(array.buffers[1].data),
        invert(descending ? ~static_cast<unsigned __int128>(0) : 0) {}
  unsigned __int128 operator()(int64_t i) const {
    const uint64_t low = bits::LoadUnaligned<uint64_t>(values + 16 * i);
    const uint64_t high = bits::LoadUnaligned<uint64_t>(values + 16 * i + 8);
    const unsigned __int128 value = (static_cast<unsigned __int128>(high) << 64) | low;
    return (value ^ (static_cast<unsigned __int128>(1) << 127)) ^ invert;
  }
  const uint8_t* values;
  unsigned __int128 invert;
};

// Half floats, in the order of the floats they widen to.
struct HalfFloatReader {
  HalfFloatReader(const ArrayData& array, bool descending)
      : values(reinterpret_cast<const uint16_t*>(array.buffers[1].data)),
        invert(descending ? ~uint64_t{0} : 0) {}
  uint64_t operator()(int64_t i) const { return OrderedBits(HalfToFloat(values[i])) ^ invert; }
  const uint16_t* values;
  uint64_t invert;
};

// day_time intervals, by their length in milliseconds (a day taken as 86,400 seconds, as the
// hash partitioner takes it).
struct DayTimeIntervalReader {
  DayTimeIntervalReader(const ArrayData& array, bool descending)
      : values(array.buffers[1].data), invert(descending ? ~uint64_t{0} : 0) {}
  uint64_t operator()(int64_t i) const {
    const int64_t days = bits::LoadUnaligned<int32_t>(values + 8 * i);
    const int64_t millis = bits::LoadUnaligned<int32_t>(values + 8 * i + 4);
    return OrderedBits(days * kMillisPerDay + millis) ^ invert;
  }
  const uint8_t* values;
  uint64_t invert;
};

// 256-bit decimals as four 64-bit words, most significant first with its sign bit flipped, so
// that the words compare lexicographically as the values do.
struct Decimal256Reader {
  Decimal256Reader(const ArrayData& array, bool descending)
      : values(array.buffers[1].data), invert(descending ? ~uint64_t{0} : 0) {}
  std::array<uint64_t, 4> operator()(int64_t i) const {
    const uint8_t* slot = values + 32 * i;
    return {bits::LoadUnaligned<uint64_t>(slot + 24) ^ (uint64_t{1} << 63) ^ invert,
            bits::LoadUnaligned<uint64_t>(slot + 16) ^ invert,
            bits::LoadUnaligned<uint64_t>(slot + 8) ^ invert,
            bits::LoadUnaligned<uint64_t>(slot) ^ invert};
  }
  const uint8_t* values;
  uint64_t invert;
};

// Binary-like values; the direction is applied by the comparison instead.
template <typename Offset>
struct BytesReader {
  BytesReader(const ArrayData& array, bool /*descending*/)
      : offsets(reinterpret_cast<const Offset*>(array.buffers[1].data)),
        bytes(reinterpret_cast<const char*>(array.buffers[2].data)) {}
  std::string_view operator()(int64_t i) const {
    return {bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }
  const Offset* offsets;
  const char* bytes;
};

// binary_view and utf8_view, read as the bytes they hold (physical index, as the others).
struct ViewBytesReader {
  ViewBytesReader(const ArrayData& array, bool /*descending*/)
      : views(array.buffers[1].data), variadic(array.variadic_buffers.data()) {}
  std::string_view operator()(int64_t i) const { return ViewBytes(views + i * 16, variadic); }
  const uint8_t* views;
  const BufferView* variadic;
};

struct FixedBytesReader {
  FixedBytesReader(const ArrayData& array, bool /*descending*/)
      : bytes(reinterpret_cast<const char*>(array.buffers[1].data)),
        width(array.type->byte_width()) {}
  std::string_view operator()(int64_t i) const {
    return {bytes + i * width, static_cast<size_t>(width)};
  }
  const char* bytes;
  int64_t width;
};

// string_view compares as unsigned bytes (char_traits<char>::lt), shorter prefix first.
struct DescendingLess {
  bool operator()(std::string_view a, std::string_view b) const { return b < a; }
};

// Returns begin + the number of values in [begin, end) for which `below(value)` holds; `below`
// must hold for a prefix of the range only. Linear: a branch-free count; otherwise a branch-free
// binary search.
template <bool kLinear, typename Value, typename Below>
uint32_t CountBelow(const Value* values, uint32_t begin, uint32_t end, Below below) {
  if constexpr (kLinear) {
    uint32_t count = 0;
    for (uint32_t j = begin; j < end; ++j) count += below(values[j]) ? 1 : 0;
    return begin + count;
  } else {
    uint32_t length = end - begin;
    if (length == 0) return begin;
    const Value* base = values + begin;
    while (length > 1) {
      const uint32_t half = length / 2;
      base = below(base[half]) ? base + half : base;
      length -= half;
    }
    return static_cast<uint32_t>(base - values) + (below(*base) ? 1 : 0);
  }
}

// Rows per lock-step group of the binary search.
constexpr int64_t kGroupRows = 16;

// For each of kGroupRows keys, writes begin + the number of values in [begin, end) below it
// (`below(value, key)` holds for a prefix of the range), searching all keys in lock step.
template <typename Value, typename Below>
void LockStepCount(const Value* values, uint32_t begin, uint32_t end, const Value* keys,
                   uint32_t* out, Below below) {
  uint32_t position[kGroupRows];
  for (int64_t g = 0; g < kGroupRows; ++g) position[g] = begin;
  uint32_t length = end - begin;
  if (length == 0) {
    for (int64_t g = 0; g < kGroupRows; ++g) out[g] = begin;
    return;
  }
  while (length > 1) {
    const uint32_t half = length / 2;
    for (int64_t g = 0; g < kGroupRows; ++g) {
      position[g] = below(values[position[g] + half], keys[g]) ? position[g] + half : position[g];
    }
    length -= half;
  }
  for (int64_t g = 0; g < kGroupRows; ++g) {
    out[g] = position[g] + (below(values[position[g]], keys[g]) ? 1 : 0);
  }
}

// As LockStepCount, by a linear scan: each bound is compared with every key of the group, which
// the compiler turns into vector compares. Faster than the binary search for few bounds.
template <typename Value, typename Below>
inline __attribute__((always_inline)) void LockStepLinearCountLoop(const Value* values,
                                                                   uint32_t begin, uint32_t end,
                                                                   const Value* keys, uint32_t* out,
                                                                   Below below) {
  uint32_t counts[kGroupRows] = {};
  for (uint32_t j = begin; j < end; ++j) {
    const Value bound = values[j];
    for (int64_t g = 0; g < kGroupRows; ++g) counts[g] += below(bound, keys[g]) ? 1 : 0;
  }
  for (int64_t g = 0; g < kGroupRows; ++g) out[g] = begin + counts[g];
}

#if SLUICE_HAVE_AVX2_DISPATCH
template <typename Value, typename Below>
SLUICE_TARGET_AVX2 void LockStepLinearCountAvx2(const Value* values, uint32_t begin, uint32_t end,
                                                const Value* keys, uint32_t* out, Below below) {
  LockStepLinearCountLoop(values, begin, end, keys, out, below);
}
#endif

template <bool kLinear, typename Value, typename Below>
void LockStepSearch(const Value* values, uint32_t begin, uint32_t end, const Value* keys,
                    uint32_t* out, Below below) {
  if constexpr (kLinear) {
#if SLUICE_HAVE_AVX2_DISPATCH
    if (CpuHasAvx2()) return LockStepLinearCountAvx2(values, begin, end, keys, out, below);
#endif
    LockStepLinearCountLoop(values, begin, end, keys, out, below);
  } else {
    LockStepCount(values, begin, end, keys, out, below);
  }
}

template <typename Reader, typename Less>
class TypedRangeKey final : public RangeKey {
 public:
  using Value = std::invoke_result_t<Reader, int64_t>;

  TypedRangeKey(const ArrayData& bounds, SortOrder order, bool linear)
      : descending_(order.direction == SortDirection::kDescending),
        nulls_first_(order.null_ordering == NullOrdering::kNullsFirst),
        linear_(linear),
        bound_count_(static_cast<uint32_t>(bounds.length)) {
    const Reader reader(bounds, descending_);
    values_.resize(bound_count_);
    is_null_.resize(bound_count_);
    nulls_before_.resize(bound_count_ + 1);
    nulls_before_[0] = 0;
    for (uint32_t j = 0; j < bound_count_; ++j) {
      is_null_[j] = bounds.IsNull(j) ? 1 : 0;
      if (!is_null_[j]) values_[j] = reader(bounds.offset + j);
      nulls_before_[j + 1] = nulls_before_[j] + is_null_[j];
    }
  }

  void Narrow(const ArrayData& keys, int64_t first, int64_t count, bool full_range, bool need_upper,
              uint32_t* lower, uint32_t* upper) const override {
    if (full_range) {
      if (need_upper) return Dispatch<true, true>(keys, first, count, lower, upper);
      return Dispatch<true, false>(keys, first, count, lower, upper);
    }
    if (need_upper) return Dispatch<false, true>(keys, first, count, lower, upper);
    return Dispatch<false, false>(keys, first, count, lower, upper);
  }

  int CompareBounds(int64_t a, int64_t b) const override {
    if (is_null_[a] || is_null_[b]) {
      if (is_null_[a] && is_null_[b]) return 0;
      const int null_side = nulls_first_ ? -1 : 1;
      return is_null_[a] ? null_side : -null_side;
    }
    const Less less;
    if (less(values_[a], values_[b])) return -1;
    return less(values_[b], values_[a]) ? 1 : 0;
  }

 private:
  template <bool kFullRange, bool kNeedUpper>
  void Dispatch(const ArrayData& keys, int64_t first, int64_t count, uint32_t* lower,
                uint32_t* upper) const {
    if (linear_) return Run<kFullRange, kNeedUpper, true>(keys, first, count, lower, upper);
    return Run<kFullRange, kNeedUpper, false>(keys, first, count, lower, upper);
  }

  template <bool kFullRange, bool kNeedUpper, bool kLinear>
  void Run(const ArrayData& keys, int64_t first, int64_t count, uint32_t* lower,
           uint32_t* upper) const {
    const Reader reader(keys, descending_);
    const Less less;
    const uint8_t* validity = keys.null_count != 0 ? keys.buffers[0].data : nullptr;
    const int64_t base = keys.offset + first;
    const Value* values = values_.data();
    // One row's search within its range.
    auto search_row = [&](int64_t k) {
      const uint32_t range_begin = kFullRange ? 0 : lower[k];
      const uint32_t range_end = kFullRange ? bound_count_ : upper[k];
      const uint32_t nulls = nulls_before_[range_end] - nulls_before_[range_begin];
      uint32_t new_lower;
      uint32_t new_upper = 0;
      if (validity != nullptr && !bits::GetBit(validity, base + k)) {
        // A null key equals the null bounds of the range and sorts with them.
        new_lower = nulls_first_ ? range_begin : range_end - nulls;
        new_upper = nulls_first_ ? range_begin + nulls : range_end;
      } else {
        // Nulls first: a non-null key sorts after the range's null bounds; nulls last: before.
        const uint32_t begin = nulls_first_ ? range_begin + nulls : range_begin;
        const uint32_t end = nulls_first_ ? range_end : range_end - nulls;
        const Value key = reader(base + k);
        new_lower = CountBelow<kLinear>(values, begin, end,
                                        [&](const Value& bound) { return less(bound, key); });
        if constexpr (kNeedUpper) {
          new_upper = CountBelow<kLinear>(values, new_lower, end,
                                          [&](const Value& bound) { return !less(key, bound); });
        }
      }
      lower[k] = new_lower;
      if constexpr (kNeedUpper) upper[k] = new_upper;
    };
    int64_t k = 0;
    if constexpr (kFullRange) {
      // Every row searches the same range, so groups of rows can search in lock step: each step
      // of the binary search is independent across the group, which keeps the CPU busy instead
      // of waiting on one row's chain of dependent loads. Null keys are searched too (their
      // slots hold readable values) and get the null answer written over afterwards.
      const uint32_t nulls = nulls_before_[bound_count_];
      const uint32_t begin = nulls_first_ ? nulls : 0;
      const uint32_t end = nulls_first_ ? bound_count_ : bound_count_ - nulls;
      for (; k + kGroupRows <= count; k += kGroupRows) {
        Value group_keys[kGroupRows];
        for (int64_t g = 0; g < kGroupRows; ++g) group_keys[g] = reader(base + k + g);
        LockStepSearch<kLinear>(
            values, begin, end, group_keys, lower + k,
            [&](const Value& bound, const Value& key) { return less(bound, key); });
        if constexpr (kNeedUpper) {
          LockStepSearch<kLinear>(
              values, begin, end, group_keys, upper + k,
              [&](const Value& bound, const Value& key) { return !less(key, bound); });
        }
        if (validity != nullptr) {
          for (int64_t g = 0; g < kGroupRows; ++g) {
            if (bits::GetBit(validity, base + k + g)) continue;
            lower[k + g] = nulls_first_ ? 0 : bound_count_ - nulls;
            if constexpr (kNeedUpper) upper[k + g] = nulls_first_ ? nulls : bound_count_;
          }
        }
      }
    }
    for (; k < count; ++k) search_row(k);
  }

  bool descending_;
  bool nulls_first_;
  bool linear_;
  uint32_t bound_count_;
  std::vector<Value> values_;           // normalized bounds; unused where the bound is null
  std::vector<uint8_t> is_null_;        // per bound
  std::vector<uint32_t> nulls_before_;  // null bounds in [0, j), to count nulls in a range
};

// A key of the null type: every key and every bound is null, so all bounds of a range are equal
// to the key and the range stays as it is.
class NullRangeKey final : public RangeKey {
 public:
  explicit NullRangeKey(uint32_t bound_count) : bound_count_(bound_count) {}

  void Narrow(const ArrayData& /*keys*/, int64_t /*first*/, int64_t count, bool full_range,
              bool need_upper, uint32_t* lower, uint32_t* upper) const override {
    if (!full_range) return;
    std::fill(lower, lower + count, 0u);
    if (need_upper) std::fill(upper, upper + count, bound_count_);
  }
  int CompareBounds(int64_t /*a*/, int64_t /*b*/) const override { return 0; }

 private:
  uint32_t bound_count_;
};

template <typename Reader>
std::unique_ptr<RangeKey> MakeTypedKey(const ArrayData& bounds, SortOrder order, bool linear) {
  return std::make_unique<TypedRangeKey<Reader, std::less<>>>(bounds, order, linear);
}

template <typename Reader>
std::unique_ptr<RangeKey> MakeBytesKey(const ArrayData& bounds, SortOrder order, bool linear) {
  if (order.direction == SortDirection::kDescending) {
    return std::make_unique<TypedRangeKey<Reader, DescendingLess>>(bounds, order, linear);
  }
  return std::make_unique<TypedRangeKey<Reader, std::less<>>>(bounds, order, linear);
}

// A run-end encoded or dictionary key compares as the values its runs or indices select: the
// bounds are expanded to their values once, and each chunk of keys before the values' key
// narrows it.
class ExpandedRangeKey final : public RangeKey {
 public:
  // `bound_owners` keep the expanded bounds' buffers, which `values_key` may view, alive.
  ExpandedRangeKey(std::vector<MemoryOwner> bound_owners, std::unique_ptr<RangeKey> values_key)
      : bound_owners_(std::move(bound_owners)), values_key_(std::move(values_key)) {}

  static bool Expands(TypeId id) {
    return id == TypeId::kRunEndEncoded || id == TypeId::kDictionary;
  }

  // Rows [first, first + count) of a run-end encoded or dictionary array as an array of its
  // values' type.
  static ArrayData Expand(const ArrayData& column, int64_t first, int64_t count,
                          std::vector<MemoryOwner>* owners) {
    if (column.type->id() == TypeId::kDictionary) {
      const ArrayData& values = column.children[0];
      ArrayBuilder builder(values.type);
      for (int64_t row = first; row < first + count; ++row) {
        if (column.IsNull(row)) {
          builder.AppendNull();
        } else {
          AppendArrayValue(builder, values, DictionaryIndexAt(column, row));
        }
      }
      return builder.Finish(owners);
    }
    const ArrayData& values = column.children[1];
    ArrayBuilder builder(values.type);
    for (int64_t row = first; row < first + count; ++row) {
      AppendArrayValue(builder, values, RunEndPhysicalIndex(column, row));
    }
    return builder.Finish(owners);
  }

  void Narrow(const ArrayData& keys, int64_t first, int64_t count, bool full_range, bool need_upper,
              uint32_t* lower, uint32_t* upper) const override {
    std::vector<MemoryOwner> owners;
    const ArrayData expanded = Expand(keys, first, count, &owners);
    values_key_->Narrow(expanded, 0, count, full_range, need_upper, lower, upper);
  }

  int CompareBounds(int64_t a, int64_t b) const override {
    return values_key_->CompareBounds(a, b);
  }

 private:
  std::vector<MemoryOwner> bound_owners_;
  std::unique_ptr<RangeKey> values_key_;
};

Result<std::unique_ptr<RangeKey>> MakeRangeKey(const ArrayData& bounds, SortOrder order,
                                               bool linear, int column_index) {
  if (ExpandedRangeKey::Expands(bounds.type->id())) {
    std::vector<MemoryOwner> owners;
    const ArrayData values = ExpandedRangeKey::Expand(bounds, 0, bounds.length, &owners);
    SLUICE_ASSIGN_OR_RAISE(auto values_key, MakeRangeKey(values, order, linear, column_index));
    return std::unique_ptr<RangeKey>(
        std::make_unique<ExpandedRangeKey>(std::move(owners), std::move(values_key)));
  }
  std::unique_ptr<RangeKey> number_key = VisitNumberType(
      bounds.type->id(),
      [&](auto type) {
        using Number = typename decltype(type)::type;
        return std::unique_ptr<RangeKey>(MakeTypedKey<NumberReader<Number>>(bounds, order, linear));
      },
      [] { return std::unique_ptr<RangeKey>(); });
  if (number_key != nullptr) return number_key;
  switch (bounds.type->id()) {
    case TypeId::kNull:
      return std::unique_ptr<RangeKey>(
          std::make_unique<NullRangeKey>(static_cast<uint32_t>(bounds.length)));
    case TypeId::kBoolean:
      return MakeTypedKey<BooleanReader>(bounds, order, linear);
    case TypeId::kFloat16:
      return MakeTypedKey<HalfFloatReader>(bounds, order, linear);
    case TypeId::kIntervalDayTime:
      return MakeTypedKey<DayTimeIntervalReader>(bounds, order, linear);
    case TypeId::kDecimal128:
      return MakeTypedKey<Decimal128Reader>(bounds, order, linear);
    case TypeId::kDecimal256:
      return MakeTypedKey<Decimal256Reader>(bounds, order, linear);
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return MakeBytesKey<BytesReader<int32_t>>(bounds, order, linear);
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      return MakeBytesKey<BytesReader<int64_t>>(bounds, order, linear);
    case TypeId::kFixedSizeBinary:
      return MakeBytesKey<FixedBytesReader>(bounds, order, linear);
    case TypeId::kBinaryView:
    case TypeId::kUtf8View:
      return MakeBytesKey<ViewBytesReader>(bounds, order, linear);
    // Taken above: the numbers (VisitNumberType) and run-end encoded columns.
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kIntervalYearMonth:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kRunEndEncoded:
    case TypeId::kIntervalMonthDayNano:
      // Months, days and nanoseconds have no one order (a month is not a number of days), as
      // Spark's CalendarInterval has none.
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kDictionary:
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:
      break;
  }
  return Status::NotImplemented("range partitioning on key column ", column_index, " of type ",
                                bounds.type->ToString(),
                                " is not supported: only flat types (booleans, integers, floats, "
                                "dates, times, timestamps, durations, year-month and day-time "
                                "intervals, decimals, strings, binaries and their views, and "
                                "run-end encoded and dictionary columns of those) can be compared");
}

class RangePartitioner final : public Partitioner {
 public:
  RangePartitioner(KeyColumns keys, RecordBatch bounds,
                   std::vector<std::unique_ptr<RangeKey>> range_keys)
      : keys_(std::move(keys)),
        bounds_(std::move(bounds)),
        range_keys_(std::move(range_keys)),
        partition_count_(static_cast<int32_t>(bounds_.num_rows() + 1)) {
    if (range_keys_.size() > 1) upper_.resize(static_cast<size_t>(kPartitionChunkRows));
  }

  PartitionKind kind() const override { return PartitionKind::kRange; }
  int32_t partition_count() const override { return partition_count_; }

  Status Partition(const RecordBatch& batch, uint32_t* partition_ids) override {
    SLUICE_RETURN_NOT_OK(keys_.Check(batch));
    const int64_t rows = batch.num_rows();
    const size_t key_count = range_keys_.size();
    for (int64_t first = 0; first < rows; first += kPartitionChunkRows) {
      const int64_t count = std::min(kPartitionChunkRows, rows - first);
      PrefetchAhead(batch, keys_.indices(), first, count);
      for (size_t c = 0; c < key_count; ++c) {
        const ArrayData& column = batch.column(static_cast<size_t>(keys_.indices()[c]));
        range_keys_[c]->Narrow(column, first, count, c == 0, c + 1 < key_count,
                               partition_ids + first, upper_.data());
      }
    }
    return Status::OK();
  }

  // Returns OK when the bounds are sorted (not strictly) by the key orders.
  Status CheckSorted() const {
    for (int64_t row = 0; row + 1 < bounds_.num_rows(); ++row) {
      for (const auto& key : range_keys_) {
        const int comparison = key->CompareBounds(row, row + 1);
        if (comparison < 0) break;
        if (comparison > 0) {
          return Status::Invalid("range bounds are not sorted by the sort orders: bound row ", row,
                                 " sorts after bound row ", row + 1);
        }
      }
    }
    return Status::OK();
  }

 private:
  KeyColumns keys_;
  RecordBatch bounds_;  // keeps the bound values (and string bytes) alive
  std::vector<std::unique_ptr<RangeKey>> range_keys_;
  int32_t partition_count_;
  std::vector<uint32_t> upper_;  // scratch: each row's range end, for keys of several columns
};

}  // namespace

Result<std::unique_ptr<Partitioner>> MakeRangePartitioner(const PartitionerOptions& options,
                                                          const Schema& schema) {
  const RecordBatch& bounds = options.range_bounds;
  const size_t key_count = options.key_columns.size();
  if (key_count == 0) return Status::Invalid("range partitioning needs at least one key column");
  if (bounds.num_columns() != key_count) {
    return Status::Invalid("range partitioning has ", key_count,
                           " key columns but the bounds have ", bounds.num_columns(),
                           " columns: give one bounds column per key");
  }
  if (bounds.num_rows() >= INT32_MAX) {
    return Status::Invalid("range partitioning with ", bounds.num_rows(),
                           " bounds has too many partitions: at most ", INT32_MAX - 1,
                           " bounds are supported");
  }
  const int64_t derived_count = bounds.num_rows() + 1;
  if (options.partition_count != 0 && options.partition_count != derived_count) {
    return Status::Invalid("range partitioning with ", bounds.num_rows(), " bounds has ",
                           derived_count, " partitions, but partition_count is ",
                           options.partition_count);
  }
  if (!options.sort_orders.empty() && options.sort_orders.size() != key_count) {
    return Status::Invalid("range partitioning has ", key_count, " key columns but ",
                           options.sort_orders.size(), " sort orders: give one per key or none");
  }
  SLUICE_ASSIGN_OR_RAISE(KeyColumns keys,
                         KeyColumns::Make(options.key_columns, schema, "range key"));
  const bool linear = bounds.num_rows() <= options.range_linear_scan_max_bounds;
  std::vector<std::unique_ptr<RangeKey>> range_keys;
  for (size_t c = 0; c < key_count; ++c) {
    const ArrayData& bounds_column = bounds.column(c);
    const int column_index = keys.indices()[c];
    if (!bounds_column.type->Equals(*keys.types()[c])) {
      return Status::Invalid("range bounds column ", c, " has type ",
                             bounds_column.type->ToString(), " but key column ", column_index,
                             " has type ", keys.types()[c]->ToString());
    }
    if (bounds_column.length != bounds.num_rows()) {
      return Status::Invalid("range bounds column ", c, " has ", bounds_column.length,
                             " rows but the bounds batch has ", bounds.num_rows());
    }
    const SortOrder order = options.sort_orders.empty() ? SortOrder{} : options.sort_orders[c];
    SLUICE_ASSIGN_OR_RAISE(auto range_key,
                           MakeRangeKey(bounds_column, order, linear, column_index));
    range_keys.push_back(std::move(range_key));
  }
  auto partitioner =
      std::make_unique<RangePartitioner>(std::move(keys), bounds, std::move(range_keys));
  SLUICE_RETURN_NOT_OK(partitioner->CheckSorted());
  return std::unique_ptr<Partitioner>(std::move(partitioner));
}

}  // namespace sluice::internal
