// VerifiedLayout: a RecordBatch message skips the flatbuffers verifier only when the verifier
// would have accepted it. Checked exhaustively: every byte of a block's metadata changed, one at
// a time, against the verifier itself and against a decoder that has learned no layout.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "arrow_message_generated.h"
#include "ipc/verified_layout_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/format/array_compare.h"
#include "sluice/ipc/segment_decoder.h"
#include "support/encoded_segment.h"
#include "support/random_batch.h"

namespace sluice::ipc {
namespace {

using Bytes = std::vector<uint8_t>;

// The byte XOR patterns each position is changed by: one low bit, one high bit, all bits.
constexpr uint8_t kChanges[] = {0x01, 0x80, 0xFF};

// One encoded message: where its metadata lies and where it ends (body included).
struct MessageSpan {
  size_t start = 0;
  size_t metadata = 0;
  size_t metadata_size = 0;
  size_t end = 0;
};

std::vector<MessageSpan> SplitMessages(const Bytes& segment) {
  std::vector<MessageSpan> spans;
  size_t position = 0;
  while (position + 8 <= segment.size()) {
    const auto size = bits::LoadUnaligned<int32_t>(segment.data() + position + 4);
    if (size == 0) break;  // end of stream
    const fb::Message* message = fb::GetMessage(segment.data() + position + 8);
    MessageSpan span{position, position + 8, static_cast<size_t>(size), 0};
    span.end = span.metadata + span.metadata_size + static_cast<size_t>(message->body_length());
    spans.push_back(span);
    position = span.end;
  }
  return spans;
}

// A segment of a schema and one block for each batch, encoded with `codec`.
Bytes Encode(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
             CompressionCodec codec) {
  const AlignedBuffer bytes = testing::EncodedSegment(schema, batches, codec);
  return Bytes(bytes.data(), bytes.data() + bytes.size());
}

Bytes MetadataOf(const Bytes& segment, const MessageSpan& span) {
  return Bytes(segment.begin() + static_cast<std::ptrdiff_t>(span.metadata),
               segment.begin() + static_cast<std::ptrdiff_t>(span.metadata + span.metadata_size));
}

// `bytes` at an 8-byte aligned address, as the decoder reads metadata.
AlignedBuffer Aligned(const Bytes& bytes) {
  AlignedBuffer copy;
  copy.Append(bytes.data(), static_cast<int64_t>(bytes.size()));
  return copy;
}

// Whether the verifier accepts `metadata`, read at an aligned address as the decoder reads it.
bool Verifies(const Bytes& metadata) {
  const AlignedBuffer copy = Aligned(metadata);
  flatbuffers::Verifier verifier(copy.data(), metadata.size(), 128, 1u << 20);
  return fb::VerifyMessageBuffer(verifier);
}

// Learns the layout of `metadata`, which the verifier must accept.
VerifiedLayout LearnedFrom(const Bytes& metadata) {
  EXPECT_TRUE(Verifies(metadata));
  const AlignedBuffer copy = Aligned(metadata);
  VerifiedLayout layout;
  layout.Learn(copy.data(), metadata.size(), *fb::GetMessage(copy.data()));
  return layout;
}

bool Matches(const VerifiedLayout& layout, const Bytes& metadata) {
  const AlignedBuffer copy = Aligned(metadata);
  return layout.Matches(copy.data(), metadata.size());
}

TEST(RangesOutsideTest, ComparesEverythingButTheValues) {
  const auto outside = RangesOutside({{0, 4}, {16, 30}}, {{30, 40}, {8, 16}, {5, 5}}, 48);
  ASSERT_TRUE(outside.has_value());
  EXPECT_EQ(*outside, (std::vector<ByteRange>{{0, 8}, {16, 30}, {40, 48}}));
  EXPECT_EQ(*RangesOutside({}, {}, 8), (std::vector<ByteRange>{{0, 8}}));
  EXPECT_EQ(*RangesOutside({}, {{0, 8}}, 8), (std::vector<ByteRange>{}));
}

TEST(RangesOutsideTest, RefusesValuesThatOverlapStructureOrEachOther) {
  EXPECT_FALSE(RangesOutside({{0, 4}, {10, 20}}, {{19, 30}}, 40).has_value());
  EXPECT_FALSE(RangesOutside({{10, 20}}, {{0, 11}}, 40).has_value());
  EXPECT_FALSE(RangesOutside({{10, 20}}, {{12, 14}}, 40).has_value());
  EXPECT_FALSE(RangesOutside({}, {{0, 8}, {4, 12}}, 40).has_value());
  EXPECT_FALSE(RangesOutside({}, {{36, 44}}, 40).has_value());
  EXPECT_FALSE(RangesOutside({}, {{8, 4}}, 40).has_value());
  // Touching is not overlapping.
  EXPECT_TRUE(RangesOutside({{0, 8}}, {{8, 16}, {16, 24}}, 40).has_value());
}

class VerifiedLayoutTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(VerifiedLayoutTest, AMatchIsAlwaysAMessageTheVerifierAccepts) {
  for (const SchemaPtr& schema :
       {testing::MixedSchema(), testing::AllTypesSchema(2, /*with_dictionaries=*/false)}) {
    const Bytes segment =
        Encode(schema, {testing::RandomBatch(schema, 5, 1), testing::RandomBatch(schema, 9, 2)},
               GetParam());
    const std::vector<MessageSpan> spans = SplitMessages(segment);
    ASSERT_EQ(spans.size(), 3u);  // schema, two blocks
    const VerifiedLayout layout = LearnedFrom(MetadataOf(segment, spans[1]));
    const Bytes second = MetadataOf(segment, spans[2]);
    // The next block has other lengths, null counts and buffer sizes, and the same layout.
    ASSERT_TRUE(Matches(layout, second));

    int64_t matched = 0;
    int64_t unmatched = 0;
    for (size_t byte = 0; byte < second.size(); ++byte) {
      for (const uint8_t change : kChanges) {
        Bytes changed = second;
        changed[byte] ^= change;
        if (Matches(layout, changed)) {
          ++matched;
          ASSERT_TRUE(Verifies(changed)) << "byte " << byte << " ^ " << int{change}
                                         << " matched a layout the verifier rejects";
        } else {
          ++unmatched;
        }
      }
    }
    // Both sides were exercised: values (lengths, nodes, buffers) and structure.
    EXPECT_GT(matched, 0);
    EXPECT_GT(unmatched, 0);
  }
}

TEST_P(VerifiedLayoutTest, AnotherSizeOrNoLayoutDoesNotMatch) {
  const SchemaPtr schema = testing::MixedSchema();
  const Bytes segment = Encode(schema, {testing::RandomBatch(schema, 5, 1)}, GetParam());
  const std::vector<MessageSpan> spans = SplitMessages(segment);
  const Bytes block = MetadataOf(segment, spans[1]);
  EXPECT_FALSE(Matches(VerifiedLayout{}, block));
  Bytes longer = block;
  longer.resize(block.size() + 8);
  EXPECT_FALSE(Matches(LearnedFrom(block), longer));
  // A Schema message is not learned: a layout learned before stays.
  VerifiedLayout layout = LearnedFrom(block);
  const Bytes schema_message = MetadataOf(segment, spans[0]);
  const AlignedBuffer copy = Aligned(schema_message);
  layout.Learn(copy.data(), schema_message.size(), *fb::GetMessage(copy.data()));
  EXPECT_FALSE(Matches(layout, schema_message));
  EXPECT_TRUE(Matches(layout, block));
}

TEST_P(VerifiedLayoutTest, AMessageWhoseVectorsShareBytesIsNeverLearned) {
  // The nodes offset rewritten to point at the buffers vector: the verifier accepts the message
  // (flatbuffers may share), but its values overlap, so the layout must not be learned.
  const SchemaPtr schema = testing::MixedSchema();
  const Bytes segment = Encode(schema, {testing::RandomBatch(schema, 5, 1)}, GetParam());
  Bytes block = MetadataOf(segment, SplitMessages(segment)[1]);
  const AlignedBuffer copy = Aligned(block);
  const fb::RecordBatch* batch = fb::GetMessage(copy.data())->header_as_RecordBatch();
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(batch);
  const size_t nodes_slot =
      static_cast<size_t>(reinterpret_cast<const uint8_t*>(table) - copy.data()) +
      table->GetOptionalFieldOffset(fb::RecordBatch::VT_NODES);
  const size_t buffers_vector =
      static_cast<size_t>(reinterpret_cast<const uint8_t*>(batch->buffers()) - copy.data());
  const auto relative = static_cast<uint32_t>(buffers_vector - nodes_slot);
  std::memcpy(block.data() + nodes_slot, &relative, sizeof(relative));
  ASSERT_TRUE(Verifies(block));

  const AlignedBuffer shared = Aligned(block);
  VerifiedLayout layout;
  layout.Learn(shared.data(), block.size(), *fb::GetMessage(shared.data()));
  EXPECT_FALSE(layout.Matches(shared.data(), block.size()));
}

// A segment of the messages `spans` of `segment`, in order, the last one's metadata replaced by
// `last_metadata`, and the end-of-stream marker.
Bytes Splice(const Bytes& segment, const std::vector<MessageSpan>& spans,
             const Bytes& last_metadata) {
  Bytes out;
  for (size_t i = 0; i < spans.size(); ++i) {
    const MessageSpan& span = spans[i];
    const size_t from = out.size();
    out.insert(out.end(), segment.begin() + static_cast<std::ptrdiff_t>(span.start),
               segment.begin() + static_cast<std::ptrdiff_t>(span.end));
    if (i + 1 == spans.size()) {
      std::memcpy(out.data() + from + (span.metadata - span.start), last_metadata.data(),
                  last_metadata.size());
    }
  }
  const uint32_t end_of_stream[] = {0xFFFFFFFFu, 0};
  const auto* eos = reinterpret_cast<const uint8_t*>(end_of_stream);
  out.insert(out.end(), eos, eos + sizeof(end_of_stream));
  return out;
}

// Decodes `segment`; returns its last batch, or its first error.
Result<RecordBatch> LastBatch(const Bytes& segment, SegmentDecoderMetrics* metrics) {
  auto copy = std::make_shared<AlignedBuffer>();
  copy->Append(segment.data(), static_cast<int64_t>(segment.size()));
  SegmentDecoder decoder;
  SLUICE_RETURN_NOT_OK(decoder.Begin(copy->data(), copy->size(), copy, "segment"));
  std::optional<RecordBatch> last;
  while (true) {
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> next, decoder.Next());
    if (!next.has_value()) break;
    last = std::move(next);
  }
  *metrics = decoder.metrics();
  if (!last.has_value()) return Status::Invalid("no batch");
  return std::move(*last);  // it keeps `copy` alive
}

TEST_P(VerifiedLayoutTest, ADecoderThatLearnedALayoutDecodesAsOneThatDidNot) {
  const SchemaPtr schema = testing::MixedSchema();
  const Bytes segment = Encode(
      schema, {testing::RandomBatch(schema, 5, 1), testing::RandomBatch(schema, 9, 2)}, GetParam());
  const std::vector<MessageSpan> spans = SplitMessages(segment);
  const Bytes second = MetadataOf(segment, spans[2]);
  int64_t skipped_verifier = 0;
  for (size_t byte = 0; byte < second.size(); ++byte) {
    for (const uint8_t change : kChanges) {
      Bytes changed = second;
      changed[byte] ^= change;
      SegmentDecoderMetrics learned_metrics;
      SegmentDecoderMetrics fresh_metrics;
      // After the first block (layout learned), and straight after the schema (none learned).
      Result<RecordBatch> learned =
          LastBatch(Splice(segment, {spans[0], spans[1], spans[2]}, changed), &learned_metrics);
      Result<RecordBatch> fresh =
          LastBatch(Splice(segment, {spans[0], spans[2]}, changed), &fresh_metrics);
      ASSERT_EQ(learned.ok(), fresh.ok())
          << "byte " << byte << " ^ " << int{change} << ": "
          << (learned.ok() ? fresh.status() : learned.status()).ToString();
      if (learned.ok()) {
        std::string difference;
        ASSERT_TRUE(BatchesEqual(*learned, *fresh, &difference)) << "byte " << byte << difference;
        skipped_verifier += learned_metrics.messages_verified == 2 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(skipped_verifier, 0);
}

TEST_P(VerifiedLayoutTest, AStreamVerifiesItsSchemaAndFirstBlockOnly) {
  const SchemaPtr schema = testing::MixedSchema();
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 32; ++i) batches.push_back(testing::RandomBatch(schema, 1 + i, i));
  const Bytes segment = Encode(schema, batches, GetParam());
  SegmentDecoderMetrics metrics;
  ASSERT_TRUE(LastBatch(segment, &metrics).ok());
  EXPECT_EQ(metrics.blocks, 32);
  EXPECT_EQ(metrics.messages_verified, 2);
}

INSTANTIATE_TEST_SUITE_P(Codecs, VerifiedLayoutTest,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

}  // namespace
}  // namespace sluice::ipc
