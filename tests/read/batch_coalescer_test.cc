// BatchCoalescer: small batches are joined up to the targets, in order; large batches pass
// through without a copy.
#include <gtest/gtest.h>

#include "map_output_fixture.h"
#include "read/batch_coalescer_internal.h"

namespace sluice::internal {
namespace {

using testing::ExpectSameRows;

std::vector<RecordBatch> Slices(const RecordBatch& batch, const std::vector<int64_t>& sizes) {
  std::vector<RecordBatch> slices;
  int64_t start = 0;
  for (int64_t size : sizes) {
    slices.push_back(batch.Slice(start, size));
    start += size;
  }
  return slices;
}

std::vector<RecordBatch> Coalesce(BatchCoalescer& coalescer, const std::vector<RecordBatch>& in) {
  BatchQueue out;
  for (const auto& batch : in) EXPECT_TRUE(coalescer.Add(batch, &out).ok());
  EXPECT_TRUE(coalescer.Flush(&out).ok());
  EXPECT_TRUE(coalescer.empty());
  std::vector<RecordBatch> batches;
  for (; !out.empty(); out.pop_front()) batches.push_back(std::move(out.front()));
  return batches;
}

std::vector<int64_t> RowCounts(const std::vector<RecordBatch>& batches) {
  std::vector<int64_t> rows;
  for (const auto& batch : batches) rows.push_back(batch.num_rows());
  return rows;
}

TEST(BatchCoalescerTest, JoinsSmallBatchesUpToTheRowTarget) {
  const RecordBatch batch = testing::RandomBatch(testing::AllTypesSchema(2), 100, 3);
  const auto in = Slices(batch, {10, 10, 10, 5, 0, 20, 15, 30});
  BatchCoalescer coalescer(50, int64_t{1} << 30);
  const auto out = Coalesce(coalescer, in);
  // 10+10+10+5 = 35 (adding 20 would pass 50), 20+15 = 35, then 30 passes through (at least
  // half the target) after them; the empty batch is dropped.
  EXPECT_EQ(RowCounts(out), (std::vector<int64_t>{35, 35, 30}));
  ExpectSameRows({batch}, out);
  EXPECT_EQ(coalescer.counters().coalesced_batches, 2);
  EXPECT_EQ(coalescer.counters().coalesced_inputs, 6);
}

TEST(BatchCoalescerTest, LargeBatchesPassThroughWithoutACopy) {
  const RecordBatch batch = testing::RandomBatch(testing::AllTypesSchema(1), 300, 4);
  const auto in = Slices(batch, {5, 5, 100, 60, 50, 80});
  BatchCoalescer coalescer(100, int64_t{1} << 30);
  const auto out = Coalesce(coalescer, in);
  // 5+5 joined, then 100 and 60 pass (at least half the target), then 50 (half) passes too,
  // and 80 passes.
  EXPECT_EQ(RowCounts(out), (std::vector<int64_t>{10, 100, 60, 50, 80}));
  ExpectSameRows({batch}, out);
  // A passed-through batch views the input's buffers.
  for (size_t i = 1; i < out.size(); ++i) {
    EXPECT_EQ(out[i].column(29).buffers[1].data, in[i + 1].column(29).buffers[1].data);
  }
  EXPECT_EQ(coalescer.counters().coalesced_batches, 1);
}

TEST(BatchCoalescerTest, JoinsUpToTheByteTarget) {
  const RecordBatch batch = testing::RandomBatch(testing::AllTypesSchema(0), 64, 5);
  const auto in = Slices(batch, std::vector<int64_t>(16, 4));
  const int64_t bytes = in[0].ReferencedBytes();
  // Room for about three slices' bytes per output; the row target never binds.
  BatchCoalescer coalescer(1 << 20, bytes * 7 / 2);
  const auto out = Coalesce(coalescer, in);
  ExpectSameRows({batch}, out);
  EXPECT_GT(out.size(), 3u);
  for (const auto& joined : out) EXPECT_LE(joined.num_rows(), 12);
}

TEST(BatchCoalescerTest, ASingleHeldBatchIsEmittedAsItIs) {
  const RecordBatch batch = testing::RandomBatch(testing::AllTypesSchema(0), 10, 6);
  BatchCoalescer coalescer(1000, int64_t{1} << 30);
  const auto out = Coalesce(coalescer, {batch});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].column(5).buffers[1].data, batch.column(5).buffers[1].data);
  EXPECT_EQ(coalescer.counters().coalesced_batches, 0);
}

}  // namespace
}  // namespace sluice::internal
