// BatchQueue: first in, first out, across the ring's wrap and its growth.
#include <gtest/gtest.h>

#include <deque>

#include "read/batch_queue_internal.h"
#include "support/random_batch.h"

namespace sluice::internal {
namespace {

TEST(BatchQueueTest, KeepsOrderAcrossWrapsAndGrowth) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("a", DataType::Int64())});
  BatchQueue queue;
  std::deque<int64_t> expected;  // the row counts queued, as the reference
  int64_t next_rows = 1;
  // Bursts of pushes longer and shorter than the pops between them: the ring wraps, grows with
  // its front anywhere, and empties.
  for (int round = 0; round < 40; ++round) {
    const int pushes = (round * 7) % 11;
    const int pops = (round * 5) % 9;
    for (int i = 0; i < pushes; ++i) {
      queue.push_back(testing::RandomBatch(schema, next_rows, next_rows));
      expected.push_back(next_rows++);
    }
    for (int i = 0; i < pops && !expected.empty(); ++i) {
      ASSERT_FALSE(queue.empty());
      const RecordBatch batch = std::move(queue.front());
      queue.pop_front();
      EXPECT_EQ(batch.num_rows(), expected.front());
      expected.pop_front();
    }
    ASSERT_EQ(queue.size(), expected.size());
    ASSERT_EQ(queue.empty(), expected.empty());
  }
  for (; !expected.empty(); expected.pop_front()) {
    EXPECT_EQ(queue.front().num_rows(), expected.front());
    queue.pop_front();
  }
  EXPECT_TRUE(queue.empty());
  queue.push_back(testing::RandomBatch(schema, 3, 3));
  EXPECT_EQ(queue.front().num_rows(), 3);
}

}  // namespace
}  // namespace sluice::internal
