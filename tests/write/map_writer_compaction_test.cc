// MapWriter's compact segments: small partitions become one frame around a plain stream, their
// pieces in spills merged into one batch; large ones stay Arrow IPC streams.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_layout.h"
#include "sluice/write/map_writer.h"
#include "support/map_output_check.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

struct SegmentKinds {
  int compact = 0;
  int streams = 0;
  int64_t blocks = 0;  // RecordBatch messages in all, those inside compact segments too
  int referred = 0;    // compact segments compressed against the Schema message
};

// Reads the kind of every non-empty segment of `output` from its first bytes, and its layout.
SegmentKinds KindsOf(const MapOutput& output) {
  const std::string data = testing::ReadFileBytes(output.data_path);
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  SegmentKinds kinds;
  // The data file starts with the Schema message the other compact segments refer to.
  std::vector<uint8_t> schema_message;
  if (!data.empty()) {
    auto first = FirstSchemaMessage(bytes, static_cast<int64_t>(data.size()), "data file");
    EXPECT_TRUE(first.ok()) << first.status().ToString();
    if (first.ok()) schema_message = std::move(*first);
  }
  bool first_segment = true;
  for (size_t p = 0; p < output.lengths.size(); ++p) {
    if (output.lengths[p] == 0) continue;
    const auto* segment = bytes + output.offsets[p];
    EXPECT_EQ(output.offsets[p] % 8, 0) << "partition " << p << " starts unaligned";
    const bool compact = IsCompactSegment(segment, output.lengths[p]);
    (compact ? kinds.compact : kinds.streams) += 1;
    const bool referred = DictionaryReferenceAt(segment, output.lengths[p]).has_value();
    if (first_segment) {
      EXPECT_FALSE(referred) << "the first segment must hold the Schema";
    } else if (compact) {
      EXPECT_TRUE(referred) << "partition " << p;
    }
    first_segment = false;
    kinds.referred += referred ? 1 : 0;
    auto layout = ReadSegmentLayout(segment, output.lengths[p], "partition " + std::to_string(p), 0,
                                    schema_message);
    EXPECT_TRUE(layout.ok()) << layout.status().ToString();
    if (layout.ok()) kinds.blocks += static_cast<int64_t>(layout->blocks.size());
  }
  return kinds;
}

class MapWriterCompactionTest : public ::testing::TestWithParam<CompressionCodec> {
 protected:
  MapWriterOptions Options(int32_t partitions) {
    MapWriterOptions options;
    options.schema = schema_;
    options.partitioning.kind = PartitionKind::kRoundRobin;
    options.partitioning.partition_count = partitions;
    options.encoding.codec = GetParam();
    options.data_path = directory_.Join("out.data");
    options.write_spark_files = true;
    options.overwrite = true;
    options.compact_schema_dictionary = true;
    return options;
  }

  Result<MapOutput> Write(const MapWriterOptions& options) {
    SLUICE_ASSIGN_OR_RAISE(auto writer, MapWriter::Make(options));
    for (const RecordBatch& batch : batches_) SLUICE_RETURN_NOT_OK(writer->Write(batch));
    return writer->Finish();
  }

  SchemaPtr schema_ = testing::AllTypesSchema(2);
  std::vector<RecordBatch> batches_ = {testing::RandomBatch(schema_, 300, 1),
                                       testing::RandomBatch(schema_, 200, 2),
                                       testing::RandomBatch(schema_, 250, 3)};
  testing::TemporaryDirectory directory_;
};

TEST_P(MapWriterCompactionTest, SmallPartitionsAreCompactAndReadBackExactly) {
  MapWriterOptions options = Options(200);
  auto output = Write(options);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(testing::CheckMapOutput(*output, batches_, options.partitioning), 750);
  const SegmentKinds kinds = KindsOf(*output);
  EXPECT_EQ(kinds.compact, 200);
  EXPECT_EQ(kinds.streams, 0);
  EXPECT_EQ(kinds.blocks, kinds.compact);  // one batch each
}

TEST_P(MapWriterCompactionTest, PiecesOfEverySpillMergeIntoOneBatch) {
  MapWriterOptions options = Options(50);
  options.memory_limit = 1;  // every batch spills
  auto output = Write(options);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.spills, 2);
  EXPECT_EQ(testing::CheckMapOutput(*output, batches_, options.partitioning), 750);
  const SegmentKinds kinds = KindsOf(*output);
  EXPECT_EQ(kinds.streams, 0);
  EXPECT_EQ(kinds.blocks, kinds.compact);  // two spills' pieces and the held rows: one batch
}

TEST_P(MapWriterCompactionTest, APartitionLargerThanTheLimitStaysAStream) {
  MapWriterOptions options = Options(4);
  options.memory_limit = 1;
  // Each spill's piece of a partition is below the limit, the whole partition is not: its plain
  // pieces are compressed as blocks at the end. (The writer estimates a piece from the held
  // rows' charged size: their buffers and 12 bytes of partition id and sort state each.)
  const int64_t row_bytes = batches_[0].ReferencedBytes() / batches_[0].num_rows() + 12;
  options.compact_segment_bytes = 75 * row_bytes * 3 / 2;
  auto output = Write(options);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(testing::CheckMapOutput(*output, batches_, options.partitioning), 750);
  const SegmentKinds kinds = KindsOf(*output);
  EXPECT_EQ(kinds.compact, 0);
  EXPECT_EQ(kinds.streams, 4);
  EXPECT_EQ(kinds.blocks, 12);  // a block per batch per partition: two spilled, one held
}

TEST_P(MapWriterCompactionTest, OffMeansEverySegmentIsAStream) {
  MapWriterOptions options = Options(200);
  options.compact_segment_bytes = 0;
  options.memory_limit = 1;
  auto output = Write(options);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(testing::CheckMapOutput(*output, batches_, options.partitioning), 750);
  const SegmentKinds kinds = KindsOf(*output);
  EXPECT_EQ(kinds.compact, 0);
  EXPECT_EQ(kinds.streams, 200);
}

TEST_P(MapWriterCompactionTest, SmallPartitionsTakeFewerBytesThanStreams) {
  MapWriterOptions options = Options(500);
  auto compact = Write(options);
  ASSERT_TRUE(compact.ok()) << compact.status().ToString();
  const int64_t compact_bytes = compact->metrics.output_bytes;
  options.compact_segment_bytes = 0;
  auto streams = Write(options);
  ASSERT_TRUE(streams.ok()) << streams.status().ToString();
  EXPECT_LT(compact_bytes, streams->metrics.output_bytes);
}

// A writer whose readers are given the schema (the Spark plugin's) lets even the data file's
// first compact segment refer to the Schema message: a reader given the schema reads every row,
// one that is not refuses with an error that says what it needs, and the bytes saved are about
// the first segment's Schema message.
TEST_P(MapWriterCompactionTest, WhenReadersHaveTheSchemaNoSegmentHoldsIt) {
  MapWriterOptions options = Options(200);
  auto holding = Write(options);
  ASSERT_TRUE(holding.ok()) << holding.status().ToString();
  options.readers_have_schema = true;
  auto referring = Write(options);
  ASSERT_TRUE(referring.ok()) << referring.status().ToString();

  EXPECT_EQ(testing::CheckMapOutput(*referring, batches_, options.partitioning, schema_), 750);
  const std::string data = testing::ReadFileBytes(referring->data_path);
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  int compact = 0;
  for (size_t p = 0; p < referring->lengths.size(); ++p) {
    if (referring->lengths[p] == 0) continue;
    ASSERT_TRUE(DictionaryReferenceAt(bytes + referring->offsets[p], referring->lengths[p]))
        << "partition " << p << " holds its Schema message";
    compact += 1;
  }
  EXPECT_EQ(compact, 200);
  // The Schema message of these 2 x 24 columns, once compressed, is most of what is saved.
  const int64_t saved = holding->metrics.output_bytes - referring->metrics.output_bytes;
  EXPECT_GT(saved, 500) << "saved " << saved << " bytes";

  // A decoder that is neither given the schema nor has read a segment holding it refuses.
  SegmentDecoder decoder;
  Status begun = decoder.Begin(bytes, referring->lengths[0], nullptr, "partition 0", 0);
  ASSERT_FALSE(begun.ok());
  EXPECT_NE(begun.message().find("give the reader the schema"), std::string::npos)
      << begun.ToString();
}

// A compact segment ends where its frame does; when another segment follows, a skippable frame
// that starts the next one aligned is the earlier partition's (its length and checksum count
// it), and the data file's last segment has none.
TEST_P(MapWriterCompactionTest, OnlyASegmentThatIsFollowedIsPadded) {
  MapWriterOptions options = Options(1000);  // 750 rows round-robin: 250 partitions are empty
  auto output = Write(options);
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(testing::CheckMapOutput(*output, batches_, options.partitioning), 750);
  EXPECT_EQ(KindsOf(*output).compact, 750);  // every segment starts aligned
  const std::string data = testing::ReadFileBytes(output->data_path);
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  int padded = 0;
  int32_t last = -1;
  for (int32_t p = 0; p < 1000; ++p) {
    if (output->lengths[p] == 0) continue;
    auto extent = MeasureCompactSegment(bytes + output->offsets[p], output->lengths[p]);
    ASSERT_TRUE(extent.ok()) << extent.status().ToString();
    EXPECT_EQ(extent->size, output->lengths[p]);
    const int64_t frame_end = extent->frame_offset + extent->frame.compressed_size;
    padded += frame_end < output->lengths[p] ? 1 : 0;
    last = p;
  }
  EXPECT_GT(padded, 500) << "7 of 8 frames end unaligned";
  ASSERT_GE(last, 0);
  auto final_extent = MeasureCompactSegment(bytes + output->offsets[last], output->lengths[last]);
  ASSERT_TRUE(final_extent.ok());
  EXPECT_EQ(final_extent->frame_offset + final_extent->frame.compressed_size, output->lengths[last])
      << "the last segment is not padded";
  EXPECT_EQ(output->offsets[last] + output->lengths[last], static_cast<int64_t>(data.size()));
  for (int32_t p = last + 1; p <= 1000; ++p) {
    EXPECT_EQ(output->offsets[p], static_cast<int64_t>(data.size())) << "partition " << p;
  }
}

TEST(MapWriterCompactionOptionsTest, ANegativeLimitIsRefused) {
  testing::TemporaryDirectory directory;
  MapWriterOptions options;
  options.schema = testing::AllTypesSchema(0);
  options.partitioning.kind = PartitionKind::kRoundRobin;
  options.partitioning.partition_count = 3;
  options.data_path = directory.Join("out.data");
  options.compact_segment_bytes = -1;
  auto writer = MapWriter::Make(options);
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().message(),
            "MapWriter: compact_segment_bytes must be 0 or positive, got -1");
}

INSTANTIATE_TEST_SUITE_P(Codecs, MapWriterCompactionTest,
                         ::testing::Values(CompressionCodec::kLz4Frame, CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

}  // namespace
}  // namespace sluice
