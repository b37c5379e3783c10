#include "sluice/format/array_compare.h"

#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include "sluice/base/check.h"

namespace sluice {

namespace {

template <typename Offset>
void ValueRange(const ArrayData& array, int64_t row, int64_t* start, int64_t* end) {
  const Offset* offsets = array.value_offsets<Offset>();
  *start = offsets[row];
  *end = offsets[row + 1];
}

// The child rows of a list-like slot: from its offsets, or (fixed-size list) its position.
void ListRange(const ArrayData& array, int64_t row, int64_t* start, int64_t* end) {
  if (array.type->id() == TypeId::kFixedSizeList) {
    const int64_t size = array.type->list_size();
    *start = (array.offset + row) * size;
    *end = *start + size;
  } else if (IsListView(array.type->id())) {
    const auto [offset, size] = ListViewRange(array, row);
    *start = offset;
    *end = offset + size;
  } else if (HasLargeOffsets(array.type->id())) {
    ValueRange<int64_t>(array, row, start, end);
  } else {
    ValueRange<int32_t>(array, row, start, end);
  }
}

// Where a slot lies below its column, as a chain of child names spelled out only when a
// difference is reported: the comparison visits every slot, and building the path string at
// each one was most of its time.
struct ChildPath {
  const ChildPath* parent = nullptr;
  std::string_view name;

  std::string ToString() const {
    if (parent == nullptr) return std::string(name);
    return parent->ToString().append(".").append(name);
  }
};

bool Fail(std::string* difference, const ChildPath& path, int64_t row, const std::string& what) {
  if (difference != nullptr) {
    std::ostringstream text;
    text << path.ToString() << " row " << row << ": " << what;
    *difference = text.str();
  }
  return false;
}

bool SlotEqual(const ArrayData& left, int64_t left_row, const ArrayData& right, int64_t right_row,
               const ChildPath& path, std::string* difference);

bool RangeEqual(const ArrayData& left, int64_t left_start, const ArrayData& right,
                int64_t right_start, int64_t count, const ChildPath& path,
                std::string* difference) {
  for (int64_t i = 0; i < count; ++i) {
    if (!SlotEqual(left, left_start + i, right, right_start + i, path, difference)) return false;
  }
  return true;
}

bool SlotEqual(const ArrayData& left, int64_t left_row, const ArrayData& right, int64_t right_row,
               const ChildPath& path, std::string* difference) {
  const bool left_valid = left.IsValid(left_row);
  if (left_valid != right.IsValid(right_row)) {
    return Fail(difference, path, left_row, left_valid ? "right is null" : "left is null");
  }
  if (!left_valid) return true;
  const TypeId id = left.type->id();
  switch (id) {
    case TypeId::kNull:
      return true;
    case TypeId::kBoolean: {
      const bool a = bits::GetBit(left.buffers[1].data, left.offset + left_row);
      const bool b = bits::GetBit(right.buffers[1].data, right.offset + right_row);
      return a == b || Fail(difference, path, left_row, "booleans differ");
    }
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      int64_t a_start, a_end, b_start, b_end;
      if (HasLargeOffsets(id)) {
        ValueRange<int64_t>(left, left_row, &a_start, &a_end);
        ValueRange<int64_t>(right, right_row, &b_start, &b_end);
      } else {
        ValueRange<int32_t>(left, left_row, &a_start, &a_end);
        ValueRange<int32_t>(right, right_row, &b_start, &b_end);
      }
      // Empty values may have no data buffer at all; memcmp must not see a null pointer.
      if (a_end - a_start != b_end - b_start ||
          (a_end > a_start &&
           std::memcmp(left.value_bytes() + a_start, right.value_bytes() + b_start,
                       static_cast<size_t>(a_end - a_start)) != 0)) {
        return Fail(difference, path, left_row, "bytes differ");
      }
      return true;
    }
    case TypeId::kBinaryView:
    case TypeId::kUtf8View:
      return left.view_value(left_row) == right.view_value(right_row) ||
             Fail(difference, path, left_row, "bytes differ");
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kFixedSizeList: {
      int64_t a_start, a_end, b_start, b_end;
      ListRange(left, left_row, &a_start, &a_end);
      ListRange(right, right_row, &b_start, &b_end);
      if (a_end - a_start != b_end - b_start) {
        return Fail(difference, path, left_row, "list lengths differ");
      }
      return RangeEqual(left.children[0], a_start, right.children[0], b_start, a_end - a_start,
                        ChildPath{&path, left.type->children()[0].name}, difference);
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      // The same type id, and the same value in the child it names.
      if (UnionTypeCode(left, left_row) != UnionTypeCode(right, right_row)) {
        return Fail(difference, path, left_row, "union type ids differ");
      }
      const auto [child, a] = UnionChildRow(left, left_row);
      const int64_t b = UnionChildRow(right, right_row).second;
      const auto c = static_cast<size_t>(child);
      return SlotEqual(left.children[c], a, right.children[c], b,
                       ChildPath{&path, left.type->children()[c].name}, difference);
    }
    case TypeId::kRunEndEncoded:
      // The values the rows' runs hold: the same rows in other runs are equal.
      return SlotEqual(left.children[1], RunEndPhysicalIndex(left, left_row), right.children[1],
                       RunEndPhysicalIndex(right, right_row),
                       ChildPath{&path, left.type->children()[1].name}, difference);
    case TypeId::kDictionary:
      // The values the indices select: the same values under other indices are equal.
      return SlotEqual(left.children[0], DictionaryIndexAt(left, left_row), right.children[0],
                       DictionaryIndexAt(right, right_row), ChildPath{&path, "[dictionary]"},
                       difference);
    case TypeId::kStruct: {
      for (size_t c = 0; c < left.children.size(); ++c) {
        if (!SlotEqual(left.children[c], left_row, right.children[c], right_row,
                       ChildPath{&path, left.type->children()[c].name}, difference)) {
          return false;
        }
      }
      return true;
    }
    default: {
      const int64_t width = BitWidth(*left.type) / 8;
      SLUICE_DCHECK(IsFixedWidth(id));
      const uint8_t* a = left.buffers[1].data + (left.offset + left_row) * width;
      const uint8_t* b = right.buffers[1].data + (right.offset + right_row) * width;
      if (std::memcmp(a, b, static_cast<size_t>(width)) != 0) {
        return Fail(difference, path, left_row, "values differ");
      }
      return true;
    }
  }
}

}  // namespace

bool ArraysEqual(const ArrayData& left, const ArrayData& right, std::string* difference) {
  if (!left.type->Equals(*right.type)) {
    return Fail(difference, ChildPath{}, 0,
                "types differ: " + left.type->ToString() + " vs " + right.type->ToString());
  }
  if (left.length != right.length) {
    return Fail(
        difference, ChildPath{}, 0,
        "lengths differ: " + std::to_string(left.length) + " vs " + std::to_string(right.length));
  }
  return RangeEqual(left, 0, right, 0, left.length, ChildPath{}, difference);
}

bool BatchesEqual(const RecordBatch& left, const RecordBatch& right, std::string* difference) {
  if (!left.schema()->Equals(*right.schema())) {
    return Fail(
        difference, ChildPath{nullptr, "schema"}, 0,
        "schemas differ:\n" + left.schema()->ToString() + "vs\n" + right.schema()->ToString());
  }
  if (left.num_rows() != right.num_rows()) {
    return Fail(difference, ChildPath{nullptr, "batch"}, 0,
                "row counts differ: " + std::to_string(left.num_rows()) + " vs " +
                    std::to_string(right.num_rows()));
  }
  for (size_t c = 0; c < left.num_columns(); ++c) {
    std::string inner;
    if (!ArraysEqual(left.column(c), right.column(c), &inner)) {
      if (difference != nullptr) *difference = "column " + left.schema()->field(c).name + inner;
      return false;
    }
  }
  return true;
}

}  // namespace sluice
