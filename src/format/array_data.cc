#include "sluice/format/array_data.h"

#include <algorithm>
#include <type_traits>

#include "sluice/format/type_visitor.h"

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
  return VisitRunEndType(
      run_ends.type->id(),
      [&](auto run_end) {
        return FirstRunEndingAfter<typename decltype(run_end)::type>(run_ends, logical);
      },
      [&] { return FirstRunEndingAfter<int64_t>(run_ends, logical); });
}

int64_t RunEndAt(const ArrayData& run_ends, int64_t index) {
  return VisitRunEndType(
      run_ends.type->id(),
      [&](auto run_end) -> int64_t {
        return run_ends.values<typename decltype(run_end)::type>()[index];
      },
      [&] { return run_ends.values<int64_t>()[index]; });
}

int64_t DictionaryIndexAt(const ArrayData& array, int64_t index) {
  const uint8_t* data = array.buffers[1].data;
  const int64_t slot = array.offset + index;
  return VisitIntegerType(
      array.type->index_type()->id(),
      [&](auto index_type) -> int64_t {
        using Index = typename decltype(index_type)::type;
        const Index value = bits::LoadUnaligned<Index>(data + slot * int64_t{sizeof(Index)});
        if constexpr (std::is_same_v<Index, uint64_t>) {
          // Above INT64_MAX is out of range of any dictionary: -1 is refused alike.
          return value > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(value);
        } else {
          return value;
        }
      },
      [&] { return bits::LoadUnaligned<int64_t>(data + slot * 8); });
}

int64_t ReferencedBytes(const ArrayData& array) {
  int64_t total = 0;
  for (const auto& buffer : array.buffers) total += buffer.size;
  for (const auto& buffer : array.variadic_buffers) total += buffer.size;
  for (const auto& child : array.children) total += ReferencedBytes(child);
  return total;
}

}  // namespace sluice
