#include "sluice/format/array_validate.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "sluice/base/bit_ops.h"
#include "sluice/base/utf8.h"
#include "sluice/format/type_visitor.h"

namespace sluice {

namespace {

// Validates one array and its children. `path` is a scratch string extended with each child's
// name while the child is checked, so the walk allocates per level at most, never per row.
class ArrayValidator {
 public:
  explicit ArrayValidator(std::string_view path) : path_(path) {}

  Status Validate(const ArrayData& array, int depth);

 private:
  template <typename... Parts>
  Status Fail(Parts&&... parts) const {
    return Status::Invalid("column '", path_, "': ", std::forward<Parts>(parts)...);
  }

  Status ValidateBufferViews(const ArrayData& array, int buffer_count) const;
  Status ValidateValidity(const ArrayData& array, int64_t end) const;
  Status ValidateFixedWidth(const ArrayData& array, int64_t end) const;
  template <typename Offset>
  Status ValidateOffsets(const ArrayData& array, int64_t end, int64_t limit,
                         const char* limit_name) const;
  Status ValidateChildren(const ArrayData& array, int depth);
  Status ValidateViews(const ArrayData& array, int64_t end) const;
  template <typename Offset>
  Status ValidateListViews(const ArrayData& array, int64_t end) const;
  Status ValidateRunEnds(const ArrayData& array, int64_t end) const;
  Status ValidateUnion(const ArrayData& array, int64_t end) const;
  Status ValidateDictionary(const ArrayData& array, int64_t end, int depth);
  template <typename RunEnd>
  Status ValidateRunEndValues(const ArrayData& run_ends, int64_t end) const;

  std::string path_;
};

// Returns ceil(bits / 8) without overflowing for any non-negative bit count.
int64_t BytesForBitsChecked(int64_t bit_count) {
  return bit_count / 8 + (bit_count % 8 != 0);
}

Status ArrayValidator::ValidateBufferViews(const ArrayData& array, int buffer_count) const {
  for (int index = 0; index < static_cast<int>(array.buffers.size()); ++index) {
    const BufferView& buffer = array.buffers[static_cast<size_t>(index)];
    if (buffer.size < 0) {
      return Fail("buffer ", index, " has a negative size (", buffer.size, " bytes)");
    }
    if (buffer.data == nullptr && buffer.size != 0) {
      return Fail("buffer ", index, " has no data but a size of ", buffer.size, " bytes");
    }
    if (index >= buffer_count && buffer.data != nullptr) {
      return Fail("buffer ", index, " is set, but ", array.type->ToString(), " has only ",
                  buffer_count, " buffer(s)");
    }
  }
  return Status::OK();
}

Status ArrayValidator::ValidateValidity(const ArrayData& array, int64_t end) const {
  const BufferView& validity = array.buffers[0];
  if (validity.data == nullptr) {
    if (array.null_count != 0) {
      return Fail("null_count is ", array.null_count, " but there is no validity bitmap");
    }
    return Status::OK();
  }
  const int64_t needed = BytesForBitsChecked(end);
  if (validity.size < needed) {
    return Fail("the validity bitmap has ", validity.size, " bytes, expected at least ", needed,
                " for offset ", array.offset, " + length ", array.length);
  }
  if (array.length > 0) {
    const int64_t nulls =
        array.length - bits::CountSetBits(validity.data, array.offset, array.length);
    if (nulls != array.null_count) {
      return Fail("null_count is ", array.null_count, " but the validity bitmap has ", nulls,
                  " nulls");
    }
  }
  return Status::OK();
}

Status ArrayValidator::ValidateFixedWidth(const ArrayData& array, int64_t end) const {
  if (array.length == 0) return Status::OK();
  const int64_t bit_width = BitWidth(*array.type);
  int64_t bit_count = 0;
  if (__builtin_mul_overflow(end, static_cast<int64_t>(bit_width), &bit_count)) {
    return Fail("offset ", array.offset, " + length ", array.length, " of ", bit_width,
                "-bit values overflows");
  }
  const int64_t needed = BytesForBitsChecked(bit_count);
  const BufferView& values = array.buffers[1];
  if (needed > 0 && values.data == nullptr) {
    return Fail("the values buffer is missing; ", array.length, " ", array.type->ToString(),
                " values need ", needed, " bytes");
  }
  if (values.size < needed) {
    return Fail("the values buffer has ", values.size, " bytes, expected at least ", needed,
                " for offset ", array.offset, " + length ", array.length, " of ",
                array.type->ToString());
  }
  return Status::OK();
}

template <typename Offset>
Status ArrayValidator::ValidateOffsets(const ArrayData& array, int64_t end, int64_t limit,
                                       const char* limit_name) const {
  // An empty array reads no offsets; Arrow's IPC writers may give it an empty offsets buffer.
  if (array.length == 0) return Status::OK();
  const BufferView& offsets_buffer = array.buffers[1];
  int64_t needed = 0;
  if (__builtin_add_overflow(end, int64_t{1}, &needed) ||
      __builtin_mul_overflow(needed, static_cast<int64_t>(sizeof(Offset)), &needed)) {
    return Fail("offset ", array.offset, " + length ", array.length, " of offsets overflows");
  }
  if (offsets_buffer.data == nullptr) {
    return Fail("the offsets buffer is missing; ", array.length, " values need ", needed,
                " bytes of offsets");
  }
  if (offsets_buffer.size < needed) {
    return Fail("the offsets buffer has ", offsets_buffer.size, " bytes, expected at least ",
                needed, " for offset ", array.offset, " + length ", array.length);
  }
  // Offsets may be unaligned in foreign memory, so they are loaded with memcpy, which compiles to
  // plain loads.
  const uint8_t* start = offsets_buffer.data + array.offset * static_cast<int64_t>(sizeof(Offset));
  auto load = [start](int64_t index) {
    return static_cast<int64_t>(bits::LoadUnaligned<Offset>(start + index * sizeof(Offset)));
  };
  const int64_t first = load(0);
  if (first < 0) return Fail("offset of row 0 is negative (", first, ")");
  // One branch-free pass; the rare failure is located in a second pass for the message.
  bool decreasing = false;
  int64_t previous = first;
  for (int64_t i = 1; i <= array.length; ++i) {
    const int64_t current = load(i);
    decreasing |= current < previous;
    previous = current;
  }
  if (decreasing) {
    for (int64_t i = 1; i <= array.length; ++i) {
      if (load(i) < load(i - 1)) {
        return Fail("offsets decrease at row ", i - 1, ": ", load(i - 1), " then ", load(i));
      }
    }
  }
  const int64_t last = previous;
  if (last > limit) {
    return Fail("last offset ", last, " is past the end of the ", limit_name, " (", limit, ")");
  }
  return Status::OK();
}

// Every view of the non-null rows of [offset, end): a length >= 0; over 12 bytes, a variadic buffer
// that holds the bytes it points to and a prefix equal to their first 4 (readers compare prefixes
// alone). Inline views are not checked past their length (the format zero-pads them; nothing reads
// the padding).
Status ArrayValidator::ValidateViews(const ArrayData& array, int64_t end) const {
  if (array.length == 0) return Status::OK();
  const BufferView& views = array.buffers[1];
  int64_t needed = 0;
  if (__builtin_mul_overflow(end, int64_t{16}, &needed)) {
    return Fail("offset ", array.offset, " + length ", array.length, " of views overflows");
  }
  if (views.data == nullptr || views.size < needed) {
    return Fail("the views buffer has ", views.data == nullptr ? 0 : views.size,
                " bytes, expected at least ", needed, " for offset ", array.offset, " + length ",
                array.length);
  }
  const auto variadic_count = static_cast<int64_t>(array.variadic_buffers.size());
  const uint8_t* validity = array.null_count > 0 ? array.buffers[0].data : nullptr;
  for (int64_t slot = array.offset; slot < end; ++slot) {
    if (validity != nullptr && !bits::GetBit(validity, slot)) continue;  // never read
    const uint8_t* view = views.data + slot * 16;
    const auto size = bits::LoadUnaligned<int32_t>(view);
    if (size < 0) return Fail("view ", slot - array.offset, " has a negative length (", size, ")");
    if (size <= 12) continue;
    const auto buffer = bits::LoadUnaligned<int32_t>(view + 8);
    const auto start = bits::LoadUnaligned<int32_t>(view + 12);
    if (buffer < 0 || buffer >= variadic_count) {
      return Fail("view ", slot - array.offset, " points into variadic buffer ", buffer, " of ",
                  variadic_count);
    }
    const BufferView& data = array.variadic_buffers[static_cast<size_t>(buffer)];
    if (start < 0 || int64_t{start} + size > data.size) {
      return Fail("view ", slot - array.offset, " of ", size, " bytes at offset ", start,
                  " is past the end of variadic buffer ", buffer, " (", data.size, " bytes)");
    }
    if (std::memcmp(view + 4, data.data + start, 4) != 0) {
      return Fail("view ", slot - array.offset,
                  ": its prefix differs from the first 4 bytes of its value");
    }
  }
  return Status::OK();
}

// The offset and size of every non-null row of [offset, end) of a list view: both >= 0, and the
// range they make inside the child. Null rows are never read, so their entries may be anything.
template <typename Offset>
Status ArrayValidator::ValidateListViews(const ArrayData& array, int64_t end) const {
  if (array.length == 0) return Status::OK();
  int64_t needed = 0;
  if (__builtin_mul_overflow(end, static_cast<int64_t>(sizeof(Offset)), &needed)) {
    return Fail("offset ", array.offset, " + length ", array.length, " of offsets overflows");
  }
  for (size_t b = 1; b <= 2; ++b) {
    const BufferView& buffer = array.buffers[b];
    if (buffer.data == nullptr || buffer.size < needed) {
      return Fail("the ", b == 1 ? "offsets" : "sizes", " buffer has ",
                  buffer.data == nullptr ? 0 : buffer.size, " bytes, expected at least ", needed,
                  " for offset ", array.offset, " + length ", array.length);
    }
  }
  const int64_t child_length = array.children.empty() ? 0 : array.children[0].length;
  const uint8_t* validity = array.null_count > 0 ? array.buffers[0].data : nullptr;
  for (int64_t slot = array.offset; slot < end; ++slot) {
    if (validity != nullptr && !bits::GetBit(validity, slot)) continue;  // never read
    const auto offset = static_cast<int64_t>(
        bits::LoadUnaligned<Offset>(array.buffers[1].data + slot * sizeof(Offset)));
    const auto size = static_cast<int64_t>(
        bits::LoadUnaligned<Offset>(array.buffers[2].data + slot * sizeof(Offset)));
    if (offset < 0 || size < 0 || size > child_length || offset > child_length - size) {
      return Fail("row ", slot - array.offset, ": offset ", offset, " and size ", size,
                  " are outside the child's ", child_length, " elements");
    }
  }
  return Status::OK();
}

// Every row's type id names a child; a dense union's offsets lie inside that child. Called once
// the children are validated.
Status ArrayValidator::ValidateUnion(const ArrayData& array, int64_t end) const {
  const DataType& type = *array.type;
  const bool dense = type.id() == TypeId::kDenseUnion;
  if (array.buffers[0].size < end) {
    return Fail("the type ids buffer has ", array.buffers[0].size, " bytes, expected at least ",
                end, " for offset ", array.offset, " + length ", array.length);
  }
  if (dense && array.buffers[1].size / 4 < end) {
    return Fail("the offsets buffer has ", array.buffers[1].size, " bytes, expected at least ",
                end * 4, " for offset ", array.offset, " + length ", array.length);
  }
  for (int64_t row = 0; row < array.length; ++row) {
    const int8_t code = UnionTypeCode(array, row);
    const int child = type.child_for_type_code(code);
    if (child < 0) return Fail("row ", row, ": type id ", int{code}, " names no child");
    if (!dense) continue;
    const int64_t offset = UnionChildRow(array, row).second;
    const int64_t child_length = array.children[static_cast<size_t>(child)].length;
    if (offset < 0 || offset >= child_length) {
      return Fail("row ", row, ": offset ", offset, " is outside child '",
                  type.children()[static_cast<size_t>(child)].name, "' of ", child_length, " rows");
    }
  }
  return Status::OK();
}

// Run ends are never null, strictly increasing from above zero, and the last covers
// offset + length; the values hold an entry per run. Called once the children are validated.
Status ArrayValidator::ValidateRunEnds(const ArrayData& array, int64_t end) const {
  const ArrayData& run_ends = array.children[0];
  const ArrayData& values = array.children[1];
  if (run_ends.null_count != 0) {
    return Fail("run_ends has ", run_ends.null_count, " null(s); a run end is never null");
  }
  if (values.length < run_ends.length) {
    return Fail("values has ", values.length, " entries, fewer than the ", run_ends.length,
                " runs");
  }
  const int64_t covered = array.length == 0 ? 0 : end;  // an empty view needs no run
  return VisitRunEndType(
      run_ends.type->id(),
      [&](auto run_end) {
        return ValidateRunEndValues<typename decltype(run_end)::type>(run_ends, covered);
      },
      [&] {
        return Fail("run ends of type ", run_ends.type->ToString(),
                    "; they must be int16, int32 or int64");
      });
}

template <typename RunEnd>
Status ArrayValidator::ValidateRunEndValues(const ArrayData& run_ends, int64_t end) const {
  const RunEnd* ends = run_ends.values<RunEnd>();
  int64_t previous = 0;
  for (int64_t i = 0; i < run_ends.length; ++i) {
    const int64_t value = ends[i];
    if (value <= previous) {
      if (i == 0) return Fail("run end 0 is ", value, ", not above zero");
      return Fail("run end ", i, " is ", value, ", not above the run end before it, ", previous);
    }
    previous = value;
  }
  if (previous < end) {
    return Fail("the runs cover ", previous, " rows, fewer than offset + length ", end);
  }
  return Status::OK();
}

Status ArrayValidator::ValidateDictionary(const ArrayData& array, int64_t end, int depth) {
  const DataType& type = *array.type;
  if (type.index_type() == nullptr || !IsInteger(type.index_type()->id()) ||
      type.value_type() == nullptr) {
    return Fail(type.ToString(), ": dictionary indices must be of an integer type");
  }
  if (array.children.size() != 1) {
    return Fail(type.ToString(), " has one dictionary, the array has ", array.children.size(),
                " child(ren)");
  }
  const ArrayData& dictionary = array.children[0];
  if (dictionary.type == nullptr || !dictionary.type->Equals(*type.value_type())) {
    return Fail("the dictionary has type ",
                dictionary.type == nullptr ? std::string("(none)") : dictionary.type->ToString(),
                " but the type says ", type.value_type()->ToString());
  }
  const size_t path_length = path_.size();
  path_.append("[dictionary]");
  Status status = Validate(dictionary, depth + 1);
  path_.resize(path_length);
  SLUICE_RETURN_NOT_OK(status);
  SLUICE_RETURN_NOT_OK(ValidateValidity(array, end));
  if (array.length == 0) return Status::OK();
  const int64_t width = BitWidth(*type.index_type()) / 8;
  int64_t needed = 0;
  if (__builtin_mul_overflow(end, width, &needed)) {
    return Fail("offset ", array.offset, " + length ", array.length, " of ", width,
                "-byte indices overflows");
  }
  if (array.buffers[1].data == nullptr || array.buffers[1].size < needed) {
    return Fail("the indices buffer has ", array.buffers[1].size, " bytes, expected at least ",
                needed, " for offset ", array.offset, " + length ", array.length, " of ",
                type.index_type()->ToString());
  }
  return ValidateDictionaryIndices(array, path_);
}

Status ArrayValidator::ValidateChildren(const ArrayData& array, int depth) {
  const DataType& type = *array.type;
  const TypeId id = type.id();
  if (id == TypeId::kMap &&
      (type.children().size() != 1 || type.child_type(0).id() != TypeId::kStruct ||
       type.child_type(0).children().size() != 2)) {
    return Fail("the map type ", type.ToString(), " does not have one struct child of two fields");
  }
  const size_t path_length = path_.size();
  for (size_t i = 0; i < array.children.size(); ++i) {
    const ArrayData& child = array.children[i];
    const Field& field = type.children()[i];
    if (child.type != field.type.get() &&
        (child.type == nullptr || !child.type->Equals(*field.type))) {
      return Fail("child ", i, " ('", field.name, "') has type ",
                  child.type == nullptr ? std::string("(none)") : child.type->ToString(),
                  " but the parent's type says ", field.type->ToString());
    }
    if ((id == TypeId::kStruct || id == TypeId::kSparseUnion) && child.length != array.length) {
      return Fail(TypeIdName(id), " child '", field.name, "' has length ", child.length,
                  " but the ", TypeIdName(id), " has length ", array.length);
    }
    path_.append(".").append(field.name);
    Status status = Validate(child, depth + 1);
    path_.resize(path_length);
    SLUICE_RETURN_NOT_OK(status);
  }
  return Status::OK();
}

Status ArrayValidator::Validate(const ArrayData& array, int depth) {
  if (array.type == nullptr) return Fail("the array has no type");
  if (depth > kMaxNestingDepth) {
    return Fail("nesting is deeper than ", kMaxNestingDepth, " levels");
  }
  const DataType& type = *array.type;
  const TypeId id = type.id();
  if (array.length < 0) return Fail("length is negative (", array.length, ")");
  if (array.offset < 0) return Fail("offset is negative (", array.offset, ")");
  int64_t end = 0;
  if (__builtin_add_overflow(array.offset, array.length, &end)) {
    return Fail("offset ", array.offset, " + length ", array.length, " overflows");
  }
  if (array.null_count < 0 || array.null_count > array.length) {
    return Fail("null_count ", array.null_count, " is outside [0, length ", array.length, "]");
  }
  SLUICE_RETURN_NOT_OK(ValidateBufferViews(array, BufferCount(id)));
  if (!array.variadic_buffers.empty() && !IsBinaryView(id)) {
    return Fail(type.ToString(), " has no variadic buffers, the array has ",
                array.variadic_buffers.size());
  }
  for (size_t v = 0; v < array.variadic_buffers.size(); ++v) {
    const BufferView& buffer = array.variadic_buffers[v];
    if (buffer.size < 0 || (buffer.data == nullptr && buffer.size != 0)) {
      return Fail("variadic buffer ", v, " has ", buffer.data == nullptr ? "no data and " : "",
                  "a size of ", buffer.size, " bytes");
    }
  }
  if (id == TypeId::kDictionary) return ValidateDictionary(array, end, depth);
  if (array.children.size() != type.children().size()) {
    return Fail(type.ToString(), " has ", type.children().size(), " child(ren), the array has ",
                array.children.size());
  }
  if (id == TypeId::kNull) {
    if (array.null_count != array.length) {
      return Fail("a null array of length ", array.length, " has null_count ", array.null_count);
    }
    return Status::OK();
  }
  if (IsUnion(id)) {
    if (array.null_count != 0) {
      return Fail("null_count is ", array.null_count,
                  "; a union has no nulls of its own (its children have)");
    }
    SLUICE_RETURN_NOT_OK(ValidateChildren(array, depth));
    return ValidateUnion(array, end);
  }
  if (id == TypeId::kRunEndEncoded) {
    if (array.null_count != 0) {
      return Fail("null_count is ", array.null_count,
                  "; a run_end_encoded array has no nulls of its own (its values have)");
    }
    SLUICE_RETURN_NOT_OK(ValidateChildren(array, depth));
    return ValidateRunEnds(array, end);
  }
  SLUICE_RETURN_NOT_OK(ValidateValidity(array, end));
  if (IsFixedWidth(id)) {
    SLUICE_RETURN_NOT_OK(ValidateFixedWidth(array, end));
  } else if (IsBinaryLike(id)) {
    const int64_t data_size = array.buffers[2].size;
    if (HasLargeOffsets(id)) {
      SLUICE_RETURN_NOT_OK(ValidateOffsets<int64_t>(array, end, data_size, "data buffer"));
    } else {
      SLUICE_RETURN_NOT_OK(ValidateOffsets<int32_t>(array, end, data_size, "data buffer"));
    }
  } else if (IsBinaryView(id)) {
    SLUICE_RETURN_NOT_OK(ValidateViews(array, end));
  } else if (id == TypeId::kFixedSizeList) {
    // Row i's elements are child rows [i * size, (i + 1) * size): the child must hold them all.
    const int64_t size = type.list_size();
    const int64_t child_length = array.children.empty() ? 0 : array.children[0].length;
    int64_t needed = 0;
    if (size < 0 || __builtin_mul_overflow(end, int64_t{size}, &needed)) {
      return Fail(type.ToString(), " of ", end, " rows has no valid element count");
    }
    if (child_length < needed) {
      return Fail("the child holds ", child_length, " elements, fewer than the ", needed, " that ",
                  end, " rows of ", size, " need");
    }
  } else if (id == TypeId::kListView) {
    SLUICE_RETURN_NOT_OK(ValidateListViews<int32_t>(array, end));
  } else if (id == TypeId::kLargeListView) {
    SLUICE_RETURN_NOT_OK(ValidateListViews<int64_t>(array, end));
  } else if (id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap) {
    const int64_t child_length = array.children.empty() ? 0 : array.children[0].length;
    if (HasLargeOffsets(id)) {
      SLUICE_RETURN_NOT_OK(ValidateOffsets<int64_t>(array, end, child_length, "child"));
    } else {
      SLUICE_RETURN_NOT_OK(ValidateOffsets<int32_t>(array, end, child_length, "child"));
    }
  }
  return ValidateChildren(array, depth);
}

}  // namespace

Status ValidateArray(const ArrayData& array, std::string_view path) {
  return ArrayValidator(path).Validate(array, 0);
}

Status ValidateDictionaryIndices(const ArrayData& array, std::string_view path) {
  const int64_t size = array.children[0].length;
  for (int64_t row = 0; row < array.length; ++row) {
    if (array.null_count != 0 && array.IsNull(row)) continue;
    const int64_t index = DictionaryIndexAt(array, row);
    if (index < 0 || index >= size) {
      return Status::Invalid("column '", path, "': row ", row, " has dictionary index ", index,
                             ", outside the dictionary's ", size, " values");
    }
  }
  return Status::OK();
}

}  // namespace sluice

namespace sluice {

namespace {

template <typename Offset>
Status ValidateUtf8Values(const ArrayData& array, int64_t start, int64_t count,
                          const std::string& path) {
  const auto* offsets = reinterpret_cast<const Offset*>(array.buffers[1].data);
  const uint8_t* bytes = array.buffers[2].data;
  for (int64_t slot = start; slot < start + count; ++slot) {
    const int64_t begin = static_cast<int64_t>(offsets[slot]);
    const int64_t size = static_cast<int64_t>(offsets[slot + 1]) - begin;
    if (size == 0) continue;
    const int64_t bad = FindInvalidUtf8(bytes + begin, size);
    if (bad != size) {
      return Status::Invalid("column '", path, "': value ", slot - array.offset,
                             " is not valid UTF-8 (byte ", bad, " of its ", size, ")");
    }
  }
  return Status::OK();
}

// Slots [start, start + count) of `array` (positions in its buffers, offset included).
Status ValidateUtf8Slots(const ArrayData& array, int64_t start, int64_t count,
                         const std::string& path) {
  if (count <= 0) return Status::OK();
  const DataType& type = *array.type;
  switch (type.id()) {
    case TypeId::kUtf8:
      return ValidateUtf8Values<int32_t>(array, start, count, path);
    case TypeId::kLargeUtf8:
      return ValidateUtf8Values<int64_t>(array, start, count, path);
    case TypeId::kUtf8View:
      for (int64_t slot = start; slot < start + count; ++slot) {
        const std::string_view value = array.view_value(slot - array.offset);
        const auto size = static_cast<int64_t>(value.size());
        const int64_t bad = FindInvalidUtf8(reinterpret_cast<const uint8_t*>(value.data()), size);
        if (bad != size) {
          return Status::Invalid("column '", path, "': value ", slot - array.offset,
                                 " is not valid UTF-8 (byte ", bad, " of its ", size, ")");
        }
      }
      return Status::OK();
    case TypeId::kStruct:
      for (size_t i = 0; i < array.children.size(); ++i) {
        const ArrayData& child = array.children[i];
        // Struct children are aligned with the struct's view.
        SLUICE_RETURN_NOT_OK(ValidateUtf8Slots(child, child.offset + (start - array.offset), count,
                                               path + "." + type.children()[i].name));
      }
      return Status::OK();
    case TypeId::kFixedSizeList: {
      const ArrayData& child = array.children[0];
      const int64_t size = type.list_size();
      return ValidateUtf8Slots(child, child.offset + start * size, count * size,
                               path + "." + type.children()[0].name);
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const ArrayData& child = array.children[0];
      for (int64_t slot = start; slot < start + count; ++slot) {
        if (array.IsNull(slot - array.offset)) continue;
        const auto [offset, size] = ListViewRange(array, slot - array.offset);
        SLUICE_RETURN_NOT_OK(ValidateUtf8Slots(child, child.offset + offset, size,
                                               path + "." + type.children()[0].name));
      }
      return Status::OK();
    }
    case TypeId::kSparseUnion:
      for (size_t i = 0; i < array.children.size(); ++i) {
        const ArrayData& child = array.children[i];
        // Aligned with the union's view, as a struct's children are.
        SLUICE_RETURN_NOT_OK(ValidateUtf8Slots(child, child.offset + (start - array.offset), count,
                                               path + "." + type.children()[i].name));
      }
      return Status::OK();
    case TypeId::kDenseUnion:
      for (int64_t slot = start; slot < start + count; ++slot) {
        const auto [child, row] = UnionChildRow(array, slot - array.offset);
        const ArrayData& values = array.children[static_cast<size_t>(child)];
        SLUICE_RETURN_NOT_OK(ValidateUtf8Slots(values, values.offset + row, 1,
                                               path + "." + type.children()[child].name));
      }
      return Status::OK();
    case TypeId::kRunEndEncoded: {
      // The values of the runs that rows [start, start + count) fall in.
      const ArrayData& values = array.children[1];
      const int64_t first = RunEndPhysicalIndex(array, start - array.offset);
      const int64_t last = RunEndPhysicalIndex(array, start + count - 1 - array.offset);
      return ValidateUtf8Slots(values, values.offset + first, last - first + 1,
                               path + "." + type.children()[1].name);
    }
    case TypeId::kDictionary: {
      // The dictionary whole: its values are what the rows hold.
      const ArrayData& dictionary = array.children[0];
      return ValidateUtf8Slots(dictionary, dictionary.offset, dictionary.length,
                               path + "[dictionary]");
    }
    case TypeId::kList:
    case TypeId::kMap:
    case TypeId::kLargeList: {
      const bool large = type.id() == TypeId::kLargeList;
      const uint8_t* raw = array.buffers[1].data;
      auto offset_at = [&](int64_t slot) {
        return large ? reinterpret_cast<const int64_t*>(raw)[slot]
                     : static_cast<int64_t>(reinterpret_cast<const int32_t*>(raw)[slot]);
      };
      const ArrayData& child = array.children[0];
      const int64_t first = offset_at(start);
      return ValidateUtf8Slots(child, child.offset + first, offset_at(start + count) - first,
                               path + "." + type.children()[0].name);
    }
    default:
      return Status::OK();
  }
}

bool HasUtf8(const DataType& type) {
  if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8 ||
      type.id() == TypeId::kUtf8View) {
    return true;
  }
  if (type.id() == TypeId::kDictionary) return HasUtf8(*type.value_type());
  for (const Field& child : type.children()) {
    if (HasUtf8(*child.type)) return true;
  }
  return false;
}

}  // namespace

Status ValidateUtf8(const ArrayData& array, std::string_view path) {
  if (!HasUtf8(*array.type)) return Status::OK();
  return ValidateUtf8Slots(array, array.offset, array.length, std::string(path));
}

}  // namespace sluice
