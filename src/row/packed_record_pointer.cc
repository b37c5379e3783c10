#include "sluice/row/packed_record_pointer.h"

#include <array>
#include <utility>

namespace sluice {

namespace {

constexpr int kPartitionBytes = 3;  // the 24-bit partition id: bytes 5, 6 and 7 of the word

}  // namespace

uint64_t* SortPointersByPartition(uint64_t* pointers, uint64_t* scratch, int64_t count) {
  if (count <= 1) return pointers;
  // One counting pass for the three bytes.
  std::array<std::array<int64_t, 256>, kPartitionBytes> counts{};
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t partition = pointers[i] >> PackedRecordPointer::kPartitionShift;
    ++counts[0][partition & 0xff];
    ++counts[1][(partition >> 8) & 0xff];
    ++counts[2][(partition >> 16) & 0xff];
  }
  const uint64_t first_partition = pointers[0] >> PackedRecordPointer::kPartitionShift;
  uint64_t* input = pointers;
  uint64_t* output = scratch;
  for (int byte = 0; byte < kPartitionBytes; ++byte) {
    // A byte every pointer shares cannot change the order: no pass for it (100 partitions sort
    // in one pass, one partition in none).
    if (counts[byte][(first_partition >> (8 * byte)) & 0xff] == count) continue;
    std::array<int64_t, 256> next;
    int64_t start = 0;
    for (int value = 0; value < 256; ++value) {
      next[value] = start;
      start += counts[byte][value];
    }
    const int shift = PackedRecordPointer::kPartitionShift + 8 * byte;
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t pointer = input[i];
      output[next[(pointer >> shift) & 0xff]++] = pointer;
    }
    std::swap(input, output);
  }
  return input;
}

}  // namespace sluice
