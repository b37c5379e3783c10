#include "sluice/format/array_data.h"

#include <algorithm>

namespace sluice {

ArrayData ArrayData::Slice(int64_t start, int64_t count) const {
  ArrayData sliced = *this;
  sliced.offset = offset + start;
  sliced.length = count;
  if (type->id() == TypeId::kNull) {
    sliced.null_count = count;
  } else if (null_count == 0 || buffers[0].data == nullptr) {
    sliced.null_count = 0;
  } else {
    sliced.null_count = count - bits::CountSetBits(buffers[0].data, sliced.offset, count);
  }
  if (type->id() == TypeId::kStruct || type->id() == TypeId::kSparseUnion) {
    for (auto& child : sliced.children) child = child.Slice(start, count);
  }
  return sliced;
}

namespace {

template <typename RunEnd>
int64_t FirstRunEndingAfter(const ArrayData& run_ends, int64_t logical) {
  const RunEnd* begin = run_ends.values<RunEnd>();
  const RunEnd* end = begin + run_ends.length;
  return std::upper_bound(begin, end, logical,
                          [](int64_t value, RunEnd run_end) { return value < run_end; }) -
         begin;
}

}  // namespace

int64_t RunEndPhysicalIndex(const ArrayData& array, int64_t index) {
  const ArrayData& run_ends = array.children[0];
  const int64_t logical = array.offset + index;
  switch (run_ends.type->id()) {
    case TypeId::kInt16:
      return FirstRunEndingAfter<int16_t>(run_ends, logical);
    case TypeId::kInt32:
      return FirstRunEndingAfter<int32_t>(run_ends, logical);
    default:
      return FirstRunEndingAfter<int64_t>(run_ends, logical);
  }
}

int64_t RunEndAt(const ArrayData& run_ends, int64_t index) {
  switch (run_ends.type->id()) {
    case TypeId::kInt16:
      return run_ends.values<int16_t>()[index];
    case TypeId::kInt32:
      return run_ends.values<int32_t>()[index];
    default:
      return run_ends.values<int64_t>()[index];
  }
}

int64_t DictionaryIndexAt(const ArrayData& array, int64_t index) {
  const uint8_t* data = array.buffers[1].data;
  const int64_t slot = array.offset + index;
  switch (array.type->index_type()->id()) {
    case TypeId::kInt8:
      return static_cast<int8_t>(data[slot]);
    case TypeId::kUInt8:
      return data[slot];
    case TypeId::kInt16:
      return bits::LoadUnaligned<int16_t>(data + slot * 2);
    case TypeId::kUInt16:
      return bits::LoadUnaligned<uint16_t>(data + slot * 2);
    case TypeId::kInt32:
      return bits::LoadUnaligned<int32_t>(data + slot * 4);
    case TypeId::kUInt32:
      return bits::LoadUnaligned<uint32_t>(data + slot * 4);
    case TypeId::kUInt64: {
      // Above INT64_MAX is out of range of any dictionary: -1 is refused alike.
      const uint64_t value = bits::LoadUnaligned<uint64_t>(data + slot * 8);
      return value > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(value);
    }
    default:
      return bits::LoadUnaligned<int64_t>(data + slot * 8);
  }
}

int64_t ReferencedBytes(const ArrayData& array) {
  int64_t total = 0;
  for (const auto& buffer : array.buffers) total += buffer.size;
  for (const auto& buffer : array.variadic_buffers) total += buffer.size;
  for (const auto& child : array.children) total += ReferencedBytes(child);
  return total;
}

}  // namespace sluice
