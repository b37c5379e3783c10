// ValidateArray: checks that an ArrayData follows its type's physical layout, so that every
// kernel may read it without bounds checks of its own.
//
// Arrays reach Sluice from outside: the C Data importer (c_data.h) and the Arrow IPC decoder both
// build ArrayData views over memory someone else wrote. Kernels (partitioning, gathering, row
// conversion) then read offsets and values without checking them. ValidateArray is the one place
// that makes those reads safe: once it returns OK for an array, every slot in
// [offset, offset + length) of every buffer the layout names is inside its BufferView, every
// offset lies inside the data or child it indexes, and null_count agrees with the bitmap.
//
// It is total: it never reads outside a BufferView (sizes are trusted, data is not), uses checked
// arithmetic for every offset + length and size * width, and makes one pass over each offsets
// buffer and bitmap without allocating per row. The rules it enforces:
//
// - type is set; length >= 0; offset >= 0; offset + length does not overflow; nesting is at most
//   kMaxNestingDepth deep.
// - 0 <= null_count <= length. A null-type array has null_count == length and no buffers.
// - Buffers past BufferCount(type) are absent (null data, size 0). A BufferView with null data
//   has size 0; no size is negative.
// - Validity (buffers[0]): may be absent only when null_count is 0. When present it holds
//   offset + length bits, and length minus its set bits in [offset, offset + length) equals
//   null_count.
// - Fixed-width values (buffers[1]): hold (offset + length) * bit width bits. May be absent when
//   length is 0.
// - Offsets (buffers[1] of binary-like, list, large list, map): hold offset + length + 1 entries;
//   entries [offset, offset + length] are non-decreasing, the first is >= 0 and the last is at
//   most the size of buffers[2] (binary-like) or the child's length (lists and maps). An empty
//   array (length 0) may have no offsets buffer, as Arrow's IPC writers produce: consumers must
//   not read the offsets of an empty array.
// - Children: as many as the type has, each of the type the parent's type names. Struct children
//   have the struct's length (Sluice aligns them with the struct view); a map's child is a struct
//   of two fields. Children are validated recursively with the same rules.
//
// Nullability promises (nulls in a non-nullable field) are not checked: they are schema
// metadata, not layout, and no read depends on them.
#pragma once

#include <string_view>

#include "sluice/base/status.h"
#include "sluice/format/array_data.h"

namespace sluice {

/// The deepest type nesting Sluice accepts from outside (the C Data importer, the IPC decoder).
/// Recursion over types and arrays is bounded by it; 64 is the limit Arrow C++'s IPC reader uses
/// and far beyond any schema a query engine produces.
inline constexpr int kMaxNestingDepth = 64;

/// Checks `array` against its type's layout (see above). `path` names the array in messages,
/// such as "c3" for a column; children extend it with their field names ("c3.item.key").
/// Returns Invalid with a message "column '<path>': <what is wrong>"; callers that validate
/// untrusted bytes may report it as Corrupt instead.
Status ValidateArray(const ArrayData& array, std::string_view path);

/// Checks that every non-null row of a dictionary array (its indices buffer large enough, its
/// dictionary children[0] validated) has an index inside the dictionary: what ValidateArray
/// checks of a dictionary array beyond its dictionary, for a decoder that validated the
/// dictionary once and attaches it to many batches.
Status ValidateDictionaryIndices(const ArrayData& array, std::string_view path);

/// Checks that every utf8 and large_utf8 value of `array` (its children too) is valid UTF-8,
/// for a host that asks (validate-utf8): Sluice otherwise carries string bytes unchanged, valid
/// or not, as Arrow IPC does. `array` must have passed ValidateArray. Returns Invalid naming the
/// column, the value and the byte ("column 'c3.item': value 17 is not valid UTF-8 (byte 2 of its
/// 5)").
Status ValidateUtf8(const ArrayData& array, std::string_view path);

}  // namespace sluice
