// PartitionReader round trips with the MapWriter: every type, codec and partitioner, single
// partitions and ranges, 1, 10 and 200 map outputs, every kind of source, with and without
// read-ahead and coalescing. What is read must be exactly what was written to those partitions,
// in map order.
#include "sluice/read/partition_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <thread>

#include "map_output_fixture.h"
#include "sluice/format/c_data.h"
#include "sluice/read/pushed_block_queue.h"
#include "support/batch_maker.h"
#include "support/encoded_segment.h"

namespace sluice {
namespace {

using testing::CountRows;
using testing::ExpectedRows;
using testing::ExpectSameRows;
using testing::MapsToWrite;
using testing::ReadAll;
using testing::SparkSources;
using testing::WriteMaps;
using testing::WrittenMaps;

struct ReadMode {
  int32_t read_ahead;
  bool coalesce;
};
const ReadMode kReadModes[] = {{0, true}, {0, false}, {2, true}, {2, false}};

std::string ModeName(const ReadMode& mode) {
  return std::string(mode.read_ahead > 0 ? "read-ahead" : "inline") +
         (mode.coalesce ? "/coalesce" : "/as-decoded");
}

PartitionReaderOptions OptionsFor(const ReadMode& mode) {
  PartitionReaderOptions options;
  options.read_ahead_batches = mode.read_ahead;
  options.coalesce = mode.coalesce;
  return options;
}

// Reads partitions [start, end) of every map from `sources` and checks the rows against
// `expected` (ExpectedRows of the same range).
// `schema` is given to the reader when set.
void ExpectRoundTrip(const WrittenMaps& maps, const std::vector<RecordBatch>& expected,
                     const ReadMode& mode, std::vector<SegmentSource> sources,
                     SchemaPtr schema = nullptr) {
  SCOPED_TRACE(ModeName(mode));
  PartitionReaderOptions options = OptionsFor(mode);
  options.schema = std::move(schema);
  auto reader = PartitionReader::Open(std::move(sources), options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batches = ReadAll(**reader);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ExpectSameRows(expected, *batches);
  const PartitionReaderMetrics metrics = (*reader)->metrics();
  EXPECT_EQ(metrics.rows, CountRows(expected));
  EXPECT_EQ(metrics.batches, static_cast<int64_t>(batches->size()));
  EXPECT_EQ(metrics.sources, static_cast<int64_t>(maps.outputs.size()));
  EXPECT_EQ(metrics.failed_sources, 0);
  if (mode.coalesce) {
    for (const auto& batch : *batches) EXPECT_LE(batch.num_rows(), 8192);
  } else {
    EXPECT_EQ(metrics.batches, metrics.blocks);  // every decoded block, as it was
    EXPECT_EQ(metrics.coalesced_batches, 0);
  }
}

// The same through Spark's files, in each of `modes`.
void ExpectRoundTrip(const WrittenMaps& maps, int32_t start, int32_t end,
                     std::span<const ReadMode> modes = kReadModes) {
  SCOPED_TRACE("partitions [" + std::to_string(start) + ", " + std::to_string(end) + ")");
  const auto expected = ExpectedRows(maps, start, end);
  for (const ReadMode& mode : modes) {
    ExpectRoundTrip(maps, expected, mode, SparkSources(maps, start, end));
  }
}

class EveryCodecTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(EveryCodecTest, EveryTypeReadsBackPerPartitionAndRange) {
  MapsToWrite spec;
  spec.schema = testing::AllTypesSchema(2);
  spec.partitioning.kind = PartitionKind::kHash;
  spec.partitioning.partition_count = 16;
  spec.partitioning.key_columns = {4, 19, 29};
  spec.map_count = 10;
  spec.rows_per_batch = 24;  // small: every row is compared slot by slot, also under ASan
  spec.codec = GetParam();
  spec.block_rows = 4;  // several blocks per partition
  auto maps = WriteMaps(spec);
  ASSERT_EQ(maps->outputs.size(), 10u);
  ExpectRoundTrip(*maps, 3, 4);
  ExpectRoundTrip(*maps, 0, 16);
  ExpectRoundTrip(*maps, 5, 9);
}

INSTANTIATE_TEST_SUITE_P(Codecs, EveryCodecTest,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

TEST(PartitionReaderTest, EveryPartitionerReadsBack) {
  for (const PartitionerOptions& partitioning : testing::EveryPartitioner()) {
    SCOPED_TRACE(std::string(PartitionKindName(partitioning.kind)));
    auto maps = testing::WriteKeyedMaps(partitioning, 10, 150, CompressionCodec::kLz4Frame);
    ASSERT_EQ(maps->outputs.size(), 10u);
    const int32_t last = maps->partition_count;
    const ReadMode modes[] = {kReadModes[0], kReadModes[3]};
    ExpectRoundTrip(*maps, 0, 1, modes);
    ExpectRoundTrip(*maps, last - 1, last, modes);
    ExpectRoundTrip(*maps, 0, last, modes);
    if (last > 4) ExpectRoundTrip(*maps, 2, last - 2, modes);
  }
}

class MapOutputCountTest : public ::testing::TestWithParam<int> {};

TEST_P(MapOutputCountTest, ReadsPartitionsAndRangesInMapOrder) {
  MapsToWrite spec;
  spec.schema = testing::AllTypesSchema(0);  // every type; EveryCodecTest nests deeper
  spec.partitioning.kind = PartitionKind::kHash;
  spec.partitioning.partition_count = 8;
  spec.partitioning.key_columns = {29};
  spec.map_count = GetParam();
  spec.batches_per_map = 1;
  spec.rows_per_batch = 16;  // small: 200 outputs stay quick under ASan
  spec.codec = CompressionCodec::kZstd;
  auto maps = WriteMaps(spec);
  ASSERT_EQ(maps->outputs.size(), static_cast<size_t>(GetParam()));
  ExpectRoundTrip(*maps, 2, 3);
  const ReadMode both_off_and_on[] = {kReadModes[0], kReadModes[3]};
  ExpectRoundTrip(*maps, 0, 8, both_off_and_on);
}

INSTANTIATE_TEST_SUITE_P(Counts, MapOutputCountTest, ::testing::Values(1, 10, 200));

// One set of maps read through every kind of source gives the same rows.
class SourceKindTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    MapsToWrite spec;
    spec.schema = testing::AllTypesSchema(1);
    spec.partitioning.kind = PartitionKind::kHash;
    spec.partitioning.partition_count = 6;
    spec.partitioning.key_columns = {5};
    spec.map_count = 7;
    spec.rows_per_batch = 40;
    spec.codec = CompressionCodec::kLz4Frame;
    spec.checksum = ChecksumAlgorithm::kCrc32c;
    spec.block_rows = 8;
    maps_ = WriteMaps(spec).release();
  }
  static void TearDownTestSuite() {
    delete maps_;
    maps_ = nullptr;
  }

  // The whole data file of map `m` in memory.
  static std::shared_ptr<std::string> DataFile(size_t m) {
    return std::make_shared<std::string>(testing::ReadFileBytes(maps_->outputs[m].data_path));
  }

  static SegmentBlock MemoryBlock(size_t m, int32_t start, int32_t end, bool with_lengths) {
    auto bytes = DataFile(m);
    auto block = SegmentBlock::FromDataFile(reinterpret_cast<const uint8_t*>(bytes->data()),
                                            static_cast<int64_t>(bytes->size()), bytes,
                                            maps_->outputs[m].offsets, start, end)
                     .ValueOrDie();
    if (!with_lengths) block.partition_lengths.clear();
    return block;
  }

  static WrittenMaps* maps_;
};

WrittenMaps* SourceKindTest::maps_ = nullptr;

TEST_F(SourceKindTest, OffsetsAndChecksumsInMemory) {
  const auto expected = ExpectedRows(*maps_, 1, 5);
  for (const ReadMode& mode : kReadModes) {
    std::vector<SegmentSource> sources;
    for (const auto& output : maps_->outputs) {
      sources.push_back(MapOutputFile::FromMapOutput(output, 1, 5));
    }
    ExpectRoundTrip(*maps_, expected, mode, std::move(sources));
  }
}

TEST_F(SourceKindTest, SparkFilesWithChecksumFiles) {
  const auto expected = ExpectedRows(*maps_, 0, 6);
  for (const ReadMode& mode : kReadModes) {
    ExpectRoundTrip(*maps_, expected, mode, SparkSources(*maps_, 0, 6, ChecksumAlgorithm::kCrc32c));
  }
}

TEST_F(SourceKindTest, MemoryBlocksWithAndWithoutPartitionLengths) {
  const auto expected = ExpectedRows(*maps_, 2, 6);
  for (bool with_lengths : {true, false}) {
    for (const ReadMode& mode : kReadModes) {
      std::vector<SegmentSource> sources;
      for (size_t m = 0; m < maps_->outputs.size(); ++m) {
        sources.push_back(MemoryBlock(m, 2, 6, with_lengths));
      }
      // Blocks without partition 0 hold compact segments that refer to the Schema message of
      // their map output, which no block here holds: the reader is given the schema.
      ExpectRoundTrip(*maps_, expected, mode, std::move(sources), maps_->schema);
    }
  }
}

TEST_F(SourceKindTest, MemoryBlocksWithoutTheSchemaTheyReferToAreRefused) {
  // Open reads up to the first segment's schema, so it is Open that says so.
  auto reader = PartitionReader::Open({MemoryBlock(0, 2, 6, true)}, PartitionReaderOptions{});
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(reader.status().message().rfind(
                "map output 0 partition 2: byte " + std::to_string(maps_->outputs[0].offsets[2]) +
                    ": the compact segment was compressed against its map output's Schema message",
                0),
            0u)
      << reader.status().message();
  EXPECT_NE(reader.status().message().find("or give the reader the schema"), std::string::npos);
}

TEST_F(SourceKindTest, BlocksPushedFromAnotherThread) {
  const auto expected = ExpectedRows(*maps_, 0, 6);
  for (bool with_lengths : {true, false}) {
    for (const ReadMode& mode : kReadModes) {
      auto queue = PushedBlockQueue::Make();
      std::thread fetcher([&] {
        for (size_t m = 0; m < maps_->outputs.size(); ++m) {
          EXPECT_TRUE(queue->Push(MemoryBlock(m, 0, 6, with_lengths)).ok());
        }
        queue->Close();
      });
      ExpectRoundTrip(*maps_, expected, mode, {queue});
      fetcher.join();
    }
  }
}

TEST_F(SourceKindTest, MixedSourcesKeepTheirOrder) {
  // Maps 0-1 from files, 2 from memory, 3-5 pushed, 6 from a file again.
  auto queue = PushedBlockQueue::Make();
  for (size_t m = 3; m < 6; ++m) ASSERT_TRUE(queue->Push(MemoryBlock(m, 1, 4, true)).ok());
  queue->Close();
  std::vector<SegmentSource> sources = {
      MapOutputFile::Spark(maps_->outputs[0].data_path, 1, 4),
      MapOutputFile::FromMapOutput(maps_->outputs[1], 1, 4), MemoryBlock(2, 1, 4, false), queue,
      MapOutputFile::Spark(maps_->outputs[6].data_path, 1, 4, ChecksumAlgorithm::kCrc32c)};
  auto reader = PartitionReader::Open(std::move(sources), OptionsFor(kReadModes[2]));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batches = ReadAll(**reader);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ExpectSameRows(ExpectedRows(*maps_, 1, 4), *batches);
  EXPECT_EQ((*reader)->metrics().sources, 7);
}

TEST_F(SourceKindTest, TryNextReportsNotReadyUntilBlocksArrive) {
  auto queue = PushedBlockQueue::Make();
  auto reader = PartitionReader::Open({queue}, [] {
    PartitionReaderOptions options;
    options.schema = maps_->schema;  // known up front: Open must not wait for a block
    return options;
  }());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RecordBatch batch;
  auto polled = (*reader)->TryNext(&batch);
  ASSERT_TRUE(polled.ok());
  EXPECT_EQ(*polled, PartitionReader::Poll::kNotReady);
  std::vector<RecordBatch> batches;
  int not_ready = 0;
  for (size_t m = 0; m < maps_->outputs.size(); ++m) {
    ASSERT_TRUE(queue->Push(MemoryBlock(m, 0, 6, true)).ok());
    if (m + 1 == maps_->outputs.size()) queue->Close();
    while (true) {
      polled = (*reader)->TryNext(&batch);
      ASSERT_TRUE(polled.ok()) << polled.status().ToString();
      if (*polled == PartitionReader::Poll::kNotReady) {
        ++not_ready;
        break;
      }
      if (*polled == PartitionReader::Poll::kEnd) break;
      batches.push_back(batch);
    }
  }
  EXPECT_EQ(not_ready, static_cast<int>(maps_->outputs.size()) - 1);
  polled = (*reader)->TryNext(&batch);
  ASSERT_TRUE(polled.ok());
  EXPECT_EQ(*polled, PartitionReader::Poll::kEnd);
  ExpectSameRows(ExpectedRows(*maps_, 0, 6), batches);
}

// A host (Spark's fetcher over JNI) must get a pushed block back as soon as Sluice is done with
// it, not when the reader closes: the decoder used to keep the last segment's bytes until the
// next one began.
TEST_F(SourceKindTest, APushedBlockIsReleasedOnceItsBatchesAreGone) {
  auto queue = PushedBlockQueue::Make();
  PartitionReaderOptions options;
  options.schema = maps_->schema;
  options.coalesce = false;
  auto reader = PartitionReader::Open({queue}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  SegmentBlock block = MemoryBlock(4, 0, 6, true);
  std::weak_ptr<const void> owner = block.owner;
  ASSERT_TRUE(queue->Push(std::move(block)).ok());
  std::vector<RecordBatch> batches;
  RecordBatch batch;
  while (true) {
    auto polled = (*reader)->TryNext(&batch);
    ASSERT_TRUE(polled.ok()) << polled.status().ToString();
    if (*polled != PartitionReader::Poll::kBatch) break;
    batches.push_back(std::move(batch));
  }
  batch = RecordBatch();
  EXPECT_FALSE(batches.empty());
  batches.clear();
  EXPECT_TRUE(owner.expired());  // while the reader lives on, waiting for more blocks
}

// A host may hand over bytes at any address. The decoder read Arrow's flatbuffer metadata in
// place, and at an address that is not 8-byte aligned that is undefined behaviour (UBSan:
// "member call on misaligned address"); partition_reader_fuzz found it.
TEST_F(SourceKindTest, BlocksAtMisalignedAddressesAreRead) {
  const auto expected = ExpectedRows(*maps_, 0, 6);
  for (size_t misalignment : {1, 4}) {
    std::vector<SegmentSource> sources;
    for (size_t m = 0; m < maps_->outputs.size(); ++m) {
      const std::string file = testing::ReadFileBytes(maps_->outputs[m].data_path);
      auto bytes = std::make_shared<AlignedBuffer>();
      bytes->Resize(static_cast<int64_t>(file.size() + misalignment));
      std::memcpy(bytes->data() + misalignment, file.data(), file.size());
      auto block = SegmentBlock::FromDataFile(bytes->data() + misalignment,
                                              static_cast<int64_t>(file.size()), bytes,
                                              maps_->outputs[m].offsets, 0, 6);
      ASSERT_TRUE(block.ok());
      if (m % 2 == 1) block->partition_lengths.clear();
      sources.push_back(std::move(block).ValueUnsafe());
    }
    ExpectRoundTrip(*maps_, expected, kReadModes[0], std::move(sources));
  }
}

TEST_F(SourceKindTest, RangeForWalksEveryBatch) {
  auto reader = PartitionReader::Open(SparkSources(*maps_, 0, 6));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<RecordBatch> batches;
  for (Result<RecordBatch>& batch : **reader) {
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    batches.push_back(*batch);
  }
  ExpectSameRows(ExpectedRows(*maps_, 0, 6), batches);
}

TEST_F(SourceKindTest, ExportsAsAnArrowStream) {
  for (const ReadMode& mode : kReadModes) {
    auto reader = PartitionReader::Open(SparkSources(*maps_, 0, 6), OptionsFor(mode));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    ArrowArrayStream stream;
    ASSERT_TRUE(ExportRecordBatchReader(std::move(reader).ValueUnsafe(), &stream).ok());
    auto imported = ImportArrayStream(&stream);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    EXPECT_TRUE((*imported)->schema()->Equals(*maps_->schema));
    auto batches = ReadAll(**imported);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    ExpectSameRows(ExpectedRows(*maps_, 0, 6), *batches);
  }
}

TEST_F(SourceKindTest, BatchesOutliveTheReader) {
  // Zero-copy batches hold their read buffers; destroying the reader must not free them.
  std::vector<RecordBatch> batches;
  {
    PartitionReaderOptions options;
    options.coalesce = false;
    options.read_ahead_batches = 2;
    auto reader = PartitionReader::Open(SparkSources(*maps_, 0, 6), options);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto all = ReadAll(**reader);
    ASSERT_TRUE(all.ok());
    batches = std::move(*all);
  }
  ExpectSameRows(ExpectedRows(*maps_, 0, 6), batches);
}

TEST_F(SourceKindTest, GivenSchemaMustMatchTheSegments) {
  PartitionReaderOptions options;
  options.schema =
      std::make_shared<Schema>(std::vector<Field>{MakeField("other", DataType::Int32())});
  auto reader = PartitionReader::Open(SparkSources(*maps_, 0, 6), options);
  ASSERT_TRUE(reader.ok());
  auto batches = ReadAll(**reader);
  ASSERT_FALSE(batches.ok());
  EXPECT_TRUE(batches.status().IsInvalid());
  EXPECT_NE(batches.status().message().find("schema differs"), std::string::npos);
  EXPECT_NE(batches.status().message().find("map output 0"), std::string::npos);
  EXPECT_NE(batches.status().message().find("byte "), std::string::npos);
}

TEST(PartitionReaderTest, SmallBlocksAreJoinedToTheTarget) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.partitioning.kind = PartitionKind::kRoundRobin;
  spec.partitioning.partition_count = 4;
  spec.map_count = 200;
  spec.batches_per_map = 1;
  spec.rows_per_batch = 100;  // 25 rows per partition per map
  spec.codec = CompressionCodec::kLz4Frame;
  spec.checksum = ChecksumAlgorithm::kNone;
  auto maps = WriteMaps(spec);
  ASSERT_EQ(maps->outputs.size(), 200u);
  PartitionReaderOptions options;
  options.target_batch_rows = 1000;
  auto reader = PartitionReader::Open(SparkSources(*maps, 1, 2), options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batches = ReadAll(**reader);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ExpectSameRows(ExpectedRows(*maps, 1, 2), *batches);
  // 5,000 rows in 200 blocks of 25 become 5 batches of 1,000.
  ASSERT_EQ(batches->size(), 5u);
  for (const auto& batch : *batches) EXPECT_EQ(batch.num_rows(), 1000);
  const PartitionReaderMetrics metrics = (*reader)->metrics();
  EXPECT_EQ(metrics.blocks, 200);
  EXPECT_EQ(metrics.coalesced_batches, 5);
  EXPECT_EQ(metrics.coalesced_inputs, 200);
  // Each map output is one read of its index and one of its data, and one more read finds the
  // Schema message that the first compact segment met refers to (byte 0 of its data file; every
  // later map output's is the same). Buffers of 25 rows do not
  // shrink under lz4, so they are stored raw and the decoded batches view the read buffer: the
  // 40 inputs of a joined batch pin 40 buffers, which then return together and serve the next
  // 40 reads.
  EXPECT_EQ(metrics.file_reads, 200 * 2 + 1);
  EXPECT_LE(metrics.read_buffers, 45);
  EXPECT_EQ(metrics.schemas_parsed, 1);

  // A reader given the schema, as a reduce task is, takes the Schema message from it: no read
  // of byte 0 and no schema parsed, however many map outputs there are.
  options.schema = spec.schema;
  auto given = PartitionReader::Open(SparkSources(*maps, 1, 2), options);
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  batches = ReadAll(**given);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ExpectSameRows(ExpectedRows(*maps, 1, 2), *batches);
  EXPECT_EQ((*given)->metrics().file_reads, 200 * 2);
  EXPECT_EQ((*given)->metrics().schemas_parsed, 0);
}

TEST(PartitionReaderTest, ReadBuffersPinnedByBatchesAreNotReused) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.partitioning.kind = PartitionKind::kSingle;
  spec.map_count = 6;
  spec.batches_per_map = 1;
  spec.rows_per_batch = 50;
  spec.codec = CompressionCodec::kNone;  // batches are views of the read buffers
  auto maps = WriteMaps(spec);
  PartitionReaderOptions options;
  options.coalesce = false;
  auto reader = PartitionReader::Open(SparkSources(*maps, 0, 1), options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<RecordBatch> kept;
  for (int m = 0; m < 3; ++m) {
    auto batch = (*reader)->Next();
    ASSERT_TRUE(batch.ok() && batch->has_value());
    kept.push_back(**batch);
  }
  EXPECT_EQ((*reader)->metrics().read_buffers, 3);  // each pinned by a batch kept
  kept.clear();
  auto rest = ReadAll(**reader);  // released batches: their buffers come back
  ASSERT_TRUE(rest.ok());
  EXPECT_LE((*reader)->metrics().read_buffers, 4);
}

TEST(PartitionReaderTest, PooledBytesReportTheReadBuffersAndArenasKept) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.partitioning.kind = PartitionKind::kSingle;
  spec.map_count = 4;
  spec.batches_per_map = 2;
  spec.rows_per_batch = 5000;  // large enough that lz4 compresses: decoded into arenas
  spec.codec = CompressionCodec::kLz4Frame;
  auto maps = WriteMaps(spec);
  PartitionReaderOptions options;
  options.coalesce = false;
  auto reader = PartitionReader::Open(SparkSources(*maps, 0, 1), options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto first = (*reader)->Next();
  ASSERT_TRUE(first.ok() && first->has_value());
  // One read buffer (the first map output's data) and one arena (its first block) at least.
  const int64_t after_first = (*reader)->metrics().pooled_bytes;
  EXPECT_GT(after_first, 0);
  auto rest = ReadAll(**reader);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_GE((*reader)->metrics().decompressed_bytes, 1);
  const int64_t pooled = (*reader)->metrics().pooled_bytes;
  EXPECT_GE(pooled, after_first);
  // Within the pools' caps: the read buffers' and the decoder's 8 MiB of arenas.
  EXPECT_LE(pooled, options.pooled_read_bytes + (int64_t{8} << 20));
}

TEST(PartitionReaderTest, EmptyPartitionsAndNoSources) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.partitioning.kind = PartitionKind::kSingle;
  spec.map_count = 3;
  spec.partitioning.partition_count = 1;
  spec.rows_per_batch = 0;
  auto maps = WriteMaps(spec);
  {
    auto reader = PartitionReader::Open(SparkSources(*maps, 0, 1));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->schema()->num_fields(), 0u);  // nothing told it the schema
    auto batches = ReadAll(**reader);
    ASSERT_TRUE(batches.ok());
    EXPECT_TRUE(batches->empty());
    EXPECT_EQ((*reader)->metrics().file_reads, 3);  // the index only: no data file opened
  }
  {
    PartitionReaderOptions options;
    options.schema = maps->schema;
    options.read_ahead_batches = 1;
    auto reader = PartitionReader::Open({}, options);
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ((*reader)->schema(), maps->schema);
    auto next = (*reader)->Next();
    ASSERT_TRUE(next.ok());
    EXPECT_FALSE(next->has_value());
    next = (*reader)->Next();  // the end again
    ASSERT_TRUE(next.ok());
    EXPECT_FALSE(next->has_value());
  }
}

// Reading an empty partition, or a range of them, returned a schema with no columns: the
// consumer could not tell an empty partition from a table without columns.
TEST(PartitionReaderTest, AnEmptyPartitionHasTheMapOutputsSchema) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.map_count = 2;
  spec.partitioning.kind = PartitionKind::kHash;
  spec.partitioning.partition_count = 400;  // more partitions than rows: most are empty
  spec.partitioning.key_columns = {0};
  spec.batches_per_map = 1;
  spec.rows_per_batch = 20;
  auto maps = WriteMaps(spec);
  int32_t empty = -1;
  for (int32_t p = 0; p < 400 && empty < 0; ++p) {
    auto reader = PartitionReader::Open(SparkSources(*maps, p, p + 1)).ValueOrDie();
    if (CountRows(ReadAll(*reader).ValueOrDie()) == 0) empty = p;
  }
  ASSERT_GE(empty, 0);
  auto reader = PartitionReader::Open(SparkSources(*maps, empty, empty + 1));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->schema()->Equals(*maps->schema)) << (*reader)->schema()->ToString();
  auto batches = ReadAll(**reader);
  ASSERT_TRUE(batches.ok());
  EXPECT_TRUE(batches->empty());
}

TEST(PartitionReaderTest, RejectsBadOptions) {
  PartitionReaderOptions options;
  options.target_batch_rows = 0;
  EXPECT_TRUE(PartitionReader::Open({}, options).status().IsInvalid());
  options = {};
  options.read_ahead_batches = -1;
  EXPECT_TRUE(PartitionReader::Open({}, options).status().IsInvalid());
  options = {};
  options.max_read_bytes = 0;
  EXPECT_TRUE(PartitionReader::Open({}, options).status().IsInvalid());
  SegmentBlock block;
  block.size = 10;  // no data
  EXPECT_TRUE(PartitionReader::Open({block}).status().IsInvalid());
  std::shared_ptr<PushedBlockQueue> no_queue;
  EXPECT_TRUE(PartitionReader::Open({no_queue}).status().IsInvalid());
}

TEST(PartitionReaderTest, SmallReadLimitReadsPartitionByPartition) {
  MapsToWrite spec;
  spec.schema = testing::KeyedSchema();
  spec.partitioning.kind = PartitionKind::kHash;
  spec.partitioning.partition_count = 5;
  spec.partitioning.key_columns = {0};
  spec.map_count = 2;
  spec.rows_per_batch = 200;
  auto maps = WriteMaps(spec);
  PartitionReaderOptions options;
  options.max_read_bytes = 1;  // every partition is read on its own
  auto reader = PartitionReader::Open(SparkSources(*maps, 0, 5), options);
  ASSERT_TRUE(reader.ok());
  auto batches = ReadAll(**reader);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ExpectSameRows(ExpectedRows(*maps, 0, 5), *batches);
  EXPECT_EQ((*reader)->metrics().file_reads, 2 * (1 + 5));
}

// A consumer that hands each batch back through TryNext before asking for the next gets the
// next one built in the same memory: the decoder's arena of the batch handed back, still in the
// cache, not another one.
TEST(PartitionReaderTest, ABatchHandedBackLendsItsMemoryToTheNext) {
  testing::BatchMaker maker({Field{"v", DataType::Int64(), false}});
  for (int64_t row = 0; row < 4096; ++row) maker[0].Append<int64_t>(row % 100);
  const RecordBatch batch = maker.Finish();
  const auto segment = std::make_shared<AlignedBuffer>(testing::EncodedSegment(
      batch.schema(), std::vector<RecordBatch>(8, batch), CompressionCodec::kLz4Frame));
  SegmentBlock block;
  block.data = segment->data();
  block.size = segment->size();
  block.owner = segment;
  PartitionReaderOptions options;
  options.coalesce = false;
  auto reader = PartitionReader::Open({block}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RecordBatch out;
  std::vector<const uint8_t*> values;  // where each batch's values were decompressed to
  while (true) {
    auto polled = (*reader)->TryNext(&out);
    ASSERT_TRUE(polled.ok()) << polled.status().ToString();
    if (*polled != PartitionReader::Poll::kBatch) break;
    ASSERT_EQ(out.num_rows(), 4096);
    EXPECT_EQ(out.column(0).values<int64_t>()[4095], 95);
    values.push_back(out.column(0).buffers[1].data);
  }
  ASSERT_EQ(values.size(), 8u);
  EXPECT_EQ((*reader)->metrics().decompressed_bytes, 8 * 4096 * 8);
  for (size_t i = 1; i < values.size(); ++i) EXPECT_EQ(values[i], values[0]) << "batch " << i;
}

}  // namespace
}  // namespace sluice
