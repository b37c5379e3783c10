// MapWriter round trips: every partitioner and codec, with and without spills, from one to
// 100,000 partitions; each partition read back holds exactly its rows in input order.
#include "sluice/write/map_writer.h"

#include <gtest/gtest.h>

#include "sluice/format/array_builder.h"
#include "sluice/format/dictionary_values.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/write/map_writer_settings.h"
#include "support/map_output_check.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

std::vector<RecordBatch> RandomBatches(const SchemaPtr& schema, int count, int64_t rows,
                                       uint64_t seed) {
  std::vector<RecordBatch> batches;
  for (int i = 0; i < count; ++i) batches.push_back(testing::RandomBatch(schema, rows, seed + i));
  return batches;
}

Result<MapOutput> WriteAll(MapWriterOptions options, const std::vector<RecordBatch>& batches) {
  SLUICE_ASSIGN_OR_RAISE(auto writer, MapWriter::Make(std::move(options)));
  for (const auto& batch : batches) SLUICE_RETURN_NOT_OK(writer->Write(batch));
  return writer->Finish();
}

PartitionerOptions Hash(int32_t partitions, std::vector<int> keys) {
  PartitionerOptions options;
  options.kind = PartitionKind::kHash;
  options.partition_count = partitions;
  options.key_columns = std::move(keys);
  return options;
}

struct RoundTripCase {
  CompressionCodec codec;
  int32_t partitions;
  bool spill;
};

class MapWriterRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(MapWriterRoundTripTest, EveryTypeHashPartitioned) {
  const RoundTripCase param = GetParam();
  testing::TemporaryDirectory directory;
  auto schema = testing::AllTypesSchema(3);
  auto batches = RandomBatches(schema, 6, 400, 7);
  MapWriterOptions options;
  options.schema = schema;
  // Keys of several types: int32, utf8, decimal, and a nested struct.
  options.partitioning = Hash(param.partitions, {4, 19, 17, 24});
  options.encoding.codec = param.codec;
  options.data_path = directory.Join("out.data");
  options.write_spark_files = true;
  options.checksum = ChecksumAlgorithm::kCrc32;
  // A budget of a little more than one batch forces a spill every batch or two.
  options.memory_limit = param.spill ? batches[0].ReferencedBytes() * 3 / 2 : -1;
  options.target_block_rows = 100;
  auto output = WriteAll(options, batches);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.spills > 0, param.spill);
  EXPECT_EQ(testing::CheckMapOutput(*output, batches, options.partitioning), 2400);
  // The Spark index file holds the same offsets.
  auto index = ReadIndexFile(output->index_path, output->offsets.back());
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(*index, output->offsets);
  auto checksums = ReadChecksumFile(output->checksum_path, param.partitions);
  ASSERT_TRUE(checksums.ok()) << checksums.status().ToString();
  EXPECT_EQ(*checksums, output->checksums);
  // Nothing but the committed files is left.
  EXPECT_EQ(directory.List(),
            (std::vector<std::string>{"out.checksum.CRC32", "out.data", "out.index"}));
}

INSTANTIATE_TEST_SUITE_P(Cases, MapWriterRoundTripTest,
                         ::testing::Values(RoundTripCase{CompressionCodec::kNone, 1, false},
                                           RoundTripCase{CompressionCodec::kNone, 16, true},
                                           RoundTripCase{CompressionCodec::kLz4Frame, 16, false},
                                           RoundTripCase{CompressionCodec::kLz4Frame, 200, true},
                                           RoundTripCase{CompressionCodec::kZstd, 200, false},
                                           RoundTripCase{CompressionCodec::kZstd, 8000, true},
                                           RoundTripCase{CompressionCodec::kLz4Frame, 8000, false},
                                           RoundTripCase{CompressionCodec::kNone, 100000, true},
                                           RoundTripCase{CompressionCodec::kLz4Frame, 100000,
                                                         false}),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param.codec)) + "_" +
                                  std::to_string(info.param.partitions) +
                                  (info.param.spill ? "_spill" : "_memory");
                         });

class MapWriterPartitionerTest : public ::testing::TestWithParam<bool> {};

SchemaPtr KeyedSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      MakeField("key", DataType::Int64()), MakeField("text", DataType::Utf8()),
      MakeField("given", DataType::Int32(), false),
      MakeField("nested", DataType::List(DataType::Struct({MakeField("a", DataType::Int16())})))});
}

std::vector<RecordBatch> KeyedBatches(int32_t partitions) {
  auto schema = KeyedSchema();
  std::vector<RecordBatch> batches;
  std::mt19937_64 rng(3);
  for (int b = 0; b < 5; ++b) {
    auto builders = MakeBuilders(*schema);
    for (int row = 0; row < 300; ++row) {
      testing::AppendRandomValue(*builders[0], true, rng, {});
      testing::AppendRandomValue(*builders[1], true, rng, {});
      builders[2]->Append<int32_t>(static_cast<int32_t>(rng() % partitions));
      testing::AppendRandomValue(*builders[3], true, rng, {});
    }
    batches.push_back(FinishBatch(schema, builders));
  }
  return batches;
}

TEST_P(MapWriterPartitionerTest, EveryPartitionerKind) {
  const bool spill = GetParam();
  const int32_t partitions = 37;
  auto batches = KeyedBatches(partitions);
  std::vector<PartitionerOptions> kinds;
  kinds.push_back(Hash(partitions, {0, 1}));
  {
    PartitionerOptions range;
    range.kind = PartitionKind::kRange;
    range.key_columns = {0};
    auto bound_schema =
        std::make_shared<Schema>(std::vector<Field>{MakeField("key", DataType::Int64())});
    auto builders = MakeBuilders(*bound_schema);
    for (int i = 0; i < partitions - 1; ++i) {
      builders[0]->Append<int64_t>(std::numeric_limits<int64_t>::min() / 2 +
                                   static_cast<int64_t>(i) *
                                       (std::numeric_limits<int64_t>::max() / 36));
    }
    range.range_bounds = FinishBatch(bound_schema, builders);
    range.partition_count = partitions;
    kinds.push_back(range);
  }
  {
    PartitionerOptions round_robin;
    round_robin.kind = PartitionKind::kRoundRobin;
    round_robin.partition_count = partitions;
    round_robin.map_partition_id = 5;
    kinds.push_back(round_robin);
    round_robin.round_robin_mode = RoundRobinMode::kRowHash;
    kinds.push_back(round_robin);
  }
  {
    PartitionerOptions single;
    single.kind = PartitionKind::kSingle;
    single.partition_count = 1;
    kinds.push_back(single);
  }
  {
    PartitionerOptions given;
    given.kind = PartitionKind::kGiven;
    given.partition_count = partitions;
    given.key_columns = {2};
    kinds.push_back(given);
  }
  for (const auto& kind : kinds) {
    SCOPED_TRACE(std::string(PartitionKindName(kind.kind)));
    testing::TemporaryDirectory directory;
    MapWriterOptions options;
    options.schema = batches[0].schema();
    options.partitioning = kind;
    options.encoding.codec = CompressionCodec::kLz4Frame;
    options.data_path = directory.Join("out.data");
    options.checksum = ChecksumAlgorithm::kAdler32;
    options.memory_limit = spill ? batches[0].ReferencedBytes() : -1;
    auto output = WriteAll(options, batches);
    ASSERT_TRUE(output.ok()) << output.status().ToString();
    EXPECT_EQ(testing::CheckMapOutput(*output, batches, kind), 1500);
    EXPECT_EQ(output->metrics.spills > 0, spill);
  }
}

INSTANTIATE_TEST_SUITE_P(SpillOrNot, MapWriterPartitionerTest, ::testing::Bool());

TEST(MapWriterTest, EmptyInputGivesEmptyPartitions) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(10, {0});
  options.data_path = directory.Join("empty.data");
  options.write_spark_files = true;
  auto output = WriteAll(options, {});
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->offsets, std::vector<int64_t>(11, 0));
  EXPECT_EQ(output->checksums, std::vector<uint32_t>(10, 1u));  // Adler-32 of nothing
}

TEST(MapWriterTest, RefusesToOverwriteACommittedOutput) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(4, {0});
  options.data_path = directory.Join("out.data");
  ASSERT_TRUE(WriteAll(options, KeyedBatches(4)).ok());
  auto again = MapWriter::Make(options);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("already exists"), std::string::npos);
  options.overwrite = true;
  EXPECT_TRUE(WriteAll(options, KeyedBatches(4)).ok());
}

// A host that commits the data file itself (Spark) names a private temporary path: the writer
// writes that path and no other name, leaves it at Finish, and removes it when it fails.
TEST(MapWriterTest, WritesInPlaceForAHostThatCommits) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(4, {0});
  options.data_path = directory.Join("task.data.tmp");
  options.write_in_place = true;
  auto writer = MapWriter::Make(options).ValueOrDie();
  EXPECT_EQ(directory.List(), std::vector<std::string>{"task.data.tmp"});
  const auto batches = KeyedBatches(4);
  for (const auto& batch : batches) ASSERT_TRUE(writer->Write(batch).ok());
  auto output = writer->Finish();
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(directory.List(), std::vector<std::string>{"task.data.tmp"});
  testing::CheckMapOutput(*output, batches, options.partitioning);
  writer.reset();
  EXPECT_EQ(directory.List(), std::vector<std::string>{"task.data.tmp"});

  options.data_path = directory.Join("failed.data.tmp");
  writer = MapWriter::Make(options).ValueOrDie();
  ASSERT_TRUE(writer->Write(batches[0]).ok());
  writer->Abort();
  EXPECT_EQ(directory.List(), std::vector<std::string>{"task.data.tmp"});

  // The path is the host's to commit: it must be new, and Spark's files are the host's too.
  options.data_path = directory.Join("task.data.tmp");
  auto existing = MapWriter::Make(options);
  ASSERT_FALSE(existing.ok());
  EXPECT_NE(existing.status().message().find("already exists"), std::string::npos);
  options.data_path = directory.Join("other.data");
  options.write_spark_files = true;
  auto with_index = MapWriter::Make(options);
  ASSERT_FALSE(with_index.ok());
  EXPECT_NE(with_index.status().message().find("write-in-place"), std::string::npos);
}

TEST(MapWriterTest, ChecksumsCombineAcrossSpills) {
  for (auto algorithm :
       {ChecksumAlgorithm::kAdler32, ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c}) {
    testing::TemporaryDirectory directory;
    auto batches = KeyedBatches(8);
    MapWriterOptions options;
    options.schema = batches[0].schema();
    options.partitioning = Hash(8, {1});
    options.checksum = algorithm;
    options.data_path = directory.Join("out.data");
    options.memory_limit = 1;  // every batch spills
    auto output = WriteAll(options, batches);
    ASSERT_TRUE(output.ok()) << output.status().ToString();
    EXPECT_GE(output->metrics.spills, 4);
    testing::CheckMapOutput(*output, batches, options.partitioning);
  }
}

TEST(MapWriterTest, HeldBytesLimitSpillsWithinTheBudget) {
  auto batches = KeyedBatches(8);
  const int64_t batch_bytes = batches[0].ReferencedBytes();
  for (const int64_t max_held : {int64_t{0}, batch_bytes * 2, int64_t{1}}) {
    testing::TemporaryDirectory directory;
    MapWriterOptions options;
    options.schema = batches[0].schema();
    options.partitioning = Hash(8, {1});
    options.data_path = directory.Join("out.data");
    options.memory_limit = -1;  // the budget never asks for a spill
    options.max_held_bytes = max_held;
    auto output = WriteAll(options, batches);
    ASSERT_TRUE(output.ok()) << output.status().ToString();
    // 0: no limit; two batches' worth: a spill every second batch or so; 1 byte: every batch.
    if (max_held == 0) {
      EXPECT_EQ(output->metrics.spills, 0);
    }
    if (max_held == 1) {
      EXPECT_EQ(output->metrics.spills, static_cast<int64_t>(batches.size()));
    }
    if (max_held == batch_bytes * 2) {
      EXPECT_GE(output->metrics.spills, 1);
      EXPECT_LT(output->metrics.spills, static_cast<int64_t>(batches.size()));
    }
    testing::CheckMapOutput(*output, batches, options.partitioning);
    EXPECT_EQ(directory.List(), (std::vector<std::string>{"out.data"}));
  }
}

TEST(MapWriterSettingsTest, ReadersHaveSchemaIsABooleanOffByDefault) {
  MapWriterOptions options;
  EXPECT_FALSE(options.readers_have_schema);
  EXPECT_TRUE(ApplyMapWriterSetting(&options, "readers-have-schema", "true").ok());
  EXPECT_TRUE(options.readers_have_schema);
  const Status wrong = ApplyMapWriterSetting(&options, "readers-have-schema", "maybe");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("readers-have-schema"), std::string::npos) << wrong.ToString();
  EXPECT_TRUE(options.readers_have_schema);  // a refused value changes nothing
}

TEST(MapWriterTest, HeldBytesLimitIsAutomaticByDefault) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(4, {0});
  options.data_path = directory.Join("out.data");
  EXPECT_EQ(options.max_held_bytes, MapWriterOptions::kAutoMaxHeldBytes);
  EXPECT_TRUE(ApplyMapWriterSetting(&options, "max-held-bytes", "32MiB").ok());
  EXPECT_EQ(options.max_held_bytes, int64_t{32} << 20);
  EXPECT_TRUE(ApplyMapWriterSetting(&options, "max-held-bytes", "auto").ok());
  EXPECT_EQ(options.max_held_bytes, MapWriterOptions::kAutoMaxHeldBytes);
  EXPECT_FALSE(ApplyMapWriterSetting(&options, "max-held-bytes", "unlimited").ok());
  options.max_held_bytes = -5;
  auto writer = MapWriter::Make(options);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("max_held_bytes"), std::string::npos);
}

// sort-orders: one order per range key, Spark's words; a wrong one names the setting.
TEST(MapWriterTest, SortOrdersSetting) {
  MapWriterOptions options;
  ASSERT_TRUE(ApplyMapWriterSetting(&options, "sort-orders", "asc, desc nulls first,desc").ok());
  const auto& orders = options.partitioning.sort_orders;
  ASSERT_EQ(orders.size(), 3u);
  EXPECT_EQ(orders[0].direction, SortDirection::kAscending);
  EXPECT_EQ(orders[0].null_ordering, NullOrdering::kNullsFirst);
  EXPECT_EQ(orders[1].direction, SortDirection::kDescending);
  EXPECT_EQ(orders[1].null_ordering, NullOrdering::kNullsFirst);
  EXPECT_EQ(orders[2].direction, SortDirection::kDescending);
  EXPECT_EQ(orders[2].null_ordering, NullOrdering::kNullsLast);
  const Status wrong = ApplyMapWriterSetting(&options, "sort-orders", "asc,sideways");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("sort-orders"), std::string::npos) << wrong.message();
  EXPECT_NE(wrong.message().find("sideways"), std::string::npos) << wrong.message();
}

TEST(MapWriterTest, WrongSchemaIsRejected) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(4, {0});
  options.data_path = directory.Join("out.data");
  auto writer = MapWriter::Make(options).ValueOrDie();
  auto other = testing::RandomBatch(testing::AllTypesSchema(1), 5, 1);
  Status status = writer->Write(other);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(
      status.message().find("the batch has " + std::to_string(other.num_columns()) + " columns"),
      std::string::npos)
      << status.message();
  EXPECT_TRUE(directory.List().empty());
}

TEST(MapWriterTest, AColumnOfAnotherTypeIsNamedWithBothTypes) {
  testing::TemporaryDirectory directory;
  const auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field{"id", DataType::Int64(), false}, Field{"price", DataType::Float64(), true}});
  const auto other = std::make_shared<Schema>(std::vector<Field>{
      Field{"id", DataType::Int64(), false}, Field{"price", DataType::Int32(), true}});
  MapWriterOptions options;
  options.schema = schema;
  options.partitioning = Hash(4, {0});
  options.data_path = directory.Join("out.data");
  auto writer = MapWriter::Make(options).ValueOrDie();
  Status status = writer->Write(testing::RandomBatch(other, 5, 1));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "column 1 'price': the writer's schema has double, the batch has int32");
}

// A batch may declare up to 2^63 rows, and 2^31 rows of no columns (or of null columns) take 152
// bytes of IPC. The writer made its per-row state (partition ids, the sort's lists) for the
// whole batch at once: 8 GiB past a 64 MiB budget. It now takes a batch a slice at a time.
TEST(MapWriterTest, ABatchLongerThanASliceIsPartitionedASliceAtATime) {
  const int64_t rows = 2'500'000;  // two and a half slices
  const auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field{"k", DataType::Int64(), false}, Field{"n", DataType::Null(), true}});
  const RecordBatch keyed = testing::RandomBatch(schema, rows, /*seed=*/3);
  for (PartitionKind kind : {PartitionKind::kHash, PartitionKind::kRoundRobin}) {
    testing::TemporaryDirectory directory;
    MapWriterOptions options;
    options.schema = schema;
    options.partitioning = Hash(13, {0});
    options.partitioning.kind = kind;
    if (kind == PartitionKind::kRoundRobin) options.partitioning.key_columns.clear();
    options.data_path = directory.Join("out.data");
    options.memory_limit = int64_t{8} << 20;
    auto output = WriteAll(options, {keyed});
    ASSERT_TRUE(output.ok()) << output.status().ToString();
    EXPECT_GE(output->metrics.spills, 2);
    EXPECT_EQ(output->metrics.rows, rows);
    EXPECT_EQ(testing::CheckMapOutput(*output, {keyed}, options.partitioning), rows);
  }
}

TEST(MapWriterTest, ManyRowsOfNoColumnsStayWithinTheBudget) {
  const int64_t rows = int64_t{5} << 20;
  const auto schema = std::make_shared<Schema>(std::vector<Field>{});
  const RecordBatch empty_columns(schema, rows, {}, {});
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = schema;
  options.partitioning.kind = PartitionKind::kRoundRobin;
  options.partitioning.partition_count = 8;
  options.data_path = directory.Join("out.data");
  options.memory_limit = int64_t{4} << 20;
  auto output = WriteAll(options, {empty_columns});
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.rows, rows);
  // The budget is smaller than one slice's per-row state (12 MiB): each slice is taken alone.
  EXPECT_LE(output->metrics.peak_reserved_bytes, int64_t{12} << 20);
  EXPECT_EQ(testing::CheckMapOutput(*output, {empty_columns}, options.partitioning), rows);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Invalid UTF-8 went through the IPC path without a word, and no policy said so. The policy:
// bytes out are the bytes in; validate-utf8 on the writer (or the reader) refuses them by name.
TEST(MapWriterTest, InvalidUtf8PassesUnchangedUnlessValidated) {
  const auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field{"id", DataType::Int64(), false}, Field{"s", DataType::Utf8(), true}});
  auto builders = MakeBuilders(*schema);
  const std::string values[] = {"ok", "\xFF\xFE", "fine"};
  for (int64_t i = 0; i < 3; ++i) {
    builders[0]->Append<int64_t>(i);
    builders[1]->AppendBytes(values[i].data(), static_cast<int64_t>(values[i].size()));
  }
  const RecordBatch batch = FinishBatch(schema, builders);
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = schema;
  options.partitioning = Hash(2, {0});
  options.data_path = directory.Join("out.data");
  auto output = WriteAll(options, {batch});
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(testing::CheckMapOutput(*output, {batch}, options.partitioning), 3);

  options.data_path = directory.Join("checked.data");
  ASSERT_TRUE(ApplyMapWriterSetting(&options, "validate-utf8", "true").ok());
  auto refused = WriteAll(options, {batch});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "column 's': value 1 is not valid UTF-8 (byte 0 of its 2)");
}

// Dictionary columns (top level, in a list, of a struct) stay dictionary-encoded: every
// partition reads back with the rows' values. With unpack-dictionaries the output has the
// values' types instead, and the same values.
TEST(MapWriterTest, DictionaryColumnsAreKeptOrUnpacked) {
  const SchemaPtr schema = testing::AllTypesSchema(1);
  std::vector<RecordBatch> batches;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    batches.push_back(testing::RandomBatch(schema, 300, 70 + seed, {.null_probability = 0.2}));
  }
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = schema;
  options.partitioning = Hash(7, {static_cast<int>(schema->num_fields()) - 2});
  options.encoding.codec = CompressionCodec::kLz4Frame;
  options.data_path = directory.Join("kept.data");
  auto kept = WriteAll(options, batches);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(testing::CheckMapOutput(*kept, batches, options.partitioning), 900);

  options.data_path = directory.Join("unpacked.data");
  ASSERT_TRUE(ApplyMapWriterSetting(&options, "unpack-dictionaries", "true").ok());
  auto unpacked = WriteAll(options, batches);
  ASSERT_TRUE(unpacked.ok()) << unpacked.status().ToString();
  const SchemaPtr values_schema = UnpackedSchema(schema);
  EXPECT_FALSE(HasDictionary(*values_schema));
  std::vector<RecordBatch> values;
  for (const RecordBatch& batch : batches) {
    values.push_back(UnpackDictionaries(batch, values_schema).ValueOrDie());
  }
  EXPECT_EQ(testing::CheckMapOutput(*unpacked, values, options.partitioning), 900);
}

TEST(MapWriterTest, PerPartitionStateIsReportedAndSmallIsScratch) {
  const auto batches = RandomBatches(KeyedSchema(), 2, 1000, 31);
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(100000, {0});
  options.data_path = directory.Join("out.data");
  options.write_spark_files = true;
  options.memory_limit = 1;  // smaller than the state: 100,000 partitions' state is scratch
  auto output = WriteAll(options, batches);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  // The sort's start, the offset, length and checksum, and the two Spark files' entries.
  EXPECT_EQ(output->metrics.partition_state_bytes, int64_t{100000} * (8 + 8 + 8 + 4 + 16));
}

TEST(MapWriterTest, PerPartitionStateTheBudgetCannotGrantIsRefusedBeforeItIsMade) {
  const auto batches = RandomBatches(KeyedSchema(), 1, 10, 32);
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = KeyedSchema();
  options.partitioning = Hash(1 << 24, {0});  // Spark's largest partition count
  options.data_path = directory.Join("out.data");
  options.write_spark_files = true;
  options.memory_limit = int64_t{1} << 20;
  auto writer = MapWriter::Make(options);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(
      writer.status().message().find("16777216 partitions need 704 MiB of per-partition state"),
      std::string::npos)
      << writer.status().message();
  EXPECT_TRUE(directory.List().empty());
  // Past the scratch, a budget that grants the state gets it charged.
  options.partitioning = Hash(1 << 21, {0});
  options.memory_limit = int64_t{96} << 20;
  auto output = WriteAll(options, batches);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.partition_state_bytes, (int64_t{1} << 21) * 44);
  EXPECT_GE(output->metrics.peak_reserved_bytes, output->metrics.partition_state_bytes);
}

}  // namespace
}  // namespace sluice
