#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/partition/partitioner.h"
#include "sluice/partition/xor_shift_random.h"
#include "support/random_batch.h"
#include "support/test_vectors.h"

namespace sluice {
namespace {

RecordBatch IntBatch(int64_t rows, int32_t first_value = 0) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("v", DataType::Int32())});
  auto builders = MakeBuilders(*schema);
  for (int64_t row = 0; row < rows; ++row) {
    builders[0]->Append<int32_t>(static_cast<int32_t>(first_value + row));
  }
  return FinishBatch(schema, builders);
}

std::unique_ptr<Partitioner> MakeRoundRobin(int32_t partitions, int32_t map_partition_id,
                                            RoundRobinMode mode, const Schema& schema) {
  PartitionerOptions options;
  options.kind = PartitionKind::kRoundRobin;
  options.partition_count = partitions;
  options.map_partition_id = map_partition_id;
  options.round_robin_mode = mode;
  auto partitioner = MakePartitioner(options, schema);
  EXPECT_TRUE(partitioner.ok()) << partitioner.status().ToString();
  return std::move(partitioner).ValueOrDie();
}

TEST(XorShiftRandomTest, StartPositionsMatchEverySharedVector) {
  const auto rows = testing::ReadVectorRows("round_robin.tsv");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 2u);
    const auto partitions = static_cast<int32_t>(testing::ParseVectorInteger(row[0]));
    std::istringstream starts(row[1]);
    for (int32_t map_id = 0; map_id < 8; ++map_id) {
      int32_t expected = -1;
      ASSERT_TRUE(starts >> expected) << "n = " << partitions;
      EXPECT_EQ(RoundRobinStartPosition(map_id, partitions), expected)
          << "n = " << partitions << " map partition " << map_id;
    }
  }
}

TEST(XorShiftRandomTest, NextIntStaysInBoundForPowersOfTwoAndOthers) {
  XorShiftRandom random(12345);
  for (int32_t bound : {1, 2, 3, 8, 1000, 1 << 30, 0x7fffffff}) {
    for (int i = 0; i < 1000; ++i) {
      const int32_t value = random.NextInt(bound);
      ASSERT_GE(value, 0);
      ASSERT_LT(value, bound);
    }
  }
}

TEST(RoundRobinPartitionerTest, FirstRowGoesAfterSparksStartPositionForEveryVector) {
  const RecordBatch batch = IntBatch(25);
  for (const auto& row : testing::ReadVectorRows("round_robin.tsv")) {
    const auto partitions = static_cast<int32_t>(testing::ParseVectorInteger(row[0]));
    std::istringstream starts(row[1]);
    for (int32_t map_id = 0; map_id < 8; ++map_id) {
      int32_t start = 0;
      ASSERT_TRUE(starts >> start);
      auto partitioner =
          MakeRoundRobin(partitions, map_id, RoundRobinMode::kSpark, *batch.schema());
      EXPECT_EQ(partitioner->partition_count(), partitions);
      std::vector<uint32_t> ids(25);
      ASSERT_TRUE(partitioner->Partition(batch, ids.data()).ok());
      for (int64_t r = 0; r < 25; ++r) {
        ASSERT_EQ(ids[static_cast<size_t>(r)], static_cast<uint32_t>((start + 1 + r) % partitions))
            << "n = " << partitions << " map " << map_id << " row " << r;
      }
    }
  }
}

TEST(RoundRobinPartitionerTest, PositionContinuesAcrossBatches) {
  const RecordBatch batch = IntBatch(1000);
  auto whole = MakeRoundRobin(7, 3, RoundRobinMode::kSpark, *batch.schema());
  std::vector<uint32_t> expected(1000);
  ASSERT_TRUE(whole->Partition(batch, expected.data()).ok());

  auto pieces = MakeRoundRobin(7, 3, RoundRobinMode::kSpark, *batch.schema());
  std::vector<uint32_t> ids(1000);
  int64_t first = 0;
  for (int64_t size : {1, 0, 6, 100, 393, 500}) {
    ASSERT_TRUE(pieces->Partition(batch.Slice(first, size), ids.data() + first).ok());
    first += size;
  }
  ASSERT_EQ(first, 1000);
  EXPECT_EQ(ids, expected);
}

TEST(RoundRobinPartitionerTest, SinglePartitionSendsEverythingToZero) {
  const RecordBatch batch = IntBatch(10);
  auto partitioner = MakeRoundRobin(1, 5, RoundRobinMode::kSpark, *batch.schema());
  std::vector<uint32_t> ids(10, 99);
  ASSERT_TRUE(partitioner->Partition(batch, ids.data()).ok());
  EXPECT_EQ(ids, std::vector<uint32_t>(10, 0));
}

TEST(RoundRobinPartitionerTest, RowHashModeDoesNotDependOnRowOrder) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  const RecordBatch batch = testing::RandomBatch(schema, 300, 5);
  auto partitioner = MakeRoundRobin(13, 0, RoundRobinMode::kRowHash, *schema);
  EXPECT_EQ(partitioner->kind(), PartitionKind::kRoundRobin);
  std::vector<uint32_t> ids(300);
  ASSERT_TRUE(partitioner->Partition(batch, ids.data()).ok());

  // The same rows in another order (here: in slices fed back to front) land the same way, and
  // another map task places them the same way too.
  auto retry = MakeRoundRobin(13, 4, RoundRobinMode::kRowHash, *schema);
  for (int64_t first : {250, 100, 0}) {
    const int64_t size = first == 250 ? 50 : (first == 100 ? 150 : 100);
    std::vector<uint32_t> part(static_cast<size_t>(size));
    ASSERT_TRUE(retry->Partition(batch.Slice(first, size), part.data()).ok());
    for (int64_t r = 0; r < size; ++r) {
      ASSERT_EQ(part[static_cast<size_t>(r)], ids[static_cast<size_t>(first + r)]);
    }
  }
  // It is pmod of Spark's murmur3 over all columns.
  PartitionerOptions hash_options;
  hash_options.kind = PartitionKind::kHash;
  hash_options.partition_count = 13;
  for (size_t c = 0; c < schema->num_fields(); ++c)
    hash_options.key_columns.push_back(static_cast<int>(c));
  auto hash = MakePartitioner(hash_options, *schema);
  ASSERT_TRUE(hash.ok());
  std::vector<uint32_t> hash_ids(300);
  ASSERT_TRUE((*hash)->Partition(batch, hash_ids.data()).ok());
  EXPECT_EQ(ids, hash_ids);
}

TEST(RoundRobinPartitionerTest, RejectsBadOptions) {
  const RecordBatch batch = IntBatch(1);
  PartitionerOptions options;
  options.kind = PartitionKind::kRoundRobin;
  options.partition_count = 0;
  EXPECT_TRUE(MakePartitioner(options, *batch.schema()).status().IsInvalid());
  options.partition_count = 4;
  options.map_partition_id = -1;
  EXPECT_TRUE(MakePartitioner(options, *batch.schema()).status().IsInvalid());
}

}  // namespace
}  // namespace sluice
