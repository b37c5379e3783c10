// ArrayData: a borrowed view of one Arrow array in Arrow's physical layout.
//
// An ArrayData does not own memory: its buffers live as long as the RecordBatch (or other owner)
// that holds it, and its type lives as long as that batch's Schema. This keeps decoding and
// importing free of per-column reference counting: a batch keeps a few owners alive, and every
// view inside it is plain pointers and lengths.
//
// Buffers follow Arrow's order: buffers[0] is the validity bitmap (null data means all valid),
// then for fixed-width types buffers[1] holds values; for binary-like types buffers[1] holds
// offsets and buffers[2] the bytes; for binary_view and utf8_view buffers[1] holds the 16-byte
// views and `variadic_buffers` the data buffers the views of values over 12 bytes point into;
// for list, large list and map buffers[1] holds offsets; struct has only the validity bitmap;
// null has none. `offset` is a logical index into every buffer of
// this array (not its children), as in the Arrow C Data Interface.
//
// One rule differs from the C Data Interface and keeps every kernel simple: a struct's children
// are aligned with the struct view itself, so row i of a struct is row i of each child. Importers
// push a struct's offset down into its children; Slice() slices them together. A sparse union's
// children are aligned with it the same way.
//
// A dictionary array holds its indices as buffers[1] (of its type's index_type()) and its
// dictionary, a whole array of the value type, as children[0]; the indices refer to rows of
// that child's view.
//
// Unions have no validity bitmap (their nulls are their children's, and null_count is 0):
// buffers[0] holds the int8 type ids and, for a dense union, buffers[1] the int32 offsets into
// the selected child, as the IPC and C Data layouts number them.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/bit_ops.h"
#include "sluice/format/data_type.h"

namespace sluice {

/// A contiguous byte range borrowed from an owner.
struct BufferView {
  const uint8_t* data = nullptr;
  int64_t size = 0;
};

/// One array (or child array) of a batch, as a view over borrowed buffers.
struct ArrayData {
  const DataType* type = nullptr;
  int64_t length = 0;
  /// Logical offset into this array's buffers (not into its children's).
  int64_t offset = 0;
  /// Number of nulls in [offset, offset + length). Always known inside Sluice: importers compute
  /// it when a producer says -1.
  int64_t null_count = 0;
  std::array<BufferView, 3> buffers{};
  std::vector<ArrayData> children;
  /// The data buffers of a view type (binary_view, utf8_view); empty for every other type.
  std::vector<BufferView> variadic_buffers;

  ArrayData() = default;
  /// A childless array at offset 0.
  ArrayData(const DataType* type, int64_t length, int64_t null_count,
            const std::array<BufferView, 3>& buffers)
      : type(type), length(length), null_count(null_count), buffers(buffers) {}
  // Copies the children only when there are some: a batch copies its flat columns field by
  // field, not through std::vector's general copy (half the time for a decoder's 50 columns).
  ArrayData(const ArrayData& other)
      : type(other.type),
        length(other.length),
        offset(other.offset),
        null_count(other.null_count),
        buffers(other.buffers) {
    if (!other.children.empty()) children = other.children;
    if (!other.variadic_buffers.empty()) variadic_buffers = other.variadic_buffers;
  }
  ArrayData(ArrayData&&) noexcept = default;
  ArrayData& operator=(const ArrayData&) = default;
  ArrayData& operator=(ArrayData&&) noexcept = default;
  ~ArrayData() = default;

  /// Makes this a childless array at offset 0, as the constructor above would, reusing this
  /// object (a column vector a producer builds batch after batch in).
  [[gnu::always_inline]] void AssignChildless(const DataType* new_type, int64_t new_length,
                                              int64_t new_null_count,
                                              const std::array<BufferView, 3>& new_buffers) {
    type = new_type;
    length = new_length;
    offset = 0;
    null_count = new_null_count;
    buffers = new_buffers;
    if (!children.empty()) children.clear();
    if (!variadic_buffers.empty()) variadic_buffers.clear();
  }

  /// Returns true when slot `index` (0-based from this view's start) is not null.
  bool IsValid(int64_t index) const {
    if (null_count == 0 || buffers[0].data == nullptr) return type->id() != TypeId::kNull;
    return bits::GetBit(buffers[0].data, offset + index);
  }
  bool IsNull(int64_t index) const { return !IsValid(index); }

  /// Returns the values buffer as T, already advanced by `offset` (fixed-width types).
  template <typename T>
  const T* values() const {
    return reinterpret_cast<const T*>(buffers[1].data) + offset;
  }
  /// Returns the offsets buffer as T (int32_t or int64_t), advanced by `offset`: entry i and
  /// i + 1 delimit value i.
  template <typename T>
  const T* value_offsets() const {
    return reinterpret_cast<const T*>(buffers[1].data) + offset;
  }
  /// Returns the bytes of a binary-like array (buffers[2]); offsets index into it.
  const uint8_t* value_bytes() const { return buffers[2].data; }
  /// Returns value `index` (from this view's start) of a binary_view or utf8_view array, whose
  /// views have been validated (ValidateArray).
  std::string_view view_value(int64_t index) const;

  /// Returns a view of rows [start, start + count). Children are shared as they are, which is
  /// how Arrow slices; null_count is recomputed from the bitmap.
  ArrayData Slice(int64_t start, int64_t count) const;
};

/// The bytes of a binary or string view (16 bytes: an int32 length, then up to 12 bytes inline,
/// or a 4-byte prefix, a buffer index and an offset into `variadic`), validated by ValidateArray.
inline std::string_view ViewBytes(const uint8_t* view, const BufferView* variadic) {
  int32_t size;
  std::memcpy(&size, view, 4);
  if (size <= 12) return {reinterpret_cast<const char*>(view + 4), static_cast<size_t>(size)};
  int32_t buffer;
  int32_t start;
  std::memcpy(&buffer, view + 8, 4);
  std::memcpy(&start, view + 12, 4);
  return {reinterpret_cast<const char*>(variadic[buffer].data) + start, static_cast<size_t>(size)};
}

inline std::string_view ArrayData::view_value(int64_t index) const {
  return ViewBytes(buffers[1].data + (offset + index) * 16, variadic_buffers.data());
}

/// Returns the index into the values child of row `index` (from the view's start) of a
/// run_end_encoded array that ValidateArray accepted: its run is the first whose end exceeds
/// offset + index.
int64_t RunEndPhysicalIndex(const ArrayData& array, int64_t index);

/// Returns the type id of row `index` (from the view's start) of a union array.
inline int8_t UnionTypeCode(const ArrayData& array, int64_t index) {
  return static_cast<int8_t>(array.buffers[0].data[array.offset + index]);
}

/// Returns {child, child row} of row `index` (from the view's start) of a union array that
/// ValidateArray accepted: the child its type id selects and the row of that child's view.
inline std::pair<int, int64_t> UnionChildRow(const ArrayData& array, int64_t index) {
  const int child = array.type->child_for_type_code(UnionTypeCode(array, index));
  if (array.type->id() == TypeId::kSparseUnion) return {child, index};
  return {child, bits::LoadUnaligned<int32_t>(array.buffers[1].data + (array.offset + index) * 4)};
}

/// Returns the dictionary index of row `index` (from the view's start) of a dictionary array,
/// whatever its index type (an unsigned 64-bit index above INT64_MAX reads as -1). A null row's
/// index is whatever its slot holds.
int64_t DictionaryIndexAt(const ArrayData& array, int64_t index);

/// Returns entry `index` (from the view's start) of a run_ends array (int16, int32 or int64).
int64_t RunEndAt(const ArrayData& run_ends, int64_t index);

/// Returns the child range {offset, size} of row `index` (from the view's start) of a list_view
/// or large_list_view array that ValidateArray accepted (a non-null row).
inline std::pair<int64_t, int64_t> ListViewRange(const ArrayData& array, int64_t index) {
  const int64_t slot = array.offset + index;
  if (array.type->id() == TypeId::kLargeListView) {
    return {bits::LoadUnaligned<int64_t>(array.buffers[1].data + slot * 8),
            bits::LoadUnaligned<int64_t>(array.buffers[2].data + slot * 8)};
  }
  return {bits::LoadUnaligned<int32_t>(array.buffers[1].data + slot * 4),
          bits::LoadUnaligned<int32_t>(array.buffers[2].data + slot * 4)};
}

/// Returns the number of bytes of buffers this view references, children included, counting
/// each buffer once at its full size. Used to charge held input to a memory budget.
int64_t ReferencedBytes(const ArrayData& array);

}  // namespace sluice
