#include "sluice/ipc/compact_segment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sluice/format/array_compare.h"
#include "sluice/ipc/compact_segment_encoder.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_layout.h"
#include "support/codec_cases.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

class CompactSegmentTest : public ::testing::TestWithParam<testing::CodecCase> {
 protected:
  void SetUp() override {
    schema_ = testing::AllTypesSchema(2);
    SegmentEncoderOptions options;
    options.codec = GetParam().codec;
    options.compression_level = GetParam().level;
    encoder_ = CompactSegmentEncoder::Make(schema_, options).ValueOrDie();
  }

  // The plain RecordBatch messages of `batches`, as a writer's spills hold them.
  std::vector<std::vector<uint8_t>> PlainMessages(const std::vector<RecordBatch>& batches) {
    std::vector<std::vector<uint8_t>> messages;
    for (const RecordBatch& batch : batches) {
      AlignedBuffer out;
      Status appended = encoder_->plain_encoder()->AppendRecordBatch(batch, &out);
      EXPECT_TRUE(appended.ok()) << appended.ToString();
      messages.emplace_back(out.data(), out.data() + out.size());
    }
    return messages;
  }

  AlignedBuffer CompactSegmentOf(const std::vector<RecordBatch>& batches,
                                 CompactSegmentSchema form = CompactSegmentSchema::kInside) {
    const auto messages = PlainMessages(batches);
    std::vector<std::span<const uint8_t>> spans(messages.begin(), messages.end());
    AlignedBuffer out;
    Status appended = encoder_->AppendSegment(spans, form, &out);
    EXPECT_TRUE(appended.ok()) << appended.ToString();
    return out;
  }

  // Checks that `batch` holds the rows of `inputs`, in order.
  void ExpectRowsOf(const RecordBatch& batch, const std::vector<RecordBatch>& inputs) {
    int64_t row = 0;
    for (const RecordBatch& input : inputs) {
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        std::string difference;
        EXPECT_TRUE(
            ArraysEqual(input.column(c), batch.column(c).Slice(row, input.num_rows()), &difference))
            << "column " << c << difference;
      }
      row += input.num_rows();
    }
    EXPECT_EQ(batch.num_rows(), row);
  }

  // Checks that `segment` is one frame around one batch holding the rows of `pieces`.
  void ExpectOneFrameAround(const AlignedBuffer& segment, const std::vector<RecordBatch>& pieces);

  SchemaPtr schema_;
  std::unique_ptr<CompactSegmentEncoder> encoder_;
};

TEST_P(CompactSegmentTest, PiecesBecomeOneFrameAroundOneBatch) {
  std::vector<RecordBatch> pieces;
  for (int64_t rows : {3, 0, 17, 1}) pieces.push_back(testing::RandomBatch(schema_, rows, rows));
  // As the data file's last segment, and followed by the padding that starts the next one
  // aligned: both are the segment's bytes.
  for (const bool padded : {false, true}) {
    SCOPED_TRACE(padded ? "padded" : "last");
    AlignedBuffer segment = CompactSegmentOf(pieces);
    if (padded) {
      AppendAlignmentFrame(segment.size(), &segment);
      EXPECT_EQ(segment.size() % 8, 0) << "the next segment must start aligned";
    }
    ExpectOneFrameAround(segment, pieces);
  }
}

void CompactSegmentTest::ExpectOneFrameAround(const AlignedBuffer& segment,
                                              const std::vector<RecordBatch>& pieces) {
  EXPECT_EQ(FrameCodecAt(segment.data(), segment.size()), GetParam().codec);
  auto extent = MeasureCompactSegment(segment.data(), segment.size());
  ASSERT_TRUE(extent.ok()) << extent.status().ToString();
  EXPECT_EQ(extent->size, segment.size());

  SegmentDecoder decoder;
  ASSERT_TRUE(decoder.Begin(segment.data(), segment.size(), nullptr, "segment").ok());
  auto batch = decoder.Next();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_TRUE(batch->has_value());
  EXPECT_TRUE(decoder.schema()->Equals(*schema_));
  ExpectRowsOf(**batch, pieces);
  auto end = decoder.Next();
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  EXPECT_FALSE(end->has_value());
  EXPECT_EQ(decoder.position(), segment.size());

  auto layout = ReadSegmentLayout(segment.data(), segment.size(), "segment");
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->compact_codec, GetParam().codec);
  EXPECT_EQ(layout->rows, 21);
  EXPECT_EQ(layout->blocks.size(), 1u);
  EXPECT_EQ(layout->end, segment.size());
  EXPECT_EQ(layout->CodecNames(), std::string(CompressionCodecName(GetParam().codec)) + " compact");
}

TEST_P(CompactSegmentTest, BackToBackWithStreamsEachEndsWhereItsBytesDo) {
  const std::vector<RecordBatch> first = {testing::RandomBatch(schema_, 5, 1)};
  const std::vector<RecordBatch> second = {testing::RandomBatch(schema_, 9, 2),
                                           testing::RandomBatch(schema_, 2, 3)};
  AlignedBuffer block = CompactSegmentOf(first);
  AlignedBuffer stream;  // an ordinary IPC stream between two compact segments
  SegmentEncoder* plain = encoder_->plain_encoder();
  const RecordBatch middle = testing::RandomBatch(schema_, 4, 4);
  ASSERT_TRUE(plain->AppendSegment({&middle, 1}, &stream).ok());
  block.Append(stream.data(), stream.size());
  AlignedBuffer last = CompactSegmentOf(second);
  block.Append(last.data(), last.size());

  SegmentDecoderOptions options;
  options.allow_trailing_bytes = true;
  SegmentDecoder decoder(options);
  int64_t position = 0;
  for (const std::vector<RecordBatch>& expected :
       {first, std::vector<RecordBatch>{middle}, second}) {
    ASSERT_TRUE(
        decoder.Begin(block.data() + position, block.size() - position, nullptr, "block", position)
            .ok());
    auto batch = decoder.Next();
    ASSERT_TRUE(batch.ok() && batch->has_value()) << batch.status().ToString();
    ExpectRowsOf(**batch, expected);
    auto end = decoder.Next();
    ASSERT_TRUE(end.ok() && !end->has_value()) << end.status().ToString();
    position += decoder.position();
  }
  EXPECT_EQ(position, block.size());
}

TEST_P(CompactSegmentTest, PiecesCanBeCompressedAsBlocksInstead) {
  const std::vector<RecordBatch> pieces = {testing::RandomBatch(schema_, 6, 7),
                                           testing::RandomBatch(schema_, 11, 8)};
  const auto messages = PlainMessages(pieces);
  std::vector<std::span<const uint8_t>> spans(messages.begin(), messages.end());
  AlignedBuffer stream;
  const auto schema_message = encoder_->plain_encoder()->schema_message();
  stream.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  ASSERT_TRUE(encoder_->AppendCompressed(spans, &stream).ok());
  stream.Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
  auto layout = ReadSegmentLayout(stream.data(), stream.size(), "stream");
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->compact_codec, CompressionCodec::kNone);
  ASSERT_EQ(layout->blocks.size(), 2u);
  EXPECT_EQ(layout->blocks[0].codec, GetParam().codec);
  SegmentDecoder decoder;
  ASSERT_TRUE(decoder.Begin(stream.data(), stream.size(), nullptr, "stream").ok());
  for (const RecordBatch& piece : pieces) {
    auto batch = decoder.Next();
    ASSERT_TRUE(batch.ok() && batch->has_value()) << batch.status().ToString();
    ExpectRowsOf(**batch, {piece});
  }
}

TEST_P(CompactSegmentTest, DamageIsCorruptNamingTheSourceAndByte) {
  AlignedBuffer segment = CompactSegmentOf({testing::RandomBatch(schema_, 30, 5)});
  auto decode = [](const uint8_t* data, int64_t size, SegmentDecoderOptions options = {}) {
    SegmentDecoder decoder(options);
    Status status = decoder.Begin(data, size, nullptr, "partition 3", 1000);
    while (status.ok()) {
      auto batch = decoder.Next();
      if (!batch.ok()) return batch.status();
      if (!batch->has_value()) break;
    }
    return status;
  };
  ASSERT_TRUE(decode(segment.data(), segment.size()).ok());
  auto extent = MeasureCompactSegment(segment.data(), segment.size());
  ASSERT_TRUE(extent.ok()) << extent.status().ToString();
  for (int64_t size = 4; size < segment.size(); size += 7) {
    Status truncated = decode(segment.data(), size);
    if (size == extent->frame.compressed_size) {
      // Cut exactly after the frame: only the alignment padding is gone, the rows are whole.
      EXPECT_TRUE(truncated.ok()) << truncated.ToString();
      continue;
    }
    ASSERT_FALSE(truncated.ok()) << "cut to " << size << " bytes";
    EXPECT_EQ(truncated.code(), StatusCode::kCorrupt);
    EXPECT_EQ(truncated.message().rfind("partition 3: byte ", 0), 0u) << truncated.message();
  }
  AlignedBuffer trailing;
  trailing.Append(segment.data(), segment.size());
  trailing.Append(ipc::kEndOfStream.data(), 8);
  Status extra = decode(trailing.data(), trailing.size());
  EXPECT_EQ(extra.message(), "partition 3: byte " + std::to_string(1000 + segment.size()) +
                                 ": 8 bytes follow the compact segment; the segment bounds are "
                                 "wrong");
  SegmentDecoderOptions small;
  small.max_block_bytes = 64;
  Status limited = decode(segment.data(), segment.size(), small);
  EXPECT_NE(limited.message().find("is larger than the limit of 64 bytes"), std::string::npos)
      << limited.message();
  // Flipped bytes in the frame's body: the codec or the stream inside says so, never a crash.
  for (int64_t at = 20; at < segment.size(); at += 13) {
    AlignedBuffer flipped;
    flipped.Append(segment.data(), segment.size());
    flipped.data()[at] ^= 0x5A;
    (void)decode(flipped.data(), flipped.size());
  }
}

// A segment that refers to the Schema message (every segment of a map output but its first):
// smaller, and decoded by a decoder that has read the Schema message or was given the schema.
TEST_P(CompactSegmentTest, ReferredSchemaCostsAFewBytesAndIsFoundWhereReadersLook) {
  const std::vector<RecordBatch> rows = {testing::RandomBatch(schema_, 4, 11)};
  AlignedBuffer inside = CompactSegmentOf(rows, CompactSegmentSchema::kInside);
  AlignedBuffer referred = CompactSegmentOf(rows, CompactSegmentSchema::kReferred);
  EXPECT_LT(referred.size() + 200, inside.size()) << "the Schema message should cost little";
  ASSERT_TRUE(IsCompactSegment(referred.data(), referred.size()));
  const std::span<const uint8_t> schema_message = encoder_->plain_encoder()->schema_message();
  auto reference = DictionaryReferenceAt(referred.data(), referred.size());
  ASSERT_TRUE(reference.has_value());
  EXPECT_EQ(*reference, CompactSegmentDictionary::Of(schema_message));
  EXPECT_FALSE(DictionaryReferenceAt(inside.data(), inside.size()).has_value());

  auto decode_all = [&](SegmentDecoder* decoder, const AlignedBuffer& segment) {
    Status status = decoder->Begin(segment.data(), segment.size(), nullptr, "partition 9", 4096);
    if (!status.ok()) return status;
    auto batch = decoder->Next();
    if (!batch.ok()) return batch.status();
    if (!batch->has_value()) return Status::Invalid("no batch");
    ExpectRowsOf(**batch, rows);
    return Status::OK();
  };

  // A decoder that has seen no Schema message says what it lacks and where to find it.
  SegmentDecoder fresh;
  EXPECT_FALSE(fresh.KnowsDictionary(*reference));
  Status missing = decode_all(&fresh, referred);
  EXPECT_EQ(missing.code(), StatusCode::kInvalid);
  EXPECT_EQ(missing.message().rfind("partition 9: byte 4096: the compact segment was compressed "
                                    "against its map output's Schema message",
                                    0),
            0u)
      << missing.message();
  EXPECT_NE(missing.message().find("byte 0 of its data file"), std::string::npos);

  // Having read the map output's first segment.
  SegmentDecoder reader;
  ASSERT_TRUE(decode_all(&reader, inside).ok());
  EXPECT_TRUE(reader.KnowsDictionary(*reference));
  Status decoded = decode_all(&reader, referred);
  EXPECT_TRUE(decoded.ok()) << decoded.ToString();

  // Given the schema.
  SegmentDecoder given;
  ASSERT_TRUE(given.AddSchema(schema_).ok());
  decoded = decode_all(&given, referred);
  EXPECT_TRUE(decoded.ok()) << decoded.ToString();
  // The segment's Schema message is the given schema's: it is not parsed again.
  EXPECT_EQ(given.metrics().schemas_parsed, 0);
  EXPECT_EQ(given.schema(), schema_);

  // Given another schema: still missing, never a wrong decode.
  SegmentDecoder other;
  ASSERT_TRUE(other.AddSchema(testing::AllTypesSchema(1)).ok());
  EXPECT_EQ(decode_all(&other, referred).code(), StatusCode::kInvalid);

  // The layout walker and FirstSchemaMessage: what a tool without a decoder does.
  auto first = FirstSchemaMessage(inside.data(), inside.size(), "data file");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(
      std::equal(first->begin(), first->end(), schema_message.begin(), schema_message.end()));
  auto layout = ReadSegmentLayout(referred.data(), referred.size(), "partition 9", 0, *first);
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->rows, 4);
  EXPECT_EQ(layout->end, referred.size());
  EXPECT_EQ(ReadSegmentLayout(referred.data(), referred.size(), "partition 9").status().code(),
            StatusCode::kInvalid);

  // Flipped bytes: an error or a decode, never a crash (the fuzzers cover the rest).
  for (int64_t at = 0; at < referred.size(); at += 5) {
    AlignedBuffer flipped;
    flipped.Append(referred.data(), referred.size());
    flipped.data()[at] ^= 0x21;
    SegmentDecoder decoder;
    ASSERT_TRUE(decoder.AddSchema(schema_).ok());
    if (decoder.Begin(flipped.data(), flipped.size(), nullptr, "flipped").ok()) {
      (void)decoder.Next();
    }
  }
}

// A segment for readers given the schema: compressed against the Schema message and a template
// batch's RecordBatch message, so the metadata of a few rows costs a few bytes as well; decoded
// only by a decoder given that schema.
TEST_P(CompactSegmentTest, GivenSchemaDictionaryHoldsTheBatchMetadataToo) {
  testing::RandomBatchOptions no_nulls;  // the template has no validity buffers either
  no_nulls.null_probability = 0;
  const std::vector<RecordBatch> rows = {testing::RandomBatch(schema_, 1, 5, no_nulls)};
  AlignedBuffer referred = CompactSegmentOf(rows, CompactSegmentSchema::kReferred);
  AlignedBuffer given_form = CompactSegmentOf(rows, CompactSegmentSchema::kGiven);
  // The RecordBatch metadata of these 2 x 24 columns is over a kilobyte; much of it goes (least
  // with zstd's fastest level, which finds fewest of the template's matches).
  EXPECT_LT(given_form.size() + 100, referred.size())
      << given_form.size() << " against " << referred.size();

  AlignedBuffer dictionary;
  ASSERT_TRUE(AppendGivenSchemaDictionary(schema_, &dictionary).ok());
  const std::span<const uint8_t> schema_message = encoder_->plain_encoder()->schema_message();
  ASSERT_GT(dictionary.size(), static_cast<int64_t>(schema_message.size()));
  EXPECT_TRUE(std::equal(schema_message.begin(), schema_message.end(), dictionary.data()))
      << "the dictionary starts with the Schema message";
  const std::span<const uint8_t> dictionary_bytes(dictionary.data(),
                                                  static_cast<size_t>(dictionary.size()));
  auto reference = DictionaryReferenceAt(given_form.data(), given_form.size());
  ASSERT_TRUE(reference.has_value());
  EXPECT_EQ(*reference, CompactSegmentDictionary::Of(dictionary_bytes));
  // The same schema gives the same bytes, whatever the encoder made before.
  AlignedBuffer again;
  ASSERT_TRUE(AppendGivenSchemaDictionary(testing::AllTypesSchema(2), &again).ok());
  EXPECT_EQ(CompactSegmentDictionary::Of(
                std::span<const uint8_t>(again.data(), static_cast<size_t>(again.size()))),
            *reference);

  auto decode = [&](SegmentDecoder* decoder) {
    Status status = decoder->Begin(given_form.data(), given_form.size(), nullptr, "partition 3");
    if (!status.ok()) return status;
    auto batch = decoder->Next();
    if (!batch.ok()) return batch.status();
    if (!batch->has_value()) return Status::Invalid("no batch");
    ExpectRowsOf(**batch, rows);
    return Status::OK();
  };
  SegmentDecoder given;
  ASSERT_TRUE(given.AddSchema(schema_).ok());
  Status decoded = decode(&given);
  EXPECT_TRUE(decoded.ok()) << decoded.ToString();
  EXPECT_EQ(given.metrics().schemas_parsed, 0);

  // Having read a segment that holds the Schema message is not enough, nor another schema.
  SegmentDecoder reader;
  AlignedBuffer inside = CompactSegmentOf(rows, CompactSegmentSchema::kInside);
  ASSERT_TRUE(reader.Begin(inside.data(), inside.size(), nullptr, "partition 0").ok());
  ASSERT_TRUE(reader.Next().ok());
  Status missing = decode(&reader);
  EXPECT_EQ(missing.code(), StatusCode::kInvalid);
  EXPECT_NE(missing.message().find("the dictionary derived from it"), std::string::npos)
      << missing.message();
  SegmentDecoder other;
  ASSERT_TRUE(other.AddSchema(testing::AllTypesSchema(1)).ok());
  EXPECT_EQ(decode(&other).code(), StatusCode::kInvalid);

  auto layout =
      ReadSegmentLayout(given_form.data(), given_form.size(), "partition 3", 0, dictionary_bytes);
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  EXPECT_EQ(layout->rows, 1);
  EXPECT_EQ(layout->end, given_form.size());
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompactSegmentTest, ::testing::ValuesIn(testing::kCodecCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace sluice
