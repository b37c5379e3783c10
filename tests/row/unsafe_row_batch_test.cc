#include "sluice/row/unsafe_row_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice {
namespace {

TEST(UnsafeRowBatchTest, SplitsASizePrefixedStream) {
  const std::vector<uint8_t> stream = {0, 0, 0, 8, 1, 2, 3, 4,
                                       5, 6, 7, 8, 0, 0, 0, 0,  // an empty row
                                       0, 0, 0, 2, 9, 9};
  std::vector<const uint8_t*> rows;
  std::vector<int32_t> sizes;
  ASSERT_TRUE(
      SplitFramedRows(stream.data(), static_cast<int64_t>(stream.size()), &rows, &sizes).ok());
  ASSERT_EQ(sizes, (std::vector<int32_t>{8, 0, 2}));
  EXPECT_EQ(rows[0], stream.data() + 4);
  EXPECT_EQ(rows[1], stream.data() + 16);
  EXPECT_EQ(rows[2], stream.data() + 20);
}

TEST(UnsafeRowBatchTest, RejectsTruncatedAndNegativeFrames) {
  struct Case {
    std::vector<uint8_t> stream;
    std::string expected;
  };
  const Case cases[] = {
      {{0, 0, 0, 8, 1, 2, 3}, "byte offset 0: row size 8 does not fit in the 3 bytes"},
      {{0, 0, 0, 1, 7, 0, 0}, "byte offset 5: expected a 4-byte row size, found 2 bytes"},
      {{0xff, 0xff, 0xff, 0xff}, "byte offset 0: row size -1"},
  };
  for (const Case& c : cases) {
    std::vector<const uint8_t*> rows;
    std::vector<int32_t> sizes;
    const Status status =
        SplitFramedRows(c.stream.data(), static_cast<int64_t>(c.stream.size()), &rows, &sizes);
    ASSERT_TRUE(status.IsCorrupt());
    EXPECT_NE(status.message().find(c.expected), std::string::npos) << status.message();
  }
}

TEST(UnsafeRowBatchTest, ListsRowPointersAndClears) {
  UnsafeRowBatch batch;
  batch.bytes.Resize(24);
  batch.offsets = {0, 8};
  batch.sizes = {8, 16};
  std::vector<const uint8_t*> rows;
  batch.RowPointers(&rows);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], batch.bytes.data() + 8);
  EXPECT_EQ(batch.row(1), rows[1]);
  batch.Clear();
  EXPECT_EQ(batch.num_rows(), 0);
  EXPECT_EQ(batch.bytes.size(), 0);
}

}  // namespace
}  // namespace sluice
