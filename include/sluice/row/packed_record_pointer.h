// PackedRecordPointer: Spark's 64-bit sort key of the row writer, and the radix sort over it.
//
// Layout (Spark's PackedRecordPointer): partition id in bits 40..63 (24 bits), page number in
// bits 27..39 (13 bits), offset in page in bits 0..26 (27 bits, so pages of at most 128 MiB).
// Sorting the words by partition id sorts the rows they point to by partition.
#pragma once

#include <cstdint>

namespace sluice {

/// Packs and unpacks (partition, page, offset) record pointers.
struct PackedRecordPointer {
  static constexpr int kPartitionShift = 40;
  static constexpr int kPageShift = 27;
  static constexpr uint64_t kMaxPartitionId = (uint64_t{1} << 24) - 1;
  static constexpr uint64_t kMaxPageNumber = (uint64_t{1} << 13) - 1;
  static constexpr uint64_t kMaxOffsetInPage = (uint64_t{1} << 27) - 1;
  /// The largest page the 27 offset bits can address.
  static constexpr int64_t kMaxPageBytes = int64_t{1} << 27;

  static constexpr uint64_t Pack(uint32_t partition, uint32_t page, uint32_t offset) {
    return (uint64_t{partition} << kPartitionShift) | (uint64_t{page} << kPageShift) |
           uint64_t{offset};
  }
  static constexpr uint32_t Partition(uint64_t packed) {
    return static_cast<uint32_t>(packed >> kPartitionShift);
  }
  static constexpr uint32_t Page(uint64_t packed) {
    return static_cast<uint32_t>((packed >> kPageShift) & kMaxPageNumber);
  }
  static constexpr uint32_t Offset(uint64_t packed) {
    return static_cast<uint32_t>(packed & kMaxOffsetInPage);
  }
};

/// Sorts `count` packed pointers by partition id, stably (LSD radix sort over the three
/// partition-id bytes, skipping a byte every pointer shares), using `scratch` (room for `count`
/// pointers) as the other half. Returns where the sorted pointers are: `pointers` or `scratch`.
uint64_t* SortPointersByPartition(uint64_t* pointers, uint64_t* scratch, int64_t count);

}  // namespace sluice
