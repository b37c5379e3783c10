// The columnar type system: the Arrow types a shuffle carries.
//
// Sluice moves Arrow data, so its types are Arrow's, restricted to those a Spark-class engine
// shuffles: null, boolean, signed and unsigned integers, half, single and double floats,
// date32/64, time32/64, timestamps, durations, the three intervals, decimal32/64/128/256, the four
// variable-length binary types, fixed-size binary, list, large list, fixed-size list, struct and
// map, and dictionary-encoded columns (kept encoded through the shuffle; importers unpack them
// only when asked).
//
// Types are immutable and shared (`TypePtr`). Arrays refer to their type by plain pointer
// (`ArrayData::type`); the Schema or batch that owns the arrays keeps the types alive.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/format/key_value_metadata.h"

namespace sluice {

/// Identifies a type's logical kind and, with its parameters, its physical layout.
enum class TypeId : uint8_t {
  kNull,
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kDate32,                ///< Days since the UNIX epoch, int32.
  kTimestamp,             ///< int64 in `unit` since the UNIX epoch, with an optional time zone.
  kDecimal128,            ///< 16-byte little-endian two's-complement unscaled value.
  kUtf8,                  ///< int32 offsets.
  kLargeUtf8,             ///< int64 offsets.
  kBinary,                ///< int32 offsets.
  kLargeBinary,           ///< int64 offsets.
  kFixedSizeBinary,       ///< `byte_width` bytes per value.
  kList,                  ///< int32 offsets into one child.
  kLargeList,             ///< int64 offsets into one child.
  kStruct,                ///< One child per field, same length as the parent.
  kMap,                   ///< int32 offsets into one child: a non-null struct<key, value>.
  kFloat16,               ///< IEEE 754 half precision, 2 bytes.
  kDate64,                ///< Milliseconds since the UNIX epoch, int64.
  kTime32,                ///< int32 in `unit` (s or ms) since midnight.
  kTime64,                ///< int64 in `unit` (us or ns) since midnight.
  kDuration,              ///< int64 in `unit`.
  kIntervalYearMonth,     ///< int32 months.
  kIntervalDayTime,       ///< int32 days, then int32 milliseconds.
  kIntervalMonthDayNano,  ///< int32 months, int32 days, then int64 nanoseconds.
  kDecimal32,             ///< 4-byte little-endian two's-complement unscaled value.
  kDecimal64,             ///< 8-byte unscaled value.
  kDecimal256,            ///< 32-byte unscaled value.
  kFixedSizeList,         ///< `list_size` elements of one child per row; no offsets.
  kBinaryView,     ///< 16-byte views: inline values of <= 12 bytes, else into variadic buffers.
  kUtf8View,       ///< kBinaryView holding UTF-8.
  kListView,       ///< int32 offsets and int32 sizes into one child, in any order.
  kLargeListView,  ///< int64 offsets and sizes.
  kRunEndEncoded,  ///< No buffers: children run_ends (int16/32/64) and values, one per run.
  kSparseUnion,    ///< int8 type ids (buffers[0]); every child as long as the union.
  kDenseUnion,     ///< int8 type ids (buffers[0]), int32 offsets into the child (buffers[1]).
  kDictionary,     ///< Integer indices (buffers[1]) into a dictionary of values (children[0]).
};

/// The resolution of a timestamp.
enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

class DataType;
/// A shared, immutable type.
using TypePtr = std::shared_ptr<const DataType>;

/// A named, typed slot: a column of a schema or a child of a nested type.
struct Field {
  std::string name;
  TypePtr type;
  bool nullable = true;
  /// The field's custom_metadata (an extension type's name and metadata among it), carried
  /// through import, IPC and export unchanged.
  KeyValueMetadata metadata = {};

  /// Returns true when name, nullability and type are equal; metadata is not compared (as in
  /// Arrow: a batch whose fields lack the schema's metadata still has the schema's columns).
  bool Equals(const Field& other) const;
  /// Returns "name: type" with " not null" when the field is not nullable, and the extension
  /// type as "extension<NAME>" before the storage type where the field has one.
  std::string ToString() const;
};

/// Describes a type: its id, its parameters and, for nested types, its children.
class DataType {
 public:
  TypeId id() const { return id_; }
  /// Returns the children: the element of a list, the fields of a struct, the entries struct of
  /// a map. Empty for other types.
  const std::vector<Field>& children() const { return children_; }
  const DataType& child_type(size_t index) const { return *children_[index].type; }

  TimeUnit time_unit() const { return time_unit_; }          ///< Timestamps, times and durations.
  const std::string& timezone() const { return timezone_; }  ///< kTimestamp only; empty if none.
  int32_t precision() const { return precision_; }           ///< Decimals only.
  int32_t scale() const { return scale_; }                   ///< Decimals only.
  int32_t byte_width() const { return byte_width_; }         ///< kFixedSizeBinary only.
  int32_t list_size() const { return list_size_; }           ///< kFixedSizeList only.
  bool keys_sorted() const { return keys_sorted_; }          ///< kMap only.
  /// Unions only: the type id of each child, in child order (Arrow's typeIds; 0, 1, ... when
  /// a producer gives none).
  const std::vector<int8_t>& type_codes() const { return type_codes_; }
  /// Unions only: the child holding type id `code` (0 to 127), or -1 when no child has it.
  int child_for_type_code(int8_t code) const {
    return code >= 0 ? child_for_code_[static_cast<uint8_t>(code)] : -1;
  }

  /// kDictionary only: the integer type of the indices and the type of the dictionary's values.
  /// The values are not a child: a RecordBatch lays out the indices, and the values travel in
  /// DictionaryBatch messages (an ArrayData holds them as children[0]).
  const TypePtr& index_type() const { return index_type_; }
  const TypePtr& value_type() const { return value_type_; }
  bool ordered() const { return ordered_; }  ///< kDictionary only.

  /// Returns true when both types and all their parameters and children are equal.
  bool Equals(const DataType& other) const;
  /// Returns a readable form such as "list<item: int64>" or "timestamp[us, tz=UTC]".
  std::string ToString() const;

  static TypePtr Null();
  static TypePtr Boolean();
  static TypePtr Int8();
  static TypePtr Int16();
  static TypePtr Int32();
  static TypePtr Int64();
  static TypePtr UInt8();
  static TypePtr UInt16();
  static TypePtr UInt32();
  static TypePtr UInt64();
  static TypePtr Float16();
  static TypePtr Float32();
  static TypePtr Float64();
  static TypePtr Date32();
  static TypePtr Date64();
  /// time32 takes s or ms, time64 us or ns (checked by the importers, as Arrow requires).
  static TypePtr Time32(TimeUnit unit);
  static TypePtr Time64(TimeUnit unit);
  static TypePtr Timestamp(TimeUnit unit, std::string timezone = "");
  static TypePtr Duration(TimeUnit unit);
  static TypePtr IntervalYearMonth();
  static TypePtr IntervalDayTime();
  static TypePtr IntervalMonthDayNano();
  static TypePtr Decimal32(int32_t precision, int32_t scale);
  static TypePtr Decimal64(int32_t precision, int32_t scale);
  static TypePtr Decimal128(int32_t precision, int32_t scale);
  static TypePtr Decimal256(int32_t precision, int32_t scale);
  /// The decimal type of `bit_width` (32, 64, 128 or 256) bits.
  static TypePtr Decimal(int32_t bit_width, int32_t precision, int32_t scale);
  static TypePtr Utf8();
  static TypePtr LargeUtf8();
  static TypePtr Binary();
  static TypePtr LargeBinary();
  static TypePtr FixedSizeBinary(int32_t byte_width);
  static TypePtr BinaryView();
  static TypePtr Utf8View();
  /// Builds list<item>. The element field is named "item" unless given whole.
  static TypePtr List(TypePtr element, bool element_nullable = true);
  static TypePtr List(Field element);
  static TypePtr LargeList(TypePtr element, bool element_nullable = true);
  static TypePtr LargeList(Field element);
  /// Builds list_view<item> and large_list_view<item>: each row an offset and a size into the
  /// child, rows in any order, overlapping or not.
  static TypePtr ListView(TypePtr element, bool element_nullable = true);
  static TypePtr ListView(Field element);
  static TypePtr LargeListView(TypePtr element, bool element_nullable = true);
  static TypePtr LargeListView(Field element);
  /// Builds fixed_size_list<item>[list_size]; the element field is named "item" unless given.
  static TypePtr FixedSizeList(TypePtr element, int32_t list_size, bool element_nullable = true);
  static TypePtr FixedSizeList(Field element, int32_t list_size);
  /// Builds run_end_encoded<run_ends: R, values: V>: children "run_ends" (int16, int32 or
  /// int64, not null) and "values" (nullable), as Arrow names them.
  static TypePtr RunEndEncoded(TypePtr run_end_type, TypePtr value_type);
  /// Builds sparse_union<...> or dense_union<...> of `fields`, child i holding the rows whose
  /// type id is type_codes[i] (distinct, 0 to 127).
  static TypePtr SparseUnion(std::vector<Field> fields, std::vector<int8_t> type_codes);
  static TypePtr DenseUnion(std::vector<Field> fields, std::vector<int8_t> type_codes);
  static TypePtr Struct(std::vector<Field> fields);
  /// Builds dictionary<values=V, indices=I, ordered=0>: `index_type` a signed or unsigned
  /// integer type.
  static TypePtr Dictionary(TypePtr index_type, TypePtr value_type, bool ordered = false);
  /// Builds map<key, value> as Arrow lays it out: entries: struct<key not null, value>, not null.
  static TypePtr Map(TypePtr key, TypePtr value, bool value_nullable = true,
                     bool keys_sorted = false);
  /// Builds a map from an explicit entries field (a struct of two fields); names are kept.
  static TypePtr Map(Field entries, bool keys_sorted = false);

 private:
  explicit DataType(TypeId id) : id_(id) {}
  static TypePtr WithTimeUnit(TypeId id, TimeUnit unit);
  static TypePtr Union(TypeId id, std::vector<Field> fields, std::vector<int8_t> type_codes);

  TypeId id_;
  TimeUnit time_unit_ = TimeUnit::kSecond;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  int32_t byte_width_ = 0;
  int32_t list_size_ = 0;
  bool keys_sorted_ = false;
  std::vector<int8_t> type_codes_;
  std::array<int8_t, 128> child_for_code_{};
  std::string timezone_;
  std::vector<Field> children_;
  TypePtr index_type_;
  TypePtr value_type_;
  bool ordered_ = false;
};

/// Returns a readable name of a type id, such as "int32".
std::string_view TypeIdName(TypeId id);

/// Returns a readable name of a time unit: "s", "ms", "us" or "ns".
std::string_view TimeUnitName(TimeUnit unit);

/// Returns how many of `unit` make a second: 1, 1,000, 1,000,000 or 1,000,000,000.
constexpr int64_t TicksPerSecond(TimeUnit unit) {
  constexpr int64_t kTicks[] = {1, 1'000, 1'000'000, 1'000'000'000};
  return kTicks[static_cast<int>(unit)];
}

/// Milliseconds in a day as date64, day_time intervals and the hash rules count them.
inline constexpr int64_t kMillisPerDay = 86'400'000;

/// Returns true when values of `id` are stored as fixed-width slots in buffer 1
/// (booleans are bit-packed and count as fixed width with `BitWidth` 1).
bool IsFixedWidth(TypeId id);

/// Returns the number of bits per value of a fixed-width type (1 for boolean), 0 otherwise.
int64_t BitWidth(const DataType& type);

/// Returns true for decimal32, decimal64, decimal128 and decimal256.
bool IsDecimal(TypeId id);

/// Returns the most decimal digits a decimal type of this id holds: 9, 18, 38 or 76.
int32_t MaxDecimalPrecision(TypeId id);

/// Returns true for utf8, binary and their large variants.
bool IsBinaryLike(TypeId id);

/// Returns true for binary_view and utf8_view: 16-byte views and variadic data buffers
/// (ArrayData::variadic_buffers).
bool IsBinaryView(TypeId id);

/// Returns how many binary_view and utf8_view types `type` is or holds (each has an entry in an
/// IPC RecordBatch's variadic buffer counts).
int CountBinaryViews(const DataType& type);

/// Returns true for large_utf8, large_binary and large_list (64-bit offsets).
bool HasLargeOffsets(TypeId id);

/// Returns true for list_view and large_list_view (offsets and sizes: ArrayData::buffers[1]
/// and [2]).
bool IsListView(TypeId id);

/// Returns true for the run end types of run_end_encoded: int16, int32 and int64.
bool IsRunEndType(TypeId id);

/// Returns true for sparse and dense unions.
bool IsUnion(TypeId id);

/// Returns true for the signed and unsigned integer types (dictionary index types).
bool IsInteger(TypeId id);

/// Returns true when `type` is or holds a dictionary-encoded type.
bool HasDictionary(const DataType& type);

/// Returns a nested type like `type` (list, large list, list views, fixed-size list, map,
/// run-end encoded, unions, struct) with `children` for its children.
TypePtr WithChildren(const DataType& type, std::vector<Field> children);

/// Returns the number of buffers an array of this type has in Arrow's layout, the validity
/// bitmap included (a union has none: its type ids are buffer 0, a dense union's offsets buffer
/// 1): 0 for null and run-end encoded, 1 for a sparse union, for struct and fixed-size list, 2 for
/// fixed-width, dictionary (validity and indices), list and map (and the validity and views of a
/// view type, whose variadic buffers come after them), 3 for binary-like and list views (validity,
/// offsets, sizes).
int BufferCount(TypeId id);

/// Builds a Field.
inline Field MakeField(std::string name, TypePtr type, bool nullable = true) {
  return Field{std::move(name), std::move(type), nullable};
}

}  // namespace sluice
