// Bad map outputs: bit flips and truncation in data files, wrong index files, wrong checksums,
// failed fetches. Each must give an error naming the map output, the partition and the byte
// offset (this suite also runs under ASan and UBSan: nothing may crash or read out of bounds),
// and skipping a bad map output must leave the others' rows exactly as written.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <thread>

#include "map_output_fixture.h"
#include "sluice/base/bit_ops.h"
#include "sluice/read/partition_reader.h"
#include "sluice/read/pushed_block_queue.h"

namespace sluice {
namespace {

using testing::ExpectedRows;
using testing::ExpectSameRows;
using testing::MapsToWrite;
using testing::ReadAll;
using testing::ReadFileBytes;
using testing::SparkSources;
using testing::WriteFileBytes;
using testing::WriteMaps;
using testing::WrittenMaps;

// Four map outputs of 6 partitions with several blocks each, Spark files and ADLER32 checksums.
std::unique_ptr<WrittenMaps> WriteFour(CompressionCodec codec) {
  MapsToWrite spec;
  spec.schema = testing::AllTypesSchema(1);
  spec.partitioning.kind = PartitionKind::kHash;
  spec.partitioning.partition_count = 6;
  spec.partitioning.key_columns = {29};
  spec.map_count = 4;
  spec.rows_per_batch = 30;
  spec.codec = codec;
  spec.block_rows = 4;
  return WriteMaps(spec);
}

Status ReadToEnd(std::vector<SegmentSource> sources, PartitionReaderOptions options = {}) {
  auto reader = PartitionReader::Open(std::move(sources), options);
  if (!reader.ok()) return reader.status();
  return ReadAll(**reader).status();
}

void ExpectMentions(const Status& status, const std::vector<std::string>& parts) {
  for (const auto& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' missing from: " << status.ToString();
  }
}

// The byte offset an error names ("byte N"), or -1.
int64_t NamedOffset(const Status& status) {
  const auto at = status.message().find("byte ");
  if (at == std::string::npos) return -1;
  return std::stoll(status.message().substr(at + 5));
}

void FlipBit(const std::string& path, int64_t offset, int bit) {
  std::string bytes = ReadFileBytes(path);
  bytes[static_cast<size_t>(offset)] =
      static_cast<char>(bytes[static_cast<size_t>(offset)] ^ (1 << bit));
  WriteFileBytes(path, bytes);
}

std::string BigEndianOffsets(const std::vector<int64_t>& offsets) {
  std::string bytes;
  for (int64_t offset : offsets) {
    const uint64_t value = bits::ToBigEndian64(static_cast<uint64_t>(offset));
    bytes.append(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  return bytes;
}

// The non-empty partition of map `m` with the most bytes.
int32_t LargestPartition(const MapOutput& output) {
  int32_t best = 0;
  for (size_t p = 0; p < output.lengths.size(); ++p) {
    if (output.lengths[p] > output.lengths[static_cast<size_t>(best)])
      best = static_cast<int32_t>(p);
  }
  return best;
}

class CorruptDataTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(CorruptDataTest, BitFlipsAreCaughtByTheChecksum) {
  auto maps = WriteFour(GetParam());
  const MapOutput& output = maps->outputs[2];
  const int32_t partition = LargestPartition(output);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 24; ++trial) {
    const int64_t offset =
        output.offsets[partition] + static_cast<int64_t>(rng() % output.lengths[partition]);
    const int bit = static_cast<int>(rng() % 8);
    FlipBit(output.data_path, offset, bit);
    Status status = ReadToEnd(SparkSources(*maps, 0, 6, ChecksumAlgorithm::kAdler32));
    FlipBit(output.data_path, offset, bit);  // restore
    ASSERT_FALSE(status.ok()) << "flip at byte " << offset;
    EXPECT_TRUE(status.IsCorrupt()) << status.ToString();
    ExpectMentions(
        status,
        {"map output 2", output.data_path, "partition " + std::to_string(partition), "ADLER32",
         "checksum mismatch", "expected " + std::to_string(output.checksums[partition])});
    EXPECT_EQ(NamedOffset(status), output.offsets[partition]) << status.ToString();
  }
}

TEST_P(CorruptDataTest, BitFlipsWithoutChecksumsNeverCrash) {
  // Without a checksum a flip in a value is undetectable, so each read either fails with a
  // located error or succeeds; it must never crash, and a batch it returns must be valid. The
  // flipped copies stay in memory (a memory source), so a hundred flips cost no file writes.
  auto maps = WriteFour(GetParam());
  const MapOutput& output = maps->outputs[1];
  const int32_t partition = LargestPartition(output);
  const std::string original = ReadFileBytes(output.data_path);
  const int64_t step = std::max<int64_t>(1, output.lengths[partition] / 100);
  for (int64_t offset = output.offsets[partition]; offset < output.offsets[partition + 1];
       offset += step) {
    auto bytes = std::make_shared<std::string>(original);
    (*bytes)[static_cast<size_t>(offset)] ^= static_cast<char>(1 << (offset % 8));
    auto block = SegmentBlock::FromDataFile(reinterpret_cast<const uint8_t*>(bytes->data()),
                                            static_cast<int64_t>(bytes->size()), bytes,
                                            output.offsets, partition, partition + 1);
    ASSERT_TRUE(block.ok());
    block->name = "map output 1";
    auto reader = PartitionReader::Open({*block});
    auto batches = reader.ok() ? ReadAll(**reader) : reader.status();
    if (batches.ok()) {
      for (const auto& batch : *batches) {
        for (size_t c = 0; c < batch.num_columns(); ++c) {
          EXPECT_TRUE(ValidateArray(batch.column(c), "flipped").ok());
        }
      }
      continue;
    }
    const Status& status = batches.status();
    ExpectMentions(status, {"map output 1", "partition " + std::to_string(partition), "byte "});
    const int64_t named = NamedOffset(status);
    EXPECT_GE(named, output.offsets[partition]) << status.ToString();
    EXPECT_LE(named, output.offsets[partition + 1]) << status.ToString();
  }
}

TEST_P(CorruptDataTest, TruncatedDataFileIsAnError) {
  auto maps = WriteFour(GetParam());
  const MapOutput& output = maps->outputs[3];
  const std::string original = ReadFileBytes(output.data_path);
  const int32_t partition = LargestPartition(output);
  // Cut inside the largest partition, at its start, and just before the end of the file.
  for (int64_t size : {output.offsets[partition] + output.lengths[partition] / 2,
                       output.offsets[partition], static_cast<int64_t>(original.size()) - 1}) {
    WriteFileBytes(output.data_path, original.substr(0, static_cast<size_t>(size)));
    Status status = ReadToEnd(SparkSources(*maps, 0, 6));
    ASSERT_FALSE(status.ok()) << "truncated to " << size;
    EXPECT_TRUE(status.IsCorrupt()) << status.ToString();
    ExpectMentions(status, {"map output 3", output.data_path, "byte "});
    if (size < output.offsets[partition + 1]) {
      ExpectMentions(status, {"partition " + std::to_string(partition)});
    }
  }
  WriteFileBytes(output.data_path, original);
  EXPECT_TRUE(ReadToEnd(SparkSources(*maps, 0, 6)).ok());
}

TEST_P(CorruptDataTest, TruncatedBlockWithoutLengthsNamesTheStream) {
  auto maps = WriteFour(GetParam());
  const MapOutput& output = maps->outputs[0];
  auto bytes = std::make_shared<std::string>(ReadFileBytes(output.data_path));
  for (int64_t cut : {int64_t{1}, int64_t{7}, int64_t{100}}) {
    if (cut >= static_cast<int64_t>(bytes->size())) continue;
    SegmentBlock block;
    block.data = reinterpret_cast<const uint8_t*>(bytes->data());
    block.size = static_cast<int64_t>(bytes->size()) - cut;
    block.owner = bytes;
    block.start_partition = 0;
    block.end_partition = 6;
    Status status = ReadToEnd({block});
    ASSERT_FALSE(status.ok());
    EXPECT_TRUE(status.IsCorrupt()) << status.ToString();
    ExpectMentions(status, {"map output 0", "partitions [0, 6) stream ", "byte "});
    EXPECT_LE(NamedOffset(status), block.size);
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, CorruptDataTest,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

class CorruptIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    maps_ = WriteFour(CompressionCodec::kLz4Frame);
    index_path_ = maps_->outputs[1].index_path;
    offsets_ = maps_->outputs[1].offsets;
  }

  // Writes `bytes` as map 1's index and reads partitions [start, end) of every map.
  Status ReadWithIndex(const std::string& bytes, int32_t start = 0, int32_t end = 6,
                       PartitionReaderOptions options = {}) {
    WriteFileBytes(index_path_, bytes);
    return ReadToEnd(SparkSources(*maps_, start, end), options);
  }

  std::unique_ptr<WrittenMaps> maps_;
  std::string index_path_;
  std::vector<int64_t> offsets_;
};

TEST_F(CorruptIndexTest, OffsetPastTheEndOfTheDataFile) {
  auto offsets = offsets_;
  offsets[6] += 64;  // the last offset: the index no longer matches the data file
  Status status = ReadWithIndex(BigEndianOffsets(offsets));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", "partition 5", "byte " + std::to_string(offsets_[5]),
                          "has only " + std::to_string(offsets_[6]) + " bytes"});

  offsets = offsets_;
  offsets[3] = offsets[6] + 1000;  // a middle offset past the end (and past the last offset)
  status = ReadWithIndex(BigEndianOffsets(offsets), 2, 3);
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", index_path_, "byte 24", "partition 2", "past the end"});
}

TEST_F(CorruptIndexTest, DecreasingOffsets) {
  auto offsets = offsets_;
  std::swap(offsets[2], offsets[4]);
  if (offsets[2] == offsets[4]) offsets[4] = offsets[2] - 8;
  Status status = ReadWithIndex(BigEndianOffsets(offsets));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", index_path_, "is below that of partition"});
  EXPECT_GE(NamedOffset(status), 16);
  EXPECT_LE(NamedOffset(status), 40);
}

TEST_F(CorruptIndexTest, WrongCount) {
  // Too few entries for the range.
  std::vector<int64_t> short_index(offsets_.begin(), offsets_.begin() + 4);
  short_index.back() = offsets_.back();
  Status status = ReadWithIndex(BigEndianOffsets(short_index));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", index_path_, "3 partitions", "[0, 6)"});
  // Enough for the range, but not the shuffle's partition count.
  auto long_index = offsets_;
  long_index.push_back(offsets_.back());
  PartitionReaderOptions options;
  options.partition_count = 6;
  status = ReadWithIndex(BigEndianOffsets(long_index), 0, 2, options);
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", "describes 7 partitions, expected 6"});
  // Not a whole number of entries; empty.
  status = ReadWithIndex(BigEndianOffsets(offsets_).substr(0, 20));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", index_path_, "20 bytes"});
  status = ReadWithIndex("");
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
}

TEST_F(CorruptIndexTest, FirstOffsetNotZeroAndNegativeOffsets) {
  auto offsets = offsets_;
  offsets[0] = 8;
  Status status = ReadWithIndex(BigEndianOffsets(offsets));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", "byte 0", "the first offset is 8"});
  offsets = offsets_;
  offsets[2] = -5;
  status = ReadWithIndex(BigEndianOffsets(offsets), 2, 4);
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", "negative"});
}

TEST_F(CorruptIndexTest, ShiftedOffsetsAreCaughtByTheDecoder) {
  // Plausible offsets that do not fall on partition boundaries.
  auto offsets = offsets_;
  for (int p = 1; p < 6; ++p) {
    if (offsets[p] + 8 <= offsets[p + 1]) offsets[p] += 8;
  }
  Status status = ReadWithIndex(BigEndianOffsets(offsets));
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 1", "partition ", "byte "});
}

TEST_F(CorruptIndexTest, MissingIndexFile) {
  std::remove(index_path_.c_str());
  Status status = ReadToEnd(SparkSources(*maps_, 0, 6));
  ASSERT_TRUE(status.IsIOError()) << status.ToString();
  ExpectMentions(status, {"map output 1", index_path_});
}

TEST(PartitionReaderCorruptionTest, OffsetsInMemoryAreCheckedToo) {
  auto maps = WriteFour(CompressionCodec::kNone);
  MapOutputFile file = MapOutputFile::FromMapOutput(maps->outputs[0], 0, 6);
  file.offsets[6] += 1;
  Status status = ReadToEnd({file});
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 0", "data file"});
  file = MapOutputFile::FromMapOutput(maps->outputs[0], 0, 7);  // past the last partition
  status = ReadToEnd({file});
  ASSERT_TRUE(status.IsInvalid()) << status.ToString();
  ExpectMentions(status, {"map output 0", "6 partitions", "[0, 7)"});
}

TEST(PartitionReaderCorruptionTest, WrongChecksumNamesAlgorithmAndValues) {
  auto maps = WriteFour(CompressionCodec::kZstd);
  const MapOutput& output = maps->outputs[2];
  const int32_t partition = LargestPartition(output);
  // A checksum file with one entry changed.
  auto checksums = output.checksums;
  checksums[static_cast<size_t>(partition)] ^= 0x100;
  std::vector<int64_t> wide(checksums.begin(), checksums.end());
  WriteFileBytes(output.checksum_path, BigEndianOffsets(wide));
  Status status = ReadToEnd(SparkSources(*maps, 0, 6, ChecksumAlgorithm::kAdler32));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 2", "partition " + std::to_string(partition), "ADLER32",
                          "expected " + std::to_string(checksums[partition]),
                          "computed " + std::to_string(output.checksums[partition]),
                          "byte " + std::to_string(output.offsets[partition])});
  // In memory, the same.
  MapOutputFile file = MapOutputFile::FromMapOutput(output, partition, partition + 1);
  file.checksums[static_cast<size_t>(partition)] += 1;
  status = ReadToEnd({file});
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"partition " + std::to_string(partition), "ADLER32 checksum mismatch"});
  // A truncated checksum file, and one with an entry that is not 32 bits.
  WriteFileBytes(output.checksum_path, BigEndianOffsets(wide).substr(0, 40));
  status = ReadToEnd(SparkSources(*maps, 0, 6, ChecksumAlgorithm::kAdler32));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 2", output.checksum_path, "40 bytes"});
  wide[1] = int64_t{1} << 40;
  WriteFileBytes(output.checksum_path, BigEndianOffsets(wide));
  status = ReadToEnd(SparkSources(*maps, 0, 6, ChecksumAlgorithm::kAdler32));
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"byte 8", "partition 1", "not a 32-bit value"});
}

// Batches decoded before a failure reach the consumer before it, with or without read-ahead.
TEST(PartitionReaderCorruptionTest, BatchesBeforeAnErrorComeFirst) {
  auto maps = WriteFour(CompressionCodec::kLz4Frame);
  const MapOutput& bad = maps->outputs[2];
  WriteFileBytes(bad.data_path, ReadFileBytes(bad.data_path).substr(0, 8));  // map 2 is broken
  for (int32_t read_ahead : {0, 3}) {
    for (bool coalesce : {false, true}) {
      PartitionReaderOptions options;
      options.read_ahead_batches = read_ahead;
      options.coalesce = coalesce;
      auto reader = PartitionReader::Open(SparkSources(*maps, 0, 6), options);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::vector<RecordBatch> before;
      Status failure;
      while (true) {
        auto next = (*reader)->Next();
        if (!next.ok()) {
          failure = next.status();
          break;
        }
        ASSERT_TRUE(next->has_value()) << "the stream ended without the error";
        before.push_back(**next);
      }
      ExpectMentions(failure, {"map output 2"});
      ExpectSameRows(ExpectedRows(*maps, 0, 6, {0, 1}), before);
      // The error stays.
      auto again = (*reader)->Next();
      ASSERT_FALSE(again.ok());
      EXPECT_EQ(again.status().message(), failure.message());
    }
  }
}

TEST(PartitionReaderCorruptionTest, SkippingBadSourcesReadsTheOthersUnaffected) {
  auto maps = WriteFour(CompressionCodec::kZstd);
  // Map 1: a bit flip in its largest partition, caught by the checksum (after the partitions
  // before it decoded fine). Map 3: no data file.
  const MapOutput& flipped = maps->outputs[1];
  const int32_t flipped_partition = LargestPartition(flipped);
  FlipBit(flipped.data_path,
          flipped.offsets[flipped_partition] + flipped.lengths[flipped_partition] / 2, 3);
  std::remove(maps->outputs[3].data_path.c_str());
  for (int32_t read_ahead : {0, 2}) {
    for (bool coalesce : {false, true}) {
      PartitionReaderOptions options;
      options.skip_failed_sources = true;
      options.read_ahead_batches = read_ahead;
      options.coalesce = coalesce;
      auto reader =
          PartitionReader::Open(SparkSources(*maps, 0, 6, ChecksumAlgorithm::kAdler32), options);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      auto batches = ReadAll(**reader);
      ASSERT_TRUE(batches.ok()) << batches.status().ToString();
      ExpectSameRows(ExpectedRows(*maps, 0, 6, {0, 2}), *batches);
      const auto failures = (*reader)->failed_sources();
      ASSERT_EQ(failures.size(), 2u);
      EXPECT_EQ(failures[0].source_index, 1);
      EXPECT_TRUE(failures[0].status.IsCorrupt());
      ExpectMentions(failures[0].status,
                     {"map output 1", "partition " + std::to_string(flipped_partition), "ADLER32"});
      EXPECT_EQ(failures[1].source_index, 3);
      EXPECT_TRUE(failures[1].status.IsIOError());
      ExpectMentions(failures[1].status, {"map output 3", maps->outputs[3].data_path});
      EXPECT_EQ((*reader)->metrics().failed_sources, 2);
      EXPECT_EQ((*reader)->metrics().sources, 4);
    }
  }
}

TEST(PartitionReaderCorruptionTest, PushedFailuresAreDeliveredInOrderOrSkipped) {
  auto maps = WriteFour(CompressionCodec::kNone);
  auto block_of = [&](size_t m) {
    auto bytes = std::make_shared<std::string>(ReadFileBytes(maps->outputs[m].data_path));
    return SegmentBlock::FromDataFile(reinterpret_cast<const uint8_t*>(bytes->data()),
                                      static_cast<int64_t>(bytes->size()), bytes,
                                      maps->outputs[m].offsets, 0, 6)
        .ValueOrDie();
  };
  for (bool skip : {false, true}) {
    auto queue = PushedBlockQueue::Make();
    ASSERT_TRUE(queue->Push(block_of(0)).ok());
    ASSERT_TRUE(
        queue->PushFailure("map output 1 from host-7", Status::IOError("connection reset")).ok());
    SegmentBlock garbage = block_of(2);
    garbage.partition_lengths.clear();
    auto junk = std::make_shared<std::string>(64, '\x5a');
    garbage.data = reinterpret_cast<const uint8_t*>(junk->data());
    garbage.size = 64;
    garbage.owner = junk;
    garbage.name = "map output 2 from host-8";
    ASSERT_TRUE(queue->Push(garbage).ok());
    ASSERT_TRUE(queue->Push(block_of(3)).ok());
    queue->Close();
    PartitionReaderOptions options;
    options.skip_failed_sources = skip;
    options.schema = maps->schema;
    auto reader = PartitionReader::Open({queue}, options);
    ASSERT_TRUE(reader.ok());
    std::vector<RecordBatch> batches;
    Status failure;
    while (true) {
      auto next = (*reader)->Next();
      if (!next.ok()) {
        failure = next.status();
        break;
      }
      if (!next->has_value()) break;
      batches.push_back(**next);
    }
    if (skip) {
      ASSERT_TRUE(failure.ok()) << failure.ToString();
      ExpectSameRows(ExpectedRows(*maps, 0, 6, {0, 3}), batches);
      const auto failures = (*reader)->failed_sources();
      ASSERT_EQ(failures.size(), 2u);
      EXPECT_EQ(failures[0].block_index, 1);
      ExpectMentions(failures[0].status, {"map output 1 from host-7", "connection reset"});
      EXPECT_EQ(failures[1].block_index, 2);
      ExpectMentions(failures[1].status, {"map output 2 from host-8", "stream 1", "byte 0"});
    } else {
      ASSERT_TRUE(failure.IsIOError()) << failure.ToString();
      ExpectMentions(failure, {"map output 1 from host-7", "connection reset"});
      ExpectSameRows(ExpectedRows(*maps, 0, 6, {0}), batches);
    }
  }
}

TEST(PartitionReaderCorruptionTest, BadBlockDescriptionsAreRejected) {
  auto bytes = std::make_shared<std::string>(32, '\0');
  SegmentBlock block;
  block.data = reinterpret_cast<const uint8_t*>(bytes->data());
  block.size = 32;
  block.owner = bytes;
  block.start_partition = 2;
  block.end_partition = 4;
  block.partition_lengths = {16, 8};  // adds up to 24 of 32
  Status status = ReadToEnd({block});
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"map output 0", "add up to 24 bytes", "byte 24"});
  block.partition_lengths = {16, 40};
  status = ReadToEnd({block});
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  ExpectMentions(status, {"partition 3", "byte 16"});
  block.partition_lengths = {32};
  EXPECT_TRUE(ReadToEnd({block}).IsInvalid());
  block.partition_lengths = {16, 16};
  block.checksum_algorithm = ChecksumAlgorithm::kCrc32;
  EXPECT_TRUE(ReadToEnd({block}).IsInvalid());  // no checksums given
  EXPECT_TRUE(
      SegmentBlock::FromDataFile(block.data, 32, bytes, {0, 16, 64}, 0, 2).status().IsInvalid());
}

TEST(PartitionReaderCorruptionTest, EarlyDestructionStopsReadAhead) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.partitioning.kind = PartitionKind::kSingle;
  spec.map_count = 30;
  spec.rows_per_batch = 50;
  auto maps = WriteMaps(spec);
  PartitionReaderOptions options;
  options.read_ahead_batches = 2;
  options.coalesce = false;
  for (int taken = 0; taken < 3; ++taken) {
    auto reader = PartitionReader::Open(SparkSources(*maps, 0, 1), options);
    ASSERT_TRUE(reader.ok());
    for (int i = 0; i < taken; ++i) ASSERT_TRUE((*reader)->Next().ok());
  }
  // A thread waiting for a block that never comes is stopped too; the queue refuses pushes.
  auto queue = PushedBlockQueue::Make();
  options.schema = maps->schema;
  {
    auto reader = PartitionReader::Open({queue}, options);
    ASSERT_TRUE(reader.ok());
    std::this_thread::yield();
  }
  auto bytes = std::make_shared<std::string>(8, '\0');
  SegmentBlock block;
  block.data = reinterpret_cast<const uint8_t*>(bytes->data());
  block.size = 8;
  block.owner = bytes;
  EXPECT_TRUE(queue->Push(block).IsCancelled());
  EXPECT_EQ(bytes.use_count(), 2);  // the queue kept no reference (the block's copy remains)
}

}  // namespace
}  // namespace sluice
