#include "sluice/format/array_data.h"

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
  if (type->id() == TypeId::kStruct) {
    for (auto& child : sliced.children) child = child.Slice(start, count);
  }
  return sliced;
}

int64_t ReferencedBytes(const ArrayData& array) {
  int64_t total = 0;
  for (const auto& buffer : array.buffers) total += buffer.size;
  for (const auto& buffer : array.variadic_buffers) total += buffer.size;
  for (const auto& child : array.children) total += ReferencedBytes(child);
  return total;
}

}  // namespace sluice
