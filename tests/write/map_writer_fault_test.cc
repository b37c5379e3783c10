// Faults: a disk that fails mid-write, an abort, an exhausted budget, unusable directories.
// Each reports what happened and leaves no file behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "sluice/format/array_builder.h"
#include "sluice/io/io_fault_injection.h"
#include "sluice/write/map_writer.h"
#include "support/map_output_check.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

std::vector<RecordBatch> Batches(int count = 8) {
  std::vector<RecordBatch> batches;
  for (int i = 0; i < count; ++i) {
    batches.push_back(testing::RandomBatch(testing::KeyTextValueSchema(), 2000, i));
  }
  return batches;
}

MapWriterOptions Options(const testing::TemporaryDirectory& directory) {
  MapWriterOptions options;
  options.schema = testing::KeyTextValueSchema();
  options.partitioning.kind = PartitionKind::kHash;
  options.partitioning.partition_count = 50;
  options.partitioning.key_columns = {0};
  options.data_path = directory.Join("map.data");
  options.write_spark_files = true;
  options.file.flush_bytes = 4096;  // many writes, so a failure lands mid-file
  return options;
}

class InjectedFaults : public ::testing::Test {
 protected:
  void TearDown() override { io_faults::FailWritesAfter(-1, 0); }
};

TEST_F(InjectedFaults, DiskFullWhileWritingTheDataFile) {
  testing::TemporaryDirectory directory;
  auto writer = MapWriter::Make(Options(directory)).ValueOrDie();
  for (const auto& batch : Batches()) ASSERT_TRUE(writer->Write(batch).ok());
  io_faults::FailWritesAfter(20000, ENOSPC);
  auto output = writer->Finish();
  ASSERT_FALSE(output.ok());
  EXPECT_TRUE(output.status().IsIOError());
  EXPECT_NE(output.status().message().find("No space left on device"), std::string::npos)
      << output.status().ToString();
  EXPECT_NE(output.status().message().find(directory.path()), std::string::npos)
      << "the error names the file: " << output.status().ToString();
  EXPECT_TRUE(directory.List().empty());
}

TEST_F(InjectedFaults, DiskFullWhileSpilling) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(directory);
  options.memory_limit = 1;
  auto writer = MapWriter::Make(options).ValueOrDie();
  auto batches = Batches();
  ASSERT_TRUE(writer->Write(batches[0]).ok());
  io_faults::FailWritesAfter(10000, EIO);
  Status status = writer->Write(batches[1]);  // spills batch 0
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("sluice-spill-"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("Input/output error"), std::string::npos) << status.ToString();
  EXPECT_TRUE(directory.List().empty());
  // The writer is aborted: further calls say so.
  EXPECT_NE(writer->Write(batches[2]).message().find("aborted"), std::string::npos);
}

TEST_F(InjectedFaults, FailureWhileCopyingSpillsIntoTheDataFile) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(directory);
  options.memory_limit = 1;
  auto writer = MapWriter::Make(options).ValueOrDie();
  for (const auto& batch : Batches()) ASSERT_TRUE(writer->Write(batch).ok());
  io_faults::FailWritesAfter(0, ENOSPC);
  auto output = writer->Finish();
  ASSERT_FALSE(output.ok());
  EXPECT_TRUE(directory.List().empty());
}

TEST(MapWriterFaultTest, AbortAfterSomeBatchesLeavesNothing) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(directory);
  options.memory_limit = 200000;  // spills now and then
  auto writer = MapWriter::Make(options).ValueOrDie();
  for (const auto& batch : Batches()) ASSERT_TRUE(writer->Write(batch).ok());
  EXPECT_GT(writer->metrics().spills, 0);
  EXPECT_FALSE(directory.List().empty());  // the temporary data file and spills exist
  writer->Abort();
  EXPECT_TRUE(directory.List().empty());
  writer->Abort();  // idempotent
}

TEST(MapWriterFaultTest, DestroyingAnUnfinishedWriterLeavesNothing) {
  testing::TemporaryDirectory directory;
  {
    MapWriterOptions options = Options(directory);
    options.memory_limit = 1;
    auto writer = MapWriter::Make(options).ValueOrDie();
    for (const auto& batch : Batches(3)) ASSERT_TRUE(writer->Write(batch).ok());
  }
  EXPECT_TRUE(directory.List().empty());
}

TEST(MapWriterFaultTest, ExhaustedHostBudgetSpillsEveryBatch) {
  testing::TemporaryDirectory directory;
  int64_t acquired = 0;
  int64_t released = 0;
  auto budget = std::make_shared<HostMemoryBudget>(
      [&](int64_t) -> int64_t { return 0; },  // the host never grants memory
      [&](int64_t bytes) { released += bytes; });
  MapWriterOptions options = Options(directory);
  options.memory_budget = budget;
  auto batches = Batches();
  auto writer = MapWriter::Make(options).ValueOrDie();
  for (const auto& batch : batches) ASSERT_TRUE(writer->Write(batch).ok());
  auto output = writer->Finish();
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.spills, static_cast<int64_t>(batches.size()) - 1);
  EXPECT_EQ(acquired, 0);
  EXPECT_EQ(released, 0);  // nothing granted, nothing handed back to the host
  EXPECT_EQ(budget->reserved(), 0);
  testing::CheckMapOutput(*output, batches, options.partitioning);
}

TEST(MapWriterFaultTest, MissingDirectoryIsNamed) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(directory);
  options.data_path = directory.Join("no/such/dir/map.data");
  auto writer = MapWriter::Make(options);
  ASSERT_FALSE(writer.ok());
  EXPECT_TRUE(writer.status().IsIOError());
  EXPECT_NE(writer.status().message().find("no/such/dir/map.data"), std::string::npos);
  EXPECT_NE(writer.status().message().find("No such file or directory"), std::string::npos);
}

TEST(MapWriterFaultTest, DirectoryThatIsAFileIsNamed) {
  testing::TemporaryDirectory directory;
  testing::WriteFileBytes(directory.Join("plain"), "x");
  MapWriterOptions options = Options(directory);
  options.data_path = directory.Join("plain/map.data");
  auto writer = MapWriter::Make(options);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("Not a directory"), std::string::npos)
      << writer.status().ToString();
  EXPECT_EQ(directory.List(), std::vector<std::string>{"plain"});
}

TEST(MapWriterFaultTest, UnusableSpillDirectoryIsNamedAndCleanedUp) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(directory);
  options.memory_limit = 1;
  options.spill_directories = {directory.Join("missing-spill-dir")};
  auto writer = MapWriter::Make(options).ValueOrDie();
  auto batches = Batches(2);
  ASSERT_TRUE(writer->Write(batches[0]).ok());
  Status status = writer->Write(batches[1]);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("missing-spill-dir"), std::string::npos) << status.ToString();
  EXPECT_TRUE(directory.List().empty());
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

MapOutput WriteOnce(MapWriterOptions options) {
  auto writer = MapWriter::Make(options).ValueOrDie();
  for (const auto& batch : Batches(2)) EXPECT_TRUE(writer->Write(batch).ok());
  return writer->Finish().ValueOrDie();
}

// An overwrite with another checksum algorithm left the old output's checksum file beside the
// new one, and readers then checked the new bytes against it and called them corrupt.
TEST(MapWriterOverwriteTest, NoFileOfTheReplacedOutputRemains) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options = Options(directory);
  WriteOnce(options);
  EXPECT_EQ(directory.List(),
            (std::vector<std::string>{"map.checksum.ADLER32", "map.data", "map.index"}));
  options.overwrite = true;
  options.checksum = ChecksumAlgorithm::kCrc32c;
  WriteOnce(options);
  EXPECT_EQ(directory.List(),
            (std::vector<std::string>{"map.checksum.CRC32C", "map.data", "map.index"}));
  options.write_spark_files = false;
  WriteOnce(options);
  EXPECT_EQ(directory.List(), std::vector<std::string>{"map.data"});
}

TEST(MapWriterOverwriteTest, ALinkedDataFileHasItsTargetReplaced) {
  testing::TemporaryDirectory directory;
  testing::WriteFileBytes(directory.Join("target.data"), "old");
  ASSERT_EQ(::symlink("target.data", directory.Join("map.data").c_str()), 0);
  MapWriterOptions options = Options(directory);
  options.write_spark_files = false;
  options.overwrite = true;
  const MapOutput output = WriteOnce(options);
  struct stat info;
  ASSERT_EQ(::lstat(directory.Join("map.data").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_EQ(static_cast<int64_t>(testing::ReadFileBytes(directory.Join("target.data")).size()),
            output.offsets.back());
}

TEST(MapWriterOverwriteTest, AFifoIsNeverReplaced) {
  testing::TemporaryDirectory directory;
  ASSERT_EQ(::mkfifo(directory.Join("map.data").c_str(), 0600), 0);
  MapWriterOptions options = Options(directory);
  options.overwrite = true;
  auto writer = MapWriter::Make(options);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("a FIFO"), std::string::npos)
      << writer.status().ToString();
  struct stat info;
  ASSERT_EQ(::lstat(directory.Join("map.data").c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(directory.List(), std::vector<std::string>{"map.data"});
}

}  // namespace
}  // namespace sluice
