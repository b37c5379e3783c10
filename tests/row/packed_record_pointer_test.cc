#include "sluice/row/packed_record_pointer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/test_vectors.h"

namespace sluice {
namespace {

// Returns the hex number after `marker` in unsafe_row.txt.
uint64_t HexAfter(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + marker.size()), nullptr, 16);
}

TEST(PackedRecordPointerTest, MatchesTheSharedVector) {
  // "page 3, offset 1000, partition 7 packs to 0x00000700180003e8".
  std::ifstream file(testing::VectorPath("unsafe_row.txt"));
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const uint64_t expected = HexAfter(text, "packs to 0x");
  const uint64_t packed = PackedRecordPointer::Pack(7, 3, 1000);
  EXPECT_EQ(packed, expected);
  EXPECT_EQ(PackedRecordPointer::Partition(packed), 7u);
  EXPECT_EQ(PackedRecordPointer::Page(packed), 3u);
  EXPECT_EQ(PackedRecordPointer::Offset(packed), 1000u);
  const uint64_t largest =
      PackedRecordPointer::Pack(static_cast<uint32_t>(PackedRecordPointer::kMaxPartitionId),
                                static_cast<uint32_t>(PackedRecordPointer::kMaxPageNumber),
                                static_cast<uint32_t>(PackedRecordPointer::kMaxOffsetInPage));
  EXPECT_EQ(largest, ~uint64_t{0});
  EXPECT_EQ(PackedRecordPointer::kMaxPageBytes, int64_t{128} << 20);
}

std::vector<std::pair<uint64_t, uint32_t>> ParsePairs(const std::string& text) {
  std::vector<std::pair<uint64_t, uint32_t>> pairs;
  std::istringstream words(text);
  std::string pair;
  while (words >> pair) {
    const size_t comma = pair.find(',');
    pairs.emplace_back(std::stoull(pair.substr(0, comma)),
                       static_cast<uint32_t>(std::stoul(pair.substr(comma + 1))));
  }
  return pairs;
}

TEST(PackedRecordPointerTest, SortsTheSharedVectorStably) {
  std::vector<std::pair<uint64_t, uint32_t>> input;
  std::vector<std::pair<uint64_t, uint32_t>> sorted;
  for (const auto& row : testing::ReadVectorRows("radix_sort.tsv")) {
    ASSERT_EQ(row.size(), 2u);
    (row[0] == "input" ? input : sorted) = ParsePairs(row[1]);
  }
  ASSERT_FALSE(input.empty());
  ASSERT_EQ(input.size(), sorted.size());
  // The vector's pointer goes in the offset bits, which the sort must carry along unchanged.
  std::vector<uint64_t> pointers;
  for (const auto& [pointer, partition] : input) {
    pointers.push_back(PackedRecordPointer::Pack(partition, 0, static_cast<uint32_t>(pointer)));
  }
  std::vector<uint64_t> scratch(pointers.size());
  const uint64_t* result = SortPointersByPartition(pointers.data(), scratch.data(),
                                                   static_cast<int64_t>(pointers.size()));
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(PackedRecordPointer::Offset(result[i]), sorted[i].first) << i;
    EXPECT_EQ(PackedRecordPointer::Partition(result[i]), sorted[i].second) << i;
  }
}

TEST(PackedRecordPointerTest, RandomSortsAreStableForEveryPartitionWidth) {
  std::mt19937_64 rng(5);
  // One partition (no pass), one byte, two bytes, three bytes, and ids far apart.
  for (const uint32_t partitions : {1u, 2u, 200u, 256u, 257u, 70000u, 1u << 24}) {
    for (const int64_t count : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{5000}}) {
      std::vector<uint64_t> pointers(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        // Page and offset number the rows, so stability is visible.
        pointers[i] = PackedRecordPointer::Pack(static_cast<uint32_t>(rng() % partitions),
                                                static_cast<uint32_t>(i >> 12),
                                                static_cast<uint32_t>(i & 0xfff));
      }
      std::vector<uint64_t> expected = pointers;
      std::stable_sort(expected.begin(), expected.end(), [](uint64_t a, uint64_t b) {
        return PackedRecordPointer::Partition(a) < PackedRecordPointer::Partition(b);
      });
      std::vector<uint64_t> scratch(pointers.size());
      const uint64_t* result = SortPointersByPartition(pointers.data(), scratch.data(), count);
      EXPECT_TRUE(result == pointers.data() || result == scratch.data());
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(), result))
          << partitions << " partitions, " << count << " pointers";
    }
  }
}

TEST(PackedRecordPointerTest, SkipsBytesEveryPointerShares) {
  // Partitions 0x010203 and 0x010207 differ only in their low byte: one pass, so the result is
  // in the scratch half; a single partition needs no pass at all.
  std::vector<uint64_t> pointers = {PackedRecordPointer::Pack(0x010207, 0, 0),
                                    PackedRecordPointer::Pack(0x010203, 0, 1)};
  std::vector<uint64_t> scratch(2);
  EXPECT_EQ(SortPointersByPartition(pointers.data(), scratch.data(), 2), scratch.data());
  EXPECT_EQ(PackedRecordPointer::Offset(scratch[0]), 1u);
  std::vector<uint64_t> same = {PackedRecordPointer::Pack(9, 1, 2),
                                PackedRecordPointer::Pack(9, 0, 1)};
  EXPECT_EQ(SortPointersByPartition(same.data(), scratch.data(), 2), same.data());
}

}  // namespace
}  // namespace sluice
