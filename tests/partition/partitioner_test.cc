#include "sluice/partition/partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/partition/column_hash.h"
#include "sluice/partition/spark_hash.h"
#include "support/batch_maker.h"
#include "support/test_vectors.h"

namespace sluice {
namespace {

using testing::BatchMaker;

TEST(PartitionKindTest, ParsesEveryNameAndPrintsItBack) {
  for (const char* name : {"hash", "range", "round-robin", "single", "given"}) {
    auto kind = ParsePartitionKind(name);
    ASSERT_TRUE(kind.ok()) << name;
    EXPECT_EQ(PartitionKindName(*kind), name);
  }
  const Status unknown = ParsePartitionKind("roundrobin").status();
  EXPECT_TRUE(unknown.IsInvalid());
  EXPECT_NE(unknown.message().find("round-robin"), std::string::npos) << unknown.message();
}

TEST(PartitionKindTest, ParsesRoundRobinModesAndSortOrders) {
  EXPECT_EQ(*ParseRoundRobinMode("spark"), RoundRobinMode::kSpark);
  EXPECT_EQ(*ParseRoundRobinMode("row-hash"), RoundRobinMode::kRowHash);
  EXPECT_EQ(RoundRobinModeName(RoundRobinMode::kRowHash), "row-hash");
  EXPECT_EQ(*ParseRoundRobinMode("spark-sorted"), RoundRobinMode::kSparkSorted);
  EXPECT_EQ(RoundRobinModeName(RoundRobinMode::kSparkSorted), "spark-sorted");
  EXPECT_TRUE(ParseRoundRobinMode("random").status().IsInvalid());

  const SortOrder asc = *ParseSortOrder("asc");
  EXPECT_EQ(asc.direction, SortDirection::kAscending);
  EXPECT_EQ(asc.null_ordering, NullOrdering::kNullsFirst);
  const SortOrder desc = *ParseSortOrder("DESC");
  EXPECT_EQ(desc.direction, SortDirection::kDescending);
  EXPECT_EQ(desc.null_ordering, NullOrdering::kNullsLast);
  const SortOrder desc_first = *ParseSortOrder("desc nulls first");
  EXPECT_EQ(desc_first.null_ordering, NullOrdering::kNullsFirst);
  EXPECT_EQ(ParseSortOrder("asc nulls last")->null_ordering, NullOrdering::kNullsLast);
  EXPECT_TRUE(ParseSortOrder("ascending").status().IsInvalid());
  EXPECT_TRUE(ParseSortOrder("asc nulls").status().IsInvalid());
}

TEST(HashPartitionerTest, IdsArePmodOfSparkMurmur3) {
  BatchMaker maker({MakeField("id", DataType::Int64()), MakeField("name", DataType::Utf8())});
  for (int64_t row = -500; row < 9500; ++row) {
    if (row % 13 == 0) {
      maker[0].AppendNull();
    } else {
      maker[0].Append<int64_t>(row * 7919);
    }
    maker[1].AppendString("name" + std::to_string(row));
  }
  const RecordBatch batch = maker.Finish();
  const std::vector<int> keys = {0, 1};
  std::vector<uint32_t> hashes(static_cast<size_t>(batch.num_rows()));
  ASSERT_TRUE(Murmur3HashColumns(batch, keys, hashes.data()).ok());
  for (int32_t partitions : {1, 2, 200, 8000, 0x7fffffff}) {
    PartitionerOptions options;
    options.partition_count = partitions;
    options.key_columns = keys;
    auto partitioner = MakePartitioner(options, *batch.schema());
    ASSERT_TRUE(partitioner.ok()) << partitioner.status().ToString();
    EXPECT_EQ((*partitioner)->kind(), PartitionKind::kHash);
    EXPECT_EQ((*partitioner)->partition_count(), partitions);
    std::vector<uint32_t> ids(static_cast<size_t>(batch.num_rows()));
    ASSERT_TRUE((*partitioner)->Partition(batch, ids.data()).ok());
    for (size_t row = 0; row < ids.size(); ++row) {
      const auto hash = static_cast<int64_t>(static_cast<int32_t>(hashes[row]));
      ASSERT_EQ(ids[row], static_cast<uint32_t>(((hash % partitions) + partitions) % partitions))
          << "row " << row << " partitions " << partitions;
    }
  }
}

TEST(HashPartitionerTest, SharedPmodVectorsThroughThePartitioner) {
  // The pmod vectors list Comet's long inputs 1, 0, -1, max, min (murmur3.tsv, seed 42) with
  // the hash they give; partitioning those longs into 200 partitions must give the partition.
  for (const auto& row : testing::ReadVectorRows("pmod.tsv")) {
    const auto hash = static_cast<uint32_t>(testing::ParseVectorInteger(row[0]));
    const auto partitions = static_cast<int32_t>(testing::ParseVectorInteger(row[1]));
    const auto expected = static_cast<uint32_t>(testing::ParseVectorInteger(row[2]));
    for (int64_t value : {int64_t{1}, int64_t{0}, int64_t{-1}, INT64_MAX, INT64_MIN}) {
      if (MurmurHash3Spark::HashLong(value, MurmurHash3Spark::kSeed) != hash) continue;
      BatchMaker maker({MakeField("v", DataType::Int64())});
      maker[0].Append<int64_t>(value);
      const RecordBatch batch = maker.Finish();
      PartitionerOptions options;
      options.partition_count = partitions;
      options.key_columns = {0};
      auto partitioner = MakePartitioner(options, *batch.schema());
      ASSERT_TRUE(partitioner.ok());
      uint32_t id = 0;
      ASSERT_TRUE((*partitioner)->Partition(batch, &id).ok());
      EXPECT_EQ(id, expected) << "long " << value;
    }
  }
}

TEST(HashPartitionerTest, BatchesLargerThanAChunkAndSlicedBatches) {
  BatchMaker maker({MakeField("v", DataType::Int32())});
  for (int32_t v = 0; v < 10000; ++v) {
    if (v % 97 == 0) {
      maker[0].AppendNull();
    } else {
      maker[0].Append<int32_t>(v);
    }
  }
  const RecordBatch batch = maker.Finish();
  PartitionerOptions options;
  options.partition_count = 37;
  options.key_columns = {0};
  auto partitioner = std::move(MakePartitioner(options, *batch.schema())).ValueOrDie();
  std::vector<uint32_t> whole(10000);
  ASSERT_TRUE(partitioner->Partition(batch, whole.data()).ok());
  for (int32_t v = 0; v < 10000; ++v) {
    const auto hash = static_cast<int32_t>(v % 97 == 0 ? MurmurHash3Spark::kSeed
                                                       : MurmurHash3Spark::HashInt(v, 42));
    ASSERT_EQ(whole[static_cast<size_t>(v)], static_cast<uint32_t>(((hash % 37) + 37) % 37));
  }
  const RecordBatch slice = batch.Slice(4099, 5000);
  std::vector<uint32_t> sliced(5000);
  ASSERT_TRUE(partitioner->Partition(slice, sliced.data()).ok());
  EXPECT_TRUE(std::equal(sliced.begin(), sliced.end(), whole.begin() + 4099));
}

TEST(HashPartitionerTest, RejectsBadOptionsAndMismatchedBatches) {
  BatchMaker maker({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8())});
  maker[0].Append<int32_t>(1);
  maker[1].AppendString("x");
  const RecordBatch batch = maker.Finish();
  PartitionerOptions options;
  options.partition_count = 10;
  EXPECT_TRUE(MakePartitioner(options, *batch.schema()).status().IsInvalid());  // no keys
  options.key_columns = {2};
  const Status missing = MakePartitioner(options, *batch.schema()).status();
  EXPECT_TRUE(missing.IsInvalid());
  EXPECT_NE(missing.message().find("hash key column 2 does not exist"), std::string::npos)
      << missing.message();
  options.key_columns = {0};
  options.partition_count = 0;
  EXPECT_TRUE(MakePartitioner(options, *batch.schema()).status().IsInvalid());

  // A partitioner made for int32 keys refuses a batch whose key column is a string.
  options.partition_count = 10;
  Schema other({MakeField("a", DataType::Utf8())});
  auto partitioner = std::move(MakePartitioner(options, other)).ValueOrDie();
  uint32_t id = 0;
  const Status mismatch = partitioner->Partition(batch, &id);
  EXPECT_TRUE(mismatch.IsInvalid());
  EXPECT_NE(mismatch.message().find("has type int32"), std::string::npos) << mismatch.message();
}

TEST(SinglePartitionerTest, SendsEveryRowToZero) {
  BatchMaker maker({MakeField("a", DataType::Int32())});
  for (int i = 0; i < 5; ++i) maker[0].Append<int32_t>(i);
  const RecordBatch batch = maker.Finish();
  PartitionerOptions options;
  options.kind = PartitionKind::kSingle;
  auto partitioner = std::move(MakePartitioner(options, *batch.schema())).ValueOrDie();
  EXPECT_EQ(partitioner->partition_count(), 1);
  std::vector<uint32_t> ids(5, 7);
  ASSERT_TRUE(partitioner->Partition(batch, ids.data()).ok());
  EXPECT_EQ(ids, std::vector<uint32_t>(5, 0));
  options.partition_count = 3;
  EXPECT_TRUE(MakePartitioner(options, *batch.schema()).status().IsInvalid());
}

class GivenPartitionerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Partitioner> Make(const Schema& schema, int32_t partitions = 4) {
    PartitionerOptions options;
    options.kind = PartitionKind::kGiven;
    options.partition_count = partitions;
    options.key_columns = {1};
    auto partitioner = MakePartitioner(options, schema);
    EXPECT_TRUE(partitioner.ok()) << partitioner.status().ToString();
    return std::move(partitioner).ValueOrDie();
  }
  static RecordBatch Batch(const std::vector<std::optional<int32_t>>& ids) {
    BatchMaker maker({MakeField("payload", DataType::Utf8()), MakeField("pid", DataType::Int32())});
    for (const auto& id : ids) {
      maker[0].AppendString("p");
      if (id.has_value()) {
        maker[1].Append<int32_t>(*id);
      } else {
        maker[1].AppendNull();
      }
    }
    return maker.Finish();
  }
};

TEST_F(GivenPartitionerTest, CopiesValidIds) {
  const RecordBatch batch = Batch({0, 3, 1, 2, 3});
  auto partitioner = Make(*batch.schema());
  std::vector<uint32_t> ids(5);
  ASSERT_TRUE(partitioner->Partition(batch, ids.data()).ok());
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 3, 1, 2, 3}));
  std::vector<uint32_t> sliced(3);
  ASSERT_TRUE(partitioner->Partition(batch.Slice(2, 3), sliced.data()).ok());
  EXPECT_EQ(sliced, (std::vector<uint32_t>{1, 2, 3}));
}

TEST_F(GivenPartitionerTest, NamesTheRowOfAnOutOfRangeId) {
  for (int32_t bad : {4, -1, INT32_MIN, INT32_MAX}) {
    const RecordBatch batch = Batch({0, 1, bad, 2});
    auto partitioner = Make(*batch.schema());
    std::vector<uint32_t> ids(4);
    const Status status = partitioner->Partition(batch, ids.data());
    ASSERT_TRUE(status.IsInvalid()) << bad;
    EXPECT_NE(status.message().find("partition id " + std::to_string(bad) + " at row 2"),
              std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("[0, 4)"), std::string::npos) << status.message();
  }
}

TEST_F(GivenPartitionerTest, NamesTheRowOfANullId) {
  const RecordBatch batch = Batch({0, 1, 2, std::nullopt});
  auto partitioner = Make(*batch.schema());
  std::vector<uint32_t> ids(4);
  const Status status = partitioner->Partition(batch, ids.data());
  ASSERT_TRUE(status.IsInvalid());
  EXPECT_NE(status.message().find("is null at row 3"), std::string::npos) << status.message();
  // Sliced past the null, the batch is fine.
  std::vector<uint32_t> sliced(3);
  EXPECT_TRUE(partitioner->Partition(batch.Slice(0, 3), sliced.data()).ok());
}

TEST_F(GivenPartitionerTest, RejectsAColumnThatIsNotInt32) {
  Schema schema({MakeField("payload", DataType::Utf8()), MakeField("pid", DataType::Int64())});
  PartitionerOptions options;
  options.kind = PartitionKind::kGiven;
  options.partition_count = 4;
  options.key_columns = {1};
  const Status status = MakePartitioner(options, schema).status();
  EXPECT_TRUE(status.IsInvalid());
  EXPECT_NE(status.message().find("must be int32"), std::string::npos) << status.message();
  options.key_columns = {0, 1};
  EXPECT_TRUE(MakePartitioner(options, schema).status().IsInvalid());
}

}  // namespace
}  // namespace sluice
