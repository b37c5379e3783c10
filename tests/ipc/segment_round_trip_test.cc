// Round trips through SegmentEncoder and SegmentDecoder: every type, every codec, whole batches
// and rows gathered from several batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "support/encoded_segment.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

std::vector<RecordBatch> DecodeAll(const AlignedBuffer& bytes, SegmentDecoder* decoder) {
  std::vector<RecordBatch> batches;
  Status begun = decoder->Begin(bytes.data(), bytes.size(), nullptr, "test segment");
  EXPECT_TRUE(begun.ok()) << begun.ToString();
  while (true) {
    auto next = decoder->Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) break;
    batches.push_back(std::move(**next));
  }
  return batches;
}

// Builds the batch holding `rows` of `sources` in order, one row at a time: the obvious
// reference for the gather.
void ExpectRowsEqual(const std::vector<std::pair<const RecordBatch*, int64_t>>& expected_rows,
                     const RecordBatch& actual) {
  ASSERT_EQ(static_cast<int64_t>(expected_rows.size()), actual.num_rows());
  for (size_t row = 0; row < expected_rows.size(); ++row) {
    const auto& [batch, index] = expected_rows[row];
    for (size_t c = 0; c < actual.num_columns(); ++c) {
      std::string difference;
      ASSERT_TRUE(ArraysEqual(batch->column(c).Slice(index, 1),
                              actual.column(c).Slice(static_cast<int64_t>(row), 1), &difference))
          << "row " << row << " column " << c << difference;
    }
  }
}

class SegmentRoundTripTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(SegmentRoundTripTest, WholeBatchesOfEveryType) {
  auto schema = testing::AllTypesSchema(3);
  SegmentEncoderOptions options;
  options.codec = GetParam();
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  for (int64_t rows : {0, 1, 7, 64, 1000}) {
    std::vector<RecordBatch> batches = {testing::RandomBatch(schema, rows, rows + 11),
                                        testing::RandomBatch(schema, rows, rows + 12)};
    AlignedBuffer bytes;
    ASSERT_TRUE(encoder->AppendSegment(batches, &bytes).ok());
    SegmentDecoder decoder;
    std::vector<RecordBatch> decoded = DecodeAll(bytes, &decoder);
    ASSERT_EQ(decoded.size(), batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
      std::string difference;
      EXPECT_TRUE(BatchesEqual(batches[i], decoded[i], &difference))
          << rows << " rows: " << difference;
    }
  }
}

// One segment of `batches` of AllTypesSchema(3), every buffer through `codec` (no minimum size).
AlignedBuffer EncodeEveryBuffer(CompressionCodec codec, const std::vector<RecordBatch>& batches) {
  SegmentEncoderOptions options;
  options.codec = codec;
  options.min_compress_bytes = 0;
  auto encoder = SegmentEncoder::Make(batches.front().schema(), options).ValueOrDie();
  AlignedBuffer bytes;
  EXPECT_TRUE(encoder->AppendSegment(batches, &bytes).ok());
  return bytes;
}

// Blocks of very different sizes in one segment, decoded twice by one decoder that reuses its
// per-block state: every batch stays whole after the decoder moves on (each owns its arena).
TEST_P(SegmentRoundTripTest, BlocksOfChangingSizesInOneSegment) {
  auto schema = testing::AllTypesSchema(3);
  std::vector<RecordBatch> batches;
  for (int64_t rows : {5, 600, 1, 64, 300, 0, 1500, 3}) {
    batches.push_back(testing::RandomBatch(schema, rows, rows + 5));
  }
  const AlignedBuffer bytes = EncodeEveryBuffer(GetParam(), batches);
  // Twice through one decoder: the second pass starts from the state the last block left.
  SegmentDecoder decoder;
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<RecordBatch> decoded = DecodeAll(bytes, &decoder);
    ASSERT_EQ(decoded.size(), batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
      std::string difference;
      EXPECT_TRUE(BatchesEqual(batches[i], decoded[i], &difference))
          << "pass " << pass << " batch " << i << ": " << difference;
    }
  }
}

// A block's arena goes back to the decoder when its last batch is dropped, and a later block
// decompresses into it; an arena a batch still holds is never reused.
TEST_P(SegmentRoundTripTest, ADroppedBatchLendsItsArenaToALaterBlock) {
  if (GetParam() == CompressionCodec::kNone) GTEST_SKIP() << "uncompressed bodies are views";
  auto schema = testing::AllTypesSchema(3, /*with_dictionaries=*/false);
  // Blocks of one size: a larger block would grow its arena (see the next test).
  const std::vector<RecordBatch> batches(4, testing::RandomBatch(schema, 100, 1));
  const AlignedBuffer bytes = EncodeEveryBuffer(GetParam(), batches);
  SegmentDecoder decoder;
  ASSERT_TRUE(decoder.Begin(bytes.data(), bytes.size(), nullptr, "test segment").ok());
  std::vector<RecordBatch> held;
  for (size_t i = 0; i < batches.size(); ++i) {
    auto decoded = decoder.Next();
    ASSERT_TRUE(decoded.ok() && decoded->has_value()) << decoded.status().ToString();
    // Blocks 0 and 1 are held (two arenas), block 1 is then dropped, and blocks 2 and 3 each
    // reuse the arena the block before them returned.
    if (i < 2) held.push_back(std::move(**decoded));
    if (i == 1) held.pop_back();
    if (i >= 2) {
      std::string difference;
      EXPECT_TRUE(BatchesEqual(batches[i], **decoded, &difference)) << difference;
    }
  }
  EXPECT_EQ(decoder.metrics().arenas_made, 2);
  std::string difference;
  EXPECT_TRUE(BatchesEqual(batches[0], held[0], &difference)) << difference;
}

// Blocks larger than any before grow the arena they start in, midway, moving the buffers
// decompressed so far; views of buffers stored raw stay on the input. Every block is held to
// the end, so an arena reused too early or a view left behind shows.
TEST_P(SegmentRoundTripTest, ALargerBlockGrowsItsArena) {
  if (GetParam() == CompressionCodec::kNone) GTEST_SKIP() << "uncompressed bodies are views";
  auto schema = testing::AllTypesSchema(2);
  std::vector<RecordBatch> batches;
  int64_t seed = 0;
  for (int64_t rows : {10, 100, 60, 1000, 3000, 5, 2000}) {
    batches.push_back(testing::RandomBatch(schema, rows, ++seed));
  }
  // Small or incompressible buffers stored raw and the others compressed; all compressed.
  const AlignedBuffer mixed = testing::EncodedSegment(schema, batches, GetParam());
  const AlignedBuffer every = EncodeEveryBuffer(GetParam(), batches);
  for (const AlignedBuffer* bytes : {&mixed, &every}) {
    SegmentDecoder decoder;
    std::vector<RecordBatch> decoded = DecodeAll(*bytes, &decoder);
    ASSERT_EQ(decoded.size(), batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
      std::string difference;
      EXPECT_TRUE(BatchesEqual(batches[i], decoded[i], &difference)) << i << difference;
    }
  }
}

// A block that decodes past max_block_bytes, each of its buffers within the limit, is an error
// naming a byte, after a small block that did not.
TEST_P(SegmentRoundTripTest, BlockPastTheByteLimitIsAnError) {
  if (GetParam() == CompressionCodec::kNone) GTEST_SKIP() << "uncompressed bodies are views";
  auto schema = testing::AllTypesSchema(3);
  const AlignedBuffer bytes = EncodeEveryBuffer(
      GetParam(), {testing::RandomBatch(schema, 10, 1), testing::RandomBatch(schema, 4000, 2)});
  SegmentDecoderOptions limited;
  limited.max_block_bytes = 64 << 10;
  SegmentDecoder decoder(limited);
  ASSERT_TRUE(decoder.Begin(bytes.data(), bytes.size(), nullptr, "test segment").ok());
  auto first = decoder.Next();
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
  auto second = decoder.Next();
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsCorrupt()) << second.status().ToString();
  EXPECT_NE(second.status().message().find("test segment: byte "), std::string::npos)
      << second.status().ToString();
  EXPECT_NE(second.status().message().find("the block decodes to more than 65536 bytes"),
            std::string::npos)
      << second.status().ToString();
}

TEST_P(SegmentRoundTripTest, TinyBuffersCompressedWhenAsked) {
  // By default buffers under 256 bytes are stored raw; with no minimum every buffer goes through
  // the codec, so small blocks exercise both forms.
  auto schema = testing::AllTypesSchema(2);
  SegmentEncoderOptions options;
  options.codec = GetParam();
  options.min_compress_bytes = 0;
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  for (int64_t rows : {1, 5, 40}) {
    RecordBatch batch = testing::RandomBatch(schema, rows, rows);
    AlignedBuffer bytes;
    ASSERT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&batch, 1), &bytes).ok());
    SegmentDecoder decoder;
    auto decoded = DecodeAll(bytes, &decoder);
    ASSERT_EQ(decoded.size(), 1u);
    std::string difference;
    EXPECT_TRUE(BatchesEqual(batch, decoded[0], &difference)) << difference;
  }
}

TEST_P(SegmentRoundTripTest, SlicedBatches) {
  auto schema = testing::AllTypesSchema(2);
  SegmentEncoderOptions options;
  options.codec = GetParam();
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  RecordBatch whole = testing::RandomBatch(schema, 300, 5);
  for (auto [start, count] :
       std::vector<std::pair<int64_t, int64_t>>{{3, 100}, {64, 64}, {299, 1}}) {
    RecordBatch slice = whole.Slice(start, count);
    AlignedBuffer bytes;
    ASSERT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&slice, 1), &bytes).ok());
    SegmentDecoder decoder;
    auto decoded = DecodeAll(bytes, &decoder);
    ASSERT_EQ(decoded.size(), 1u);
    std::string difference;
    EXPECT_TRUE(BatchesEqual(slice, decoded[0], &difference)) << difference;
  }
}

TEST_P(SegmentRoundTripTest, GathersRowsFromSeveralBatches) {
  auto schema = testing::AllTypesSchema(3, /*with_dictionaries=*/false);
  SegmentEncoderOptions options;
  options.codec = GetParam();
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  std::vector<RecordBatch> inputs;
  for (int i = 0; i < 4; ++i) inputs.push_back(testing::RandomBatch(schema, 200, 100 + i));
  // The third input is a slice, so offsets differ between sources.
  inputs[2] = inputs[2].Slice(17, 150);
  std::vector<const RecordBatch*> bound;
  for (const auto& input : inputs) bound.push_back(&input);
  encoder->BindBatches(bound);
  // Rows in any order, from any source, repeats allowed: the gather takes them as given.
  std::mt19937_64 rng(9);
  std::vector<uint32_t> sources;
  std::vector<uint32_t> rows;
  std::vector<std::pair<const RecordBatch*, int64_t>> expected;
  for (int i = 0; i < 500; ++i) {
    const auto source = static_cast<uint32_t>(rng() % inputs.size());
    const auto row = static_cast<uint32_t>(rng() % inputs[source].num_rows());
    sources.push_back(source);
    rows.push_back(row);
    expected.emplace_back(&inputs[source], row);
  }
  AlignedBuffer bytes;
  const auto schema_message = encoder->schema_message();
  bytes.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  // The first block may read the second's rows ahead (it only asks for their memory).
  ASSERT_TRUE(encoder->AppendRows(sources.data(), rows.data(), 250, &bytes, 250).ok());
  ASSERT_TRUE(encoder->AppendRows(sources.data() + 250, rows.data() + 250, 250, &bytes).ok());
  ASSERT_TRUE(encoder->AppendRows(sources.data(), rows.data(), 0, &bytes).ok());
  bytes.Append("\xff\xff\xff\xff\0\0\0\0", 8);
  SegmentDecoder decoder;
  auto decoded = DecodeAll(bytes, &decoder);
  ASSERT_EQ(decoded.size(), 3u);
  EXPECT_EQ(decoded[2].num_rows(), 0);
  std::vector<std::pair<const RecordBatch*, int64_t>> first(expected.begin(),
                                                            expected.begin() + 250);
  std::vector<std::pair<const RecordBatch*, int64_t>> second(expected.begin() + 250,
                                                             expected.end());
  ExpectRowsEqual(first, decoded[0]);
  ExpectRowsEqual(second, decoded[1]);

  // Short blocks that look ahead into the rows of the blocks after them encode to the same
  // bytes as blocks that do not.
  AlignedBuffer looking_ahead;
  AlignedBuffer not_looking;
  for (int64_t from = 0; from < 500; from += 7) {
    const int64_t count = std::min<int64_t>(7, 500 - from);
    ASSERT_TRUE(encoder
                    ->AppendRows(sources.data() + from, rows.data() + from, count, &looking_ahead,
                                 500 - from - count)
                    .ok());
    ASSERT_TRUE(
        encoder->AppendRows(sources.data() + from, rows.data() + from, count, &not_looking).ok());
  }
  ASSERT_EQ(looking_ahead.size(), not_looking.size());
  EXPECT_EQ(std::memcmp(looking_ahead.data(), not_looking.data(),
                        static_cast<size_t>(not_looking.size())),
            0);
}

// The writer's sort hands the gather each partition's rows grouped by source batch, in input
// order: stretches of one source, long at low partition counts and a row or two at high ones.
// The gather reads long stretches with the source's tables at hand and short ones entry by
// entry; both give the rows asked for, whatever the stretch lengths around the look-ahead
// distance.
TEST_P(SegmentRoundTripTest, GathersRowsGroupedBySource) {
  auto schema = testing::AllTypesSchema(3, /*with_dictionaries=*/false);
  SegmentEncoderOptions options;
  options.codec = GetParam();
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  std::vector<RecordBatch> inputs;
  for (int i = 0; i < 5; ++i) inputs.push_back(testing::RandomBatch(schema, 300, 200 + i));
  inputs[3] = inputs[3].Slice(11, 250);
  std::vector<const RecordBatch*> bound;
  for (const auto& input : inputs) bound.push_back(&input);
  encoder->BindBatches(bound);
  std::mt19937_64 rng(21);
  std::vector<uint32_t> sources;
  std::vector<uint32_t> rows;
  std::vector<std::pair<const RecordBatch*, int64_t>> expected;
  std::vector<int64_t> block_ends;
  // Blocks whose stretches are all long, all short, and mixed.
  const std::vector<std::vector<int64_t>> blocks = {
      {100, 40, 17, 16, 15, 9, 8}, {1, 2, 1, 3, 1, 1, 2, 1}, {64, 1, 1, 7, 33, 2, 90}, {24}};
  for (const auto& stretches : blocks) {
    for (const int64_t length : stretches) {
      const auto source = static_cast<uint32_t>(rng() % inputs.size());
      const auto available = static_cast<uint64_t>(inputs[source].num_rows());
      uint64_t row = rng() % available;
      for (int64_t k = 0; k < length; ++k) {
        row = (row + 1 + rng() % 3) % available;
        sources.push_back(source);
        rows.push_back(static_cast<uint32_t>(row));
        expected.emplace_back(&inputs[source], static_cast<int64_t>(row));
      }
    }
    block_ends.push_back(static_cast<int64_t>(rows.size()));
  }
  AlignedBuffer bytes;
  const auto schema_message = encoder->schema_message();
  bytes.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  int64_t from = 0;
  for (const int64_t end : block_ends) {
    // Each block may read the rows of the blocks after it ahead.
    const int64_t total = static_cast<int64_t>(rows.size());
    ASSERT_TRUE(
        encoder
            ->AppendRows(sources.data() + from, rows.data() + from, end - from, &bytes, total - end)
            .ok());
    from = end;
  }
  bytes.Append("\xff\xff\xff\xff\0\0\0\0", 8);
  SegmentDecoder decoder;
  auto decoded = DecodeAll(bytes, &decoder);
  ASSERT_EQ(decoded.size(), block_ends.size());
  from = 0;
  for (size_t b = 0; b < block_ends.size(); ++b) {
    std::vector<std::pair<const RecordBatch*, int64_t>> block(expected.begin() + from,
                                                              expected.begin() + block_ends[b]);
    ExpectRowsEqual(block, decoded[b]);
    from = block_ends[b];
  }
}

// A segment's schema message carries the metadata of every field, nested ones and extension
// types included, and the decoded batches have it.
TEST_P(SegmentRoundTripTest, KeepsFieldMetadata) {
  const SchemaPtr schema = testing::SchemaWithFieldMetadata();
  SegmentEncoderOptions options;
  options.codec = GetParam();
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  RecordBatch batch = testing::RandomBatch(schema, 30, 7);
  AlignedBuffer bytes;
  ASSERT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&batch, 1), &bytes).ok());
  SegmentDecoder decoder;
  auto decoded = DecodeAll(bytes, &decoder);
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_TRUE(decoded[0].schema()->Equals(*schema, /*check_metadata=*/true))
      << decoded[0].schema()->ToString();
  EXPECT_TRUE(BatchesEqual(batch, decoded[0]));
}

TEST_P(SegmentRoundTripTest, DecoderParsesARepeatedSchemaOnce) {
  auto schema = testing::AllTypesSchema(1);
  SegmentEncoderOptions options;
  options.codec = GetParam();
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  SegmentDecoder decoder;
  for (int segment = 0; segment < 5; ++segment) {
    RecordBatch batch = testing::RandomBatch(schema, 20, segment);
    AlignedBuffer bytes;
    ASSERT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&batch, 1), &bytes).ok());
    auto decoded = DecodeAll(bytes, &decoder);
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_TRUE(BatchesEqual(batch, decoded[0]));
  }
  EXPECT_EQ(decoder.metrics().schemas_parsed, 1);
  EXPECT_EQ(decoder.metrics().schemas_cached, 4);
}

// A consumer done with a batch hands its vectors back, and the decoder builds a later batch in
// them instead of allocating new ones: the flat path overwrites the columns it finds there, and
// the general path rebuilds them. Storage lent by a batch of nested columns, whose elements
// have children, and by a batch of flat columns, each serves a flat and a nested schema.
TEST_P(SegmentRoundTripTest, DecoderBuildsABatchInRecycledStorage) {
  std::vector<Field> leaf_fields;
  for (const TypePtr& type : testing::AllLeafTypes()) {
    leaf_fields.push_back(MakeField("c" + std::to_string(leaf_fields.size()), type));
  }
  const SchemaPtr flat = std::make_shared<Schema>(std::move(leaf_fields));
  // Nested columns first, where a flat schema's columns will be built.
  std::vector<Field> nested_fields =
      testing::AllTypesSchema(2, /*with_dictionaries=*/false)->fields();
  std::reverse(nested_fields.begin(), nested_fields.end());
  const SchemaPtr nested = std::make_shared<Schema>(std::move(nested_fields));
  for (const SchemaPtr& lender_schema : {flat, nested}) {
    for (const SchemaPtr& schema : {flat, nested}) {
      SCOPED_TRACE(std::string(lender_schema == flat ? "flat" : "nested") + " lends to " +
                   (schema == flat ? "flat" : "nested"));
      SegmentDecoder lender_decoder;
      const RecordBatch lender_input = testing::RandomBatch(lender_schema, 30, 7);
      // Kept while the lent batch is read: an uncompressed batch views these bytes.
      const AlignedBuffer lender_bytes =
          testing::EncodedSegment(lender_schema, {lender_input}, GetParam());
      std::vector<RecordBatch> lent = DecodeAll(lender_bytes, &lender_decoder);
      ASSERT_EQ(lent.size(), 1u);
      ASSERT_TRUE(BatchesEqual(lender_input, lent[0]));

      RecordBatch::Storage storage = RecordBatch::TakeStorage(std::move(lent[0]));
      EXPECT_EQ(lent[0].num_columns(), 0u);
      EXPECT_EQ(lent[0].num_rows(), 0);
      EXPECT_TRUE(lent[0].owners().empty());
      EXPECT_EQ(storage.columns.size(), lender_schema->num_fields());  // kept, to overwrite
      EXPECT_TRUE(storage.owners.empty());
      storage.columns.reserve(1000);  // recognisable
      storage.owners.reserve(100);
      const ArrayData* recycled_columns = storage.columns.data();
      const MemoryOwner* recycled_owners = storage.owners.data();

      const std::vector<RecordBatch> inputs = {testing::RandomBatch(schema, 30, 1),
                                               testing::RandomBatch(schema, 30, 2)};
      const AlignedBuffer bytes = testing::EncodedSegment(schema, inputs, GetParam());
      SegmentDecoder decoder;
      ASSERT_TRUE(decoder.Begin(bytes.data(), bytes.size(), nullptr, "recycled").ok());
      auto first = decoder.Next();
      ASSERT_TRUE(first.ok() && first->has_value());
      EXPECT_TRUE(BatchesEqual(inputs[0], **first));
      decoder.RecycleStorage(std::move(storage));
      auto second = decoder.Next();
      ASSERT_TRUE(second.ok() && second->has_value());
      EXPECT_EQ((*second)->columns().data(), recycled_columns);
      EXPECT_EQ((*second)->columns().capacity(), 1000u);
      EXPECT_EQ((*second)->owners().data(), recycled_owners);
      EXPECT_EQ((*second)->owners().capacity(), 100u);
      EXPECT_TRUE(BatchesEqual(inputs[1], **second));
      // Nothing is left of what the lent columns held: no children and no buffer past the
      // type's own (a binary column's data buffer where a fixed-width column is built).
      for (size_t c = 0; c < (*second)->num_columns(); ++c) {
        const ArrayData& column = (*second)->column(c);
        if (column.type->children().empty()) {
          EXPECT_TRUE(column.children.empty()) << "column " << c;
        }
        for (int b = BufferCount(column.type->id()); b < 3; ++b) {
          EXPECT_EQ(column.buffers[b].data, nullptr) << "column " << c << ", buffer " << b;
          EXPECT_EQ(column.buffers[b].size, 0) << "column " << c << ", buffer " << b;
        }
      }
    }
  }
}

TEST_P(SegmentRoundTripTest, RandomNestedSchemas) {
  std::mt19937_64 rng(77);
  for (int round = 0; round < 20; ++round) {
    auto schema = testing::RandomSchema(rng, 4, 3);
    SegmentEncoderOptions options;
    options.codec = GetParam();
    auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
    RecordBatch batch = testing::RandomBatch(schema, 40, round);
    AlignedBuffer bytes;
    ASSERT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&batch, 1), &bytes).ok());
    SegmentDecoder decoder;
    auto decoded = DecodeAll(bytes, &decoder);
    ASSERT_EQ(decoded.size(), 1u);
    std::string difference;
    EXPECT_TRUE(BatchesEqual(batch, decoded[0], &difference)) << schema->ToString() << difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, SegmentRoundTripTest,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

TEST(SegmentEncoderTest, IncompressibleBuffersAreStoredRaw) {
  // Non-null, so the only buffer is the random values.
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{MakeField("b", DataType::FixedSizeBinary(16), false)});
  SegmentEncoderOptions options;
  options.codec = CompressionCodec::kLz4Frame;
  auto encoder = SegmentEncoder::Make(schema, options).ValueOrDie();
  RecordBatch batch = testing::RandomBatch(schema, 100, 3);
  AlignedBuffer bytes;
  ASSERT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&batch, 1), &bytes).ok());
  SegmentDecoder decoder;
  auto decoded = DecodeAll(bytes, &decoder);
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_TRUE(BatchesEqual(batch, decoded[0]));
  // Random bytes do not shrink, so nothing was decompressed.
  EXPECT_EQ(decoder.metrics().decompressed_bytes, 0);
}

TEST(SegmentEncoderTest, BlocksAreEightByteAligned) {
  auto schema = testing::AllTypesSchema(2);
  auto encoder = SegmentEncoder::Make(schema).ValueOrDie();
  AlignedBuffer bytes;
  const auto schema_message = encoder->schema_message();
  EXPECT_EQ(schema_message.size() % 8, 0u);
  for (int64_t rows : {1, 3, 5, 13}) {
    RecordBatch batch = testing::RandomBatch(schema, rows, rows);
    ASSERT_TRUE(encoder->AppendRecordBatch(batch, &bytes).ok());
    EXPECT_EQ(bytes.size() % 8, 0);
  }
}

}  // namespace
}  // namespace sluice
