// Round-robin after Spark's sort: every row goes where the rank of its UnsafeRow's Murmur3 hash
// sends it, whatever order the rows arrive in, spilled or not.
#include "sluice/row/sorted_round_robin_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/io/input_file.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/partition/spark_hash.h"
#include "sluice/partition/xor_shift_random.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "spark_random_schema.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

using RowImage = std::string;
/// The rows of each partition as UnsafeRow bytes, in the order the file holds them.
using PartitionRows = std::vector<std::vector<RowImage>>;

std::vector<RowImage> ToRows(const RecordBatch& batch) {
  auto converter = ColumnarToRowConverter::Make(batch.schema()).ValueOrDie();
  UnsafeRowBatch rows;
  EXPECT_TRUE(converter->Convert(batch, 0, batch.num_rows(), &rows).ok());
  std::vector<RowImage> out;
  for (int64_t i = 0; i < rows.num_rows(); ++i) {
    out.emplace_back(reinterpret_cast<const char*>(rows.row(i)), rows.sizes[i]);
  }
  return out;
}

PartitionRows ReadPartitions(const MapOutput& output) {
  auto file = InputFile::Open(output.data_path).ValueOrDie();
  AlignedBuffer bytes;
  EXPECT_TRUE(file->ReadAt(0, file->size(), &bytes).ok());
  PartitionRows partitions(output.lengths.size());
  SegmentDecoder decoder;
  for (size_t p = 0; p < output.lengths.size(); ++p) {
    if (output.lengths[p] == 0) continue;
    EXPECT_TRUE(
        decoder.Begin(bytes.data() + output.offsets[p], output.lengths[p], nullptr, "p").ok());
    while (true) {
      auto batch = decoder.Next();
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok() || !batch->has_value()) break;
      for (RowImage& row : ToRows(**batch)) partitions[p].push_back(std::move(row));
    }
  }
  return partitions;
}

/// Spark's placement, computed the slow way: rank rows by (signed Murmur3 of the row, its size,
/// its bytes unsigned), the row of rank r going to pmod(start + 1 + r, n); rows stay in arrival
/// order within a partition.
PartitionRows ExpectedPartitions(const std::vector<RecordBatch>& batches, int32_t partitions,
                                 int32_t map_id) {
  std::vector<RowImage> rows;
  for (const RecordBatch& batch : batches) {
    for (RowImage& row : ToRows(batch)) rows.push_back(std::move(row));
  }
  std::vector<std::tuple<int32_t, size_t, RowImage, size_t>> keys;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto* data = reinterpret_cast<const uint8_t*>(rows[i].data());
    const auto size = static_cast<int64_t>(rows[i].size());
    keys.emplace_back(static_cast<int32_t>(MurmurHash3Spark::HashBytes(data, size, 42)),
                      rows[i].size(), rows[i], i);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int32_t> partition_of(rows.size());
  const int64_t start = RoundRobinStartPosition(map_id, partitions);
  for (size_t rank = 0; rank < keys.size(); ++rank) {
    partition_of[std::get<3>(keys[rank])] =
        static_cast<int32_t>((start + 1 + static_cast<int64_t>(rank)) % partitions);
  }
  PartitionRows expected(static_cast<size_t>(partitions));
  for (size_t i = 0; i < rows.size(); ++i) expected[partition_of[i]].push_back(rows[i]);
  return expected;
}

MapWriterOptions Options(const SchemaPtr& schema, const testing::TemporaryDirectory& directory,
                         int32_t partitions, int32_t map_id) {
  MapWriterOptions options;
  options.schema = schema;
  options.partitioning.kind = PartitionKind::kRoundRobin;
  options.partitioning.round_robin_mode = RoundRobinMode::kSparkSorted;
  options.partitioning.partition_count = partitions;
  options.partitioning.map_partition_id = map_id;
  options.data_path = directory.Join("sorted.data");
  options.target_block_rows = 50;
  return options;
}

Result<MapOutput> WriteAll(MapWriterOptions options, const std::vector<RecordBatch>& batches) {
  SLUICE_ASSIGN_OR_RAISE(auto writer, SortedRoundRobinWriter::Make(std::move(options)));
  for (const RecordBatch& batch : batches) SLUICE_RETURN_NOT_OK(writer->Write(batch));
  return writer->Finish();
}

std::vector<RecordBatch> RandomBatches(const SchemaPtr& schema, int count, int64_t rows,
                                       uint64_t seed) {
  std::vector<RecordBatch> batches;
  for (int b = 0; b < count; ++b) batches.push_back(testing::RandomBatch(schema, rows, seed + b));
  return batches;
}

struct SortedCase {
  int32_t partitions;
  int32_t map_id;
  bool spill;
  CompressionCodec codec;
};

class SortedRoundRobinWriterTest : public ::testing::TestWithParam<SortedCase> {};

TEST_P(SortedRoundRobinWriterTest, PlacesRowsByTheRankOfTheirHash) {
  const SortedCase param = GetParam();
  testing::TemporaryDirectory directory;
  const auto schema = testing::AllSparkTypesSchema();
  const auto batches = RandomBatches(schema, 5, 120, 40);
  MapWriterOptions options = Options(schema, directory, param.partitions, param.map_id);
  options.encoding.codec = param.codec;
  options.compact_segment_bytes = 0;
  if (param.spill) options.memory_limit = 150 << 10;
  auto output = WriteAll(options, batches);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.rows, 600);
  if (param.spill) {
    EXPECT_GE(output->metrics.spills, 1);
  } else {
    EXPECT_EQ(output->metrics.spills, 0);
  }
  EXPECT_EQ(ReadPartitions(*output), ExpectedPartitions(batches, param.partitions, param.map_id));
  EXPECT_EQ(directory.List(), std::vector<std::string>{"sorted.data"});
}

INSTANTIATE_TEST_SUITE_P(Cases, SortedRoundRobinWriterTest,
                         ::testing::Values(SortedCase{7, 0, false, CompressionCodec::kNone},
                                           SortedCase{7, 3, true, CompressionCodec::kNone},
                                           SortedCase{16, 11, true, CompressionCodec::kLz4Frame},
                                           SortedCase{1, 2, false, CompressionCodec::kZstd},
                                           SortedCase{200, 5, false, CompressionCodec::kLz4Frame}));

// The point of Spark's sort: a retried task whose rows arrive in another order (other batches,
// other order within them) places every row where the first attempt did.
TEST(SortedRoundRobinWriter, PlacementDependsOnTheRowsNotTheirOrder) {
  testing::TemporaryDirectory first_directory;
  testing::TemporaryDirectory second_directory;
  const auto schema = testing::MixedSchema();
  const RecordBatch all = testing::RandomBatch(schema, 900, 8);
  std::vector<RecordBatch> in_order;
  for (int64_t start = 0; start < 900; start += 300) in_order.push_back(all.Slice(start, 300));
  // The same rows, reversed and cut differently.
  std::vector<RecordBatch> reordered;
  for (int64_t row = 899; row >= 0; --row) reordered.push_back(all.Slice(row, 1));
  auto first = WriteAll(Options(schema, first_directory, 13, 4), in_order);
  auto second = WriteAll(Options(schema, second_directory, 13, 4), reordered);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  PartitionRows a = ReadPartitions(*first);
  PartitionRows b = ReadPartitions(*second);
  for (auto* partitions : {&a, &b}) {
    for (auto& rows : *partitions) std::sort(rows.begin(), rows.end());
  }
  EXPECT_EQ(a, b);
  // And the rows spread evenly, as round-robin does: 900 rows over 13 partitions.
  for (const auto& rows : a) EXPECT_TRUE(rows.size() == 69 || rows.size() == 70) << rows.size();
}

// 200,000 distinct rows hold a few pairs whose Murmur3 hashes are equal (random 64-bit values:
// rows that differ in one 4-byte word never collide); Spark orders those by their bytes
// (RecordBinaryComparator), spilled or not, whatever their arrival order.
TEST(SortedRoundRobinWriter, RowsOfEqualHashAreOrderedByTheirBytes) {
  const auto schema =
      std::make_shared<Schema>(std::vector<Field>{MakeField("v", DataType::Int64(), false)});
  std::vector<RecordBatch> batches;
  std::mt19937_64 rng(5);
  for (int b = 0; b < 10; ++b) {
    ArrayBuilder values(schema->field(0).type.get());
    for (int i = 0; i < 20'000; ++i) values.Append<int64_t>(static_cast<int64_t>(rng()));
    std::vector<MemoryOwner> owners;
    ArrayData column = values.Finish(&owners);
    batches.push_back(RecordBatch(schema, 20'000, {std::move(column)}, std::move(owners)));
  }
  std::vector<RowImage> rows;
  for (const RecordBatch& batch : batches) {
    for (RowImage& row : ToRows(batch)) rows.push_back(std::move(row));
  }
  std::vector<uint32_t> hashes;
  for (const RowImage& row : rows) {
    hashes.push_back(MurmurHash3Spark::HashBytes(reinterpret_cast<const uint8_t*>(row.data()),
                                                 static_cast<int64_t>(row.size()), 42));
  }
  std::sort(hashes.begin(), hashes.end());
  ASSERT_NE(std::adjacent_find(hashes.begin(), hashes.end()), hashes.end())
      << "no two rows share a hash: the test needs other values";
  const PartitionRows expected = ExpectedPartitions(batches, 11, 6);
  for (const bool spill : {false, true}) {
    testing::TemporaryDirectory directory;
    MapWriterOptions options = Options(schema, directory, 11, 6);
    if (spill) options.memory_limit = 4 << 20;
    auto output = WriteAll(options, batches);
    ASSERT_TRUE(output.ok()) << output.status().ToString();
    EXPECT_EQ(output->metrics.spills > 0, spill);
    EXPECT_EQ(ReadPartitions(*output), expected) << "spill " << spill;
  }
}

TEST(SortedRoundRobinWriter, EqualRowsSpreadLikeAnyOthers) {
  testing::TemporaryDirectory directory;
  const auto schema = testing::MixedSchema();
  const RecordBatch one = testing::RandomBatch(schema, 1, 3);
  std::vector<RecordBatch> batches(10, one);
  auto output = WriteAll(Options(schema, directory, 4, 0), batches);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  PartitionRows partitions = ReadPartitions(*output);
  for (const auto& rows : partitions) EXPECT_TRUE(rows.size() == 2 || rows.size() == 3);
  EXPECT_EQ(partitions, ExpectedPartitions(batches, 4, 0));
}

TEST(SortedRoundRobinWriter, KeysBeyondTheBudgetAreOutOfMemoryAndLeaveNoFiles) {
  testing::TemporaryDirectory directory;
  const auto schema = testing::MixedSchema();
  MapWriterOptions options = Options(schema, directory, 5, 0);
  options.memory_limit = 2 << 10;  // 256 rows of keys
  auto output = WriteAll(options, RandomBatches(schema, 4, 100, 1));
  ASSERT_FALSE(output.ok());
  EXPECT_TRUE(output.status().IsOutOfMemory()) << output.status().ToString();
  EXPECT_NE(output.status().message().find("8 bytes per row"), std::string::npos)
      << output.status().ToString();
  EXPECT_TRUE(directory.List().empty());
}

TEST(SortedRoundRobinWriter, ABatchOfAnotherSchemaIsRefusedAndLeavesNoFiles) {
  testing::TemporaryDirectory directory;
  const auto schema = testing::MixedSchema();
  auto writer = SortedRoundRobinWriter::Make(Options(schema, directory, 5, 0)).ValueOrDie();
  ASSERT_TRUE(writer->Write(testing::RandomBatch(schema, 10, 1)).ok());
  const Status refused = writer->Write(testing::RandomBatch(testing::KeyTextValueSchema(), 10, 2));
  EXPECT_TRUE(refused.IsInvalid()) << refused.ToString();
  EXPECT_FALSE(writer->Finish().ok());
  EXPECT_TRUE(directory.List().empty());
}

TEST(SortedRoundRobinWriter, AbortLeavesNoFiles) {
  testing::TemporaryDirectory directory;
  const auto schema = testing::MixedSchema();
  MapWriterOptions options = Options(schema, directory, 5, 0);
  options.memory_limit = 24 << 10;
  auto writer = SortedRoundRobinWriter::Make(options).ValueOrDie();
  for (const RecordBatch& batch : RandomBatches(schema, 6, 200, 9)) {
    ASSERT_TRUE(writer->Write(batch).ok());
  }
  EXPECT_GT(directory.List().size(), 1u);  // the data file and spills
  writer->Abort();
  EXPECT_TRUE(directory.List().empty());
  EXPECT_FALSE(writer->Write(testing::RandomBatch(schema, 3, 1)).ok());
}

TEST(SortedRoundRobinWriter, RefusesOtherPartitioningsAndTypesWithoutSparkForm) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(testing::MixedSchema(), directory, 5, 0);
  options.partitioning.round_robin_mode = RoundRobinMode::kSpark;
  EXPECT_FALSE(SortedRoundRobinWriter::Make(options).ok());
  // A MapWriter cannot place rows this way: every row must be ranked first.
  options.partitioning.round_robin_mode = RoundRobinMode::kSparkSorted;
  auto plain = MapWriter::Make(options);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("SortedRoundRobinWriter"), std::string::npos);
  options.schema = std::make_shared<Schema>(std::vector<Field>{
      MakeField("u", DataType::Dictionary(DataType::Int32(), DataType::Utf8()))});
  EXPECT_FALSE(SortedRoundRobinWriter::Make(options).ok());
  EXPECT_TRUE(directory.List().empty());
}

}  // namespace
}  // namespace sluice
