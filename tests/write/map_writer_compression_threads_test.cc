// MapWriter with compression_threads = 1: the output is byte for byte the inline writer's (whose
// contents map_writer_test checks), over every codec, partition counts and spill patterns; errors
// come with the same messages; abort and destruction with work in flight leave nothing behind.
#include <gtest/gtest.h>

#include <cerrno>
#include <regex>

#include "sluice/io/io_fault_injection.h"
#include "sluice/write/map_writer.h"
#include "sluice/write/map_writer_settings.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

std::vector<RecordBatch> Batches(const SchemaPtr& schema, int count, int64_t rows) {
  std::vector<RecordBatch> batches;
  for (int i = 0; i < count; ++i) batches.push_back(testing::RandomBatch(schema, rows, 40 + i));
  return batches;
}

struct Files {
  std::string data, index, checksum;
  MapOutput output;
};

// Writes `batches` into `directory` with `threads` compression threads.
Files WriteWith(MapWriterOptions options, int32_t threads, const std::vector<RecordBatch>& batches,
                const testing::TemporaryDirectory& directory) {
  options.data_path = directory.Join("out.data");
  options.compression_threads = threads;
  auto writer = MapWriter::Make(options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return {};
  for (const auto& batch : batches) {
    Status status = (*writer)->Write(batch);
    EXPECT_TRUE(status.ok()) << status.ToString();
  }
  auto output = (*writer)->Finish();
  EXPECT_TRUE(output.ok()) << output.status().ToString();
  if (!output.ok()) return {};
  Files files;
  files.data = testing::ReadFileBytes(output->data_path);
  files.index = testing::ReadFileBytes(output->index_path);
  files.checksum = testing::ReadFileBytes(output->checksum_path);
  files.output = *output;
  return files;
}

struct IdentityCase {
  CompressionCodec codec;
  int32_t partitions;
  // 0: unlimited; 1: a budget of one byte (a spill before every batch); 2: about 1.5 batches.
  int budget;
};

class CompressionThreadsIdentityTest : public ::testing::TestWithParam<IdentityCase> {};

TEST_P(CompressionThreadsIdentityTest, OutputIsByteIdenticalToInline) {
  const IdentityCase param = GetParam();
  auto schema = testing::AllTypesSchema(3);
  auto batches = Batches(schema, 5, 300);
  MapWriterOptions options;
  options.schema = schema;
  options.partitioning.kind = PartitionKind::kHash;
  options.partitioning.partition_count = param.partitions;
  options.partitioning.key_columns = {4, 19};
  options.encoding.codec = param.codec;
  options.write_spark_files = true;
  options.checksum = ChecksumAlgorithm::kCrc32;
  // Small blocks: many per partition, so jobs hold several blocks and cross partitions.
  options.target_block_rows = 37;
  options.memory_limit = param.budget == 0   ? -1
                         : param.budget == 1 ? 1
                                             : batches[0].ReferencedBytes() * 3 / 2;
  testing::TemporaryDirectory inline_directory;
  testing::TemporaryDirectory threaded_directory;
  const Files inline_files = WriteWith(options, 0, batches, inline_directory);
  const Files threaded = WriteWith(options, 1, batches, threaded_directory);
  ASSERT_FALSE(inline_files.data.empty());
  EXPECT_TRUE(inline_files.data == threaded.data) << "data files differ";
  EXPECT_EQ(inline_files.index, threaded.index);
  EXPECT_EQ(inline_files.checksum, threaded.checksum);
  EXPECT_EQ(inline_files.output.offsets, threaded.output.offsets);
  EXPECT_EQ(inline_files.output.checksums, threaded.output.checksums);
  EXPECT_EQ(inline_files.output.metrics.blocks, threaded.output.metrics.blocks);
  EXPECT_EQ(inline_files.output.metrics.spills, threaded.output.metrics.spills);
  EXPECT_EQ(threaded.output.metrics.spills > 0, param.budget != 0);
  if (param.budget == 1) {
    EXPECT_EQ(threaded.output.metrics.spills, static_cast<int64_t>(batches.size()) - 1);
  }
}

std::vector<IdentityCase> IdentityCases() {
  std::vector<IdentityCase> cases;
  for (CompressionCodec codec :
       {CompressionCodec::kNone, CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    for (int32_t partitions : {1, 16, 200, 2000}) {
      for (int budget : {0, 1, 2}) cases.push_back(IdentityCase{codec, partitions, budget});
    }
  }
  return cases;
}

std::string IdentityCaseName(const ::testing::TestParamInfo<IdentityCase>& info) {
  const char* budgets[] = {"memory", "spill_every_batch", "spill_some"};
  return std::string(CompressionCodecName(info.param.codec)) + "_" +
         std::to_string(info.param.partitions) + "_" + budgets[info.param.budget];
}

INSTANTIATE_TEST_SUITE_P(Cases, CompressionThreadsIdentityTest,
                         ::testing::ValuesIn(IdentityCases()), IdentityCaseName);

MapWriterOptions FaultOptions(const testing::TemporaryDirectory& directory, int32_t threads) {
  MapWriterOptions options;
  options.schema = testing::KeyTextValueSchema();
  options.partitioning.kind = PartitionKind::kHash;
  options.partitioning.partition_count = 50;
  options.partitioning.key_columns = {0};
  options.encoding.codec = CompressionCodec::kLz4Frame;
  options.data_path = directory.Join("map.data");
  options.write_spark_files = true;
  options.file.flush_bytes = 4096;  // many writes, so a failure lands mid-file
  options.target_block_rows = 20;   // many blocks, so jobs are in flight when it does
  options.compression_threads = threads;
  return options;
}

// Temporary names carry a process-wide counter and each run has its own directory; the rest
// of a message must be the same.
std::string WithoutCounters(const std::string& message) {
  static const std::regex counters(R"((\.\d+\.\d+\.tmp)|(sluice-spill-\d+-\d+)|(sluice-test-\w+))");
  return std::regex_replace(message, counters, "#");
}

class CompressionThreadsFaultTest : public ::testing::Test {
 protected:
  void TearDown() override { io_faults::FailWritesAfter(-1, 0); }

  // Runs the same failing write inline and threaded; returns both errors.
  std::pair<Status, Status> FailBoth(int64_t memory_limit, int64_t bytes_allowed, int error) {
    Status results[2];
    for (int32_t threads : {0, 1}) {
      testing::TemporaryDirectory directory;
      MapWriterOptions options = FaultOptions(directory, threads);
      options.memory_limit = memory_limit;
      auto writer = MapWriter::Make(options).ValueOrDie();
      io_faults::FailWritesAfter(bytes_allowed, error);
      Status status;
      for (int i = 0; i < 8 && status.ok(); ++i) {
        status = writer->Write(testing::RandomBatch(testing::KeyTextValueSchema(), 2000, i));
      }
      if (status.ok()) status = writer->Finish().status();
      io_faults::FailWritesAfter(-1, 0);
      EXPECT_TRUE(directory.List().empty()) << "threads " << threads;
      EXPECT_NE(writer->Write(testing::RandomBatch(testing::KeyTextValueSchema(), 10, 0))
                    .message()
                    .find("aborted"),
                std::string::npos);
      results[threads] = status;
    }
    return {results[0], results[1]};
  }
};

TEST_F(CompressionThreadsFaultTest, DiskFullWhileWritingTheDataFileGivesTheInlineError) {
  auto [inline_status, threaded] = FailBoth(-1, 20000, ENOSPC);
  ASSERT_FALSE(threaded.ok());
  EXPECT_NE(threaded.message().find("No space left on device"), std::string::npos);
  EXPECT_EQ(WithoutCounters(inline_status.ToString()), WithoutCounters(threaded.ToString()));
}

TEST_F(CompressionThreadsFaultTest, DiskFullWhileSpillingGivesTheInlineError) {
  auto [inline_status, threaded] = FailBoth(100000, 30000, EIO);
  ASSERT_FALSE(threaded.ok());
  EXPECT_NE(threaded.message().find("sluice-spill-"), std::string::npos) << threaded.ToString();
  EXPECT_EQ(WithoutCounters(inline_status.ToString()), WithoutCounters(threaded.ToString()));
}

TEST_F(CompressionThreadsFaultTest, FailureAtEveryPointGivesTheInlineError) {
  // Failing after ever more bytes lands the failure beside every kind of job state: the first
  // job, jobs in flight across partitions, the last one, the spill merge.
  for (int64_t allowed = 0; allowed < 400000; allowed += 23456) {
    SCOPED_TRACE(allowed);
    auto [inline_status, threaded] = FailBoth(150000, allowed, ENOSPC);
    EXPECT_EQ(WithoutCounters(inline_status.ToString()), WithoutCounters(threaded.ToString()));
  }
}

TEST(CompressionThreadsTest, AbortWithWorkHeldLeavesNothing) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = FaultOptions(directory, 1);
  options.memory_limit = 100000;  // spills now and then
  auto writer = MapWriter::Make(options).ValueOrDie();
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(writer->Write(testing::RandomBatch(testing::KeyTextValueSchema(), 2000, i)).ok());
  EXPECT_GT(writer->metrics().spills, 0);
  writer->Abort();
  EXPECT_TRUE(directory.List().empty());
  writer->Abort();  // idempotent
}

TEST(CompressionThreadsTest, DestroyingAnUnfinishedWriterJoinsAndLeavesNothing) {
  testing::TemporaryDirectory directory;
  {
    MapWriterOptions options = FaultOptions(directory, 1);
    options.memory_limit = 1;
    auto writer = MapWriter::Make(options).ValueOrDie();
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(writer->Write(testing::RandomBatch(testing::KeyTextValueSchema(), 2000, i)).ok());
  }
  EXPECT_TRUE(directory.List().empty());
}

TEST(CompressionThreadsTest, SettingTakesZeroOrOne) {
  MapWriterOptions options;
  ASSERT_TRUE(ApplyMapWriterSetting(&options, "compression-threads", "1").ok());
  EXPECT_EQ(options.compression_threads, 1);
  Status too_many = ApplyMapWriterSetting(&options, "compression-threads", "2");
  EXPECT_NE(too_many.message().find("compression-threads"), std::string::npos);
  EXPECT_FALSE(ApplyMapWriterSetting(&options, "compression-threads", "-1").ok());
  testing::TemporaryDirectory directory;
  MapWriterOptions bad = FaultOptions(directory, 2);
  EXPECT_NE(MapWriter::Make(bad).status().message().find("compression_threads"), std::string::npos);
}

}  // namespace
}  // namespace sluice
