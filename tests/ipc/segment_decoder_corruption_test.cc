// Malformed segments: every one must give an error that names the byte offset, and none may
// crash or read out of bounds (this suite also runs under ASan and UBSan).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "arrow_message_generated.h"
#include "sluice/format/array_builder.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "support/encoded_segment.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

// The segment of `batches` as a string, to corrupt.
std::string SegmentOf(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                      CompressionCodec codec) {
  const AlignedBuffer bytes = testing::EncodedSegment(schema, batches, codec);
  return std::string(reinterpret_cast<const char*>(bytes.data()),
                     static_cast<size_t>(bytes.size()));
}

// A segment of one batch of `rows` random rows.
std::string EncodeSegment(CompressionCodec codec, int64_t rows,
                          SchemaPtr schema = testing::MixedSchema()) {
  return SegmentOf(schema, {testing::RandomBatch(schema, rows, 42)}, codec);
}

// Decodes every batch; returns the first error, or OK.
Status DecodeAll(const std::string& bytes) {
  // Copy into an aligned buffer of exactly the size, so ASan sees reads past the end.
  AlignedBuffer copy;
  copy.Append(bytes.data(), static_cast<int64_t>(bytes.size()));
  SegmentDecoder decoder;
  SLUICE_RETURN_NOT_OK(decoder.Begin(copy.data(), copy.size(), nullptr, "segment"));
  while (true) {
    auto next = decoder.Next();
    if (!next.ok()) return next.status();
    if (!next->has_value()) return Status::OK();
  }
}

class SegmentCorruptionTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(SegmentCorruptionTest, TruncationAtEveryByteIsAnError) {
  const std::string segment = EncodeSegment(GetParam(), 5);
  ASSERT_TRUE(DecodeAll(segment).ok());
  for (size_t size = 0; size < segment.size(); ++size) {
    Status status = DecodeAll(segment.substr(0, size));
    ASSERT_FALSE(status.ok()) << "truncated to " << size << " bytes";
    EXPECT_TRUE(status.IsCorrupt()) << status.ToString();
    EXPECT_NE(status.message().find("byte "), std::string::npos) << status.ToString();
  }
}

TEST_P(SegmentCorruptionTest, BitFlipsNeverCrash) {
  const std::string segment = EncodeSegment(GetParam(), 5);
  int errors = 0;
  for (size_t byte = 0; byte < segment.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = segment;
      flipped[byte] = static_cast<char>(flipped[byte] ^ (1 << bit));
      Status status = DecodeAll(flipped);
      if (!status.ok()) {
        ++errors;
        EXPECT_NE(status.message().find("byte "), std::string::npos) << status.ToString();
      }
    }
  }
  // Flips in metadata and framing are caught; flips in values can decode to other values.
  EXPECT_GT(errors, 0);
}

TEST_P(SegmentCorruptionTest, TrailingBytesAfterEndOfStream) {
  const std::string segment = EncodeSegment(GetParam(), 3) + std::string(8, '\0');
  Status status = DecodeAll(segment);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("follow the end-of-stream"), std::string::npos)
      << status.ToString();
}

INSTANTIATE_TEST_SUITE_P(Codecs, SegmentCorruptionTest,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

// Offsets of the parts of a segment, found by parsing it.
struct SegmentLayout {
  size_t batch_message = 0;   // start of the RecordBatch message prefix
  size_t batch_metadata = 0;  // start of its flatbuffer
  size_t body = 0;            // start of its body
  const fb::Message* message = nullptr;
};

// The RecordBatch message whose prefix starts at `batch_message`.
SegmentLayout LocateBatchAt(std::string& segment, size_t batch_message) {
  SegmentLayout layout;
  layout.batch_message = batch_message;
  int32_t batch_length;
  std::memcpy(&batch_length, segment.data() + layout.batch_message + 4, 4);
  layout.batch_metadata = layout.batch_message + 8;
  layout.body = layout.batch_metadata + static_cast<size_t>(batch_length);
  layout.message = fb::GetMessage(segment.data() + layout.batch_metadata);
  return layout;
}

// The first RecordBatch message, after the schema's.
SegmentLayout Locate(std::string& segment) {
  int32_t schema_length;
  std::memcpy(&schema_length, segment.data() + 4, 4);
  return LocateBatchAt(segment, 8 + static_cast<size_t>(schema_length));
}

TEST(SegmentDecoderTest, HugeMetadataLength) {
  std::string segment = EncodeSegment(CompressionCodec::kNone, 4);
  const int32_t huge = 0x7fffffff;
  std::memcpy(segment.data() + 4, &huge, 4);
  Status status = DecodeAll(segment);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("byte 0: message metadata length 2147483647"), std::string::npos)
      << status.ToString();
}

TEST(SegmentDecoderTest, HugeBodyLength) {
  std::string segment = EncodeSegment(CompressionCodec::kNone, 4);
  SegmentLayout layout = Locate(segment);
  // Find the stored body length in the metadata and replace it.
  const int64_t old_length = layout.message->body_length();
  std::string needle(reinterpret_cast<const char*>(&old_length), 8);
  size_t at = segment.find(needle, layout.batch_metadata);
  ASSERT_NE(at, std::string::npos);
  const int64_t huge = int64_t{1} << 50;
  std::memcpy(segment.data() + at, &huge, 8);
  Status status = DecodeAll(segment);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("body length"), std::string::npos) << status.ToString();
}

TEST(SegmentDecoderTest, BadCompressedLengthPrefix) {
  std::string segment = EncodeSegment(CompressionCodec::kLz4Frame, 200);
  SegmentLayout layout = Locate(segment);
  const auto* buffers = layout.message->header_as_RecordBatch()->buffers();
  // The first non-empty buffer: replace its uncompressed length with a negative value, then
  // with a wrong size.
  for (int64_t bad : {int64_t{-5}, int64_t{1} << 40, int64_t{3}}) {
    std::string corrupt = segment;
    bool patched = false;
    for (const fb::Buffer* buffer : *buffers) {
      if (buffer->length() == 0) continue;
      std::memcpy(corrupt.data() + layout.body + static_cast<size_t>(buffer->offset()), &bad, 8);
      patched = true;
      break;
    }
    ASSERT_TRUE(patched);
    Status status = DecodeAll(corrupt);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.message().find("byte "), std::string::npos) << status.ToString();
  }
}

TEST(SegmentDecoderTest, BatchOfAnotherSchemaIsRejected) {
  // The schema message of one schema followed by a batch of another.
  std::string mixed = EncodeSegment(CompressionCodec::kNone, 3);
  auto other = std::make_shared<Schema>(std::vector<Field>{MakeField("x", DataType::Int64())});
  std::string wrong = EncodeSegment(CompressionCodec::kNone, 3, other);
  SegmentLayout mixed_layout = Locate(mixed);
  SegmentLayout wrong_layout = Locate(wrong);
  std::string spliced =
      mixed.substr(0, mixed_layout.batch_message) + wrong.substr(wrong_layout.batch_message);
  Status status = DecodeAll(spliced);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("field nodes"), std::string::npos) << status.ToString();
}

TEST(SegmentDecoderTest, GarbageIsRejected) {
  std::mt19937_64 rng(1);
  for (int round = 0; round < 200; ++round) {
    std::string garbage(static_cast<size_t>(rng() % 200), '\0');
    for (auto& byte : garbage) byte = static_cast<char>(rng());
    if (round % 2 == 0 && garbage.size() >= 8) std::memset(garbage.data(), 0xff, 4);
    EXPECT_FALSE(DecodeAll(garbage).ok());
  }
}

// Two string columns whose offsets the decoder checks together, for one block, after
// assembling it: the error names the column and row that break the order, whichever it is.
TEST(SegmentDecoderTest, DecreasingOffsetsNameTheColumnAndRow) {
  for (const TypePtr& type : {DataType::Utf8(), DataType::LargeUtf8()}) {
    auto schema = std::make_shared<Schema>(
        std::vector<Field>{MakeField("a", type, false), MakeField("b", type, false)});
    const std::string segment = EncodeSegment(CompressionCodec::kNone, 20, schema);
    ASSERT_TRUE(DecodeAll(segment).ok());
    for (const auto& [buffer_index, column] : {std::pair{1, "a"}, std::pair{4, "b"}}) {
      std::string corrupt = segment;
      SegmentLayout layout = Locate(corrupt);
      const fb::Buffer* offsets = layout.message->header_as_RecordBatch()->buffers()->Get(
          static_cast<flatbuffers::uoffset_t>(buffer_index));
      char* at = corrupt.data() + layout.body + static_cast<size_t>(offsets->offset());
      // Offset 5 one past offset 6; the first and last offsets stay in bounds.
      if (type->id() == TypeId::kUtf8) {
        int32_t values[7];
        std::memcpy(values, at, sizeof(values));
        values[5] = values[6] + 1;
        std::memcpy(at, values, sizeof(values));
      } else {
        int64_t values[7];
        std::memcpy(values, at, sizeof(values));
        values[5] = values[6] + 1;
        std::memcpy(at, values, sizeof(values));
      }
      Status status = DecodeAll(corrupt);
      ASSERT_FALSE(status.ok()) << type->ToString() << " " << column;
      EXPECT_NE(
          status.message().find(std::string("column '") + column + "': offsets decrease at row 5"),
          std::string::npos)
          << status.ToString();
      EXPECT_NE(status.message().find("segment: byte "), std::string::npos) << status.ToString();
    }
  }
}

// Uncompressed buffers are resolved in place on a short path; a buffer entry that points past
// the body leaves it and gets the full error.
TEST(SegmentDecoderTest, UncompressedBufferOutsideTheBodyIsNamed) {
  // Buffer is {offset, length}, 8 bytes each.
  struct Patch {
    size_t field;
    int64_t value;
  };
  for (const Patch& patch : {Patch{0, int64_t{1} << 40}, Patch{0, -8}, Patch{8, int64_t{1} << 40},
                             Patch{8, -1}, Patch{8, 4096}}) {
    std::string segment = EncodeSegment(CompressionCodec::kNone, 20);
    SegmentLayout layout = Locate(segment);
    const fb::Buffer* values = layout.message->header_as_RecordBatch()->buffers()->Get(1);
    const size_t at = static_cast<size_t>(reinterpret_cast<const char*>(values) - segment.data());
    std::memcpy(segment.data() + at + patch.field, &patch.value, sizeof(patch.value));
    Status status = DecodeAll(segment);
    ASSERT_FALSE(status.ok()) << patch.field << " " << patch.value;
    EXPECT_NE(status.message().find("buffer 1 at offset"), std::string::npos) << status.ToString();
    EXPECT_NE(status.message().find("outside the body"), std::string::npos) << status.ToString();
    // Lengths and offsets are printed as the signed numbers they are.
    EXPECT_NE(status.message().find(std::to_string(patch.value)), std::string::npos)
        << status.ToString();
  }
}

// The second RecordBatch message of `segment`, which starts where the first one's body ends.
SegmentLayout LocateSecond(std::string& segment) {
  const SegmentLayout first = Locate(segment);
  return LocateBatchAt(segment, first.body + static_cast<size_t>(first.message->body_length()));
}

// Blocks of flat columns take a short path (every column of a kind in one loop, over views the
// decoder resolved); its checks fail over to the general path, which names what is wrong. Each
// case corrupts one column of the second of two blocks (by then the decoder has learned the
// block's layout, so only the values changed here are compared) and must get an error naming
// the column: a node whose length or null count is wrong, a validity bitmap too short, values
// too few, offsets too few, negative or past the data.
TEST(SegmentDecoderTest, FlatColumnChecksNameTheColumn) {
  const auto schema = std::make_shared<Schema>(
      std::vector<Field>{MakeField("n", DataType::Null()), MakeField("i", DataType::Int32()),
                         MakeField("s", DataType::Utf8()), MakeField("l", DataType::LargeUtf8()),
                         MakeField("d", DataType::Decimal128(11, 2))});
  constexpr int64_t kRows = 20;
  for (CompressionCodec codec : {CompressionCodec::kNone, CompressionCodec::kLz4Frame}) {
    const std::string segment = SegmentOf(
        schema, {testing::RandomBatch(schema, kRows, 1), testing::RandomBatch(schema, kRows, 2)},
        codec);
    ASSERT_TRUE(DecodeAll(segment).ok());

    int cases = 0;
    // Runs `corrupt` on a copy of the segment, given the second block, and expects an error
    // naming column `name`.
    auto expect_error = [&](const std::string& name, const std::string& what, auto&& corrupt) {
      std::string bytes = segment;
      const SegmentLayout layout = LocateSecond(bytes);
      corrupt(bytes, layout);
      const Status status = DecodeAll(bytes);
      ASSERT_FALSE(status.ok()) << CompressionCodecName(codec) << " " << name << ": " << what;
      EXPECT_NE(status.message().find("'" + name + "'"), std::string::npos)
          << what << ": " << status.ToString();
      EXPECT_NE(status.message().find("segment: byte "), std::string::npos) << status.ToString();
      cases += 1;
    };
    // Writes `value` over the 8 bytes at `field` of a struct of the block's metadata.
    auto patch = [](std::string& bytes, const void* entry, size_t field, int64_t value) {
      const auto at = static_cast<size_t>(reinterpret_cast<const char*>(entry) - bytes.data());
      std::memcpy(bytes.data() + at + field, &value, sizeof(value));
    };

    int first_buffer = 0;
    for (size_t c = 0; c < schema->num_fields(); ++c) {
      const std::string name = schema->field(c).name;
      const TypeId id = schema->field(c).type->id();
      const int buffer = first_buffer;
      first_buffer += BufferCount(id);
      auto node = [c](const SegmentLayout& layout) {
        return layout.message->header_as_RecordBatch()->nodes()->Get(
            static_cast<flatbuffers::uoffset_t>(c));
      };
      auto entry = [](const SegmentLayout& layout, int index) {
        return layout.message->header_as_RecordBatch()->buffers()->Get(
            static_cast<flatbuffers::uoffset_t>(index));
      };
      // A FieldNode is {length, null_count}; a Buffer {offset, length}, 8 bytes each.
      for (int64_t length : {kRows + 1, kRows - 1}) {
        expect_error(name, "node length " + std::to_string(length),
                     [&](std::string& bytes, const SegmentLayout& layout) {
                       patch(bytes, node(layout), 0, length);
                     });
      }
      for (int64_t null_count : {int64_t{-1}, kRows + 1}) {
        expect_error(name, "null count " + std::to_string(null_count),
                     [&](std::string& bytes, const SegmentLayout& layout) {
                       patch(bytes, node(layout), 8, null_count);
                     });
      }
      if (id == TypeId::kNull) continue;
      {
        std::string probe = segment;
        const int64_t nulls = node(LocateSecond(probe))->null_count();
        const int64_t wrong = nulls < kRows ? nulls + 1 : nulls - 1;
        expect_error(name, "null count " + std::to_string(wrong) + " against the bitmap",
                     [&](std::string& bytes, const SegmentLayout& layout) {
                       patch(bytes, node(layout), 8, wrong);
                     });
      }
      if (codec != CompressionCodec::kNone) continue;  // below: lengths of raw buffers
      {
        std::string probe = segment;
        if (entry(LocateSecond(probe), buffer)->length() > 0) {
          expect_error(name, "a 1-byte validity bitmap",
                       [&](std::string& bytes, const SegmentLayout& layout) {
                         patch(bytes, entry(layout, buffer), 8, 1);
                       });
        }
      }
      if (id == TypeId::kInt32 || id == TypeId::kDecimal128) {
        expect_error(
            name, "values 8 bytes short", [&](std::string& bytes, const SegmentLayout& layout) {
              patch(bytes, entry(layout, buffer + 1), 8, entry(layout, buffer + 1)->length() - 8);
            });
        continue;
      }
      const size_t width = id == TypeId::kUtf8 ? 4 : 8;
      expect_error(
          name, "offsets for half the rows", [&](std::string& bytes, const SegmentLayout& layout) {
            patch(bytes, entry(layout, buffer + 1), 8, static_cast<int64_t>(width) * (kRows / 2));
          });
      // Offsets are patched in the body: the first made negative, the last past the data.
      for (const int64_t row : {int64_t{0}, kRows}) {
        const char* what = row == 0 ? "a negative first offset" : "a last offset past the data";
        expect_error(name, what, [&](std::string& bytes, const SegmentLayout& layout) {
          const int64_t data_size = entry(layout, buffer + 2)->length();
          const int64_t value = row == 0 ? -1 : data_size + 1;
          char* at = bytes.data() + layout.body +
                     static_cast<size_t>(entry(layout, buffer + 1)->offset()) +
                     static_cast<size_t>(row) * width;
          if (width == 4) {
            const auto narrow = static_cast<int32_t>(value);
            std::memcpy(at, &narrow, sizeof(narrow));
          } else {
            std::memcpy(at, &value, sizeof(value));
          }
        });
      }
    }
    // Every column's node cases, the bitmap cases, and without compression the buffer cases.
    EXPECT_GE(cases, codec == CompressionCodec::kNone ? 30 : 19) << CompressionCodecName(codec);
  }
}

// A decoder begun on a copy of `segment` that starts `misalignment` bytes past an 8-byte
// boundary.
struct PlacedDecoder {
  PlacedDecoder(const std::string& segment, size_t misalignment) {
    bytes.Resize(static_cast<int64_t>(segment.size() + misalignment));
    std::memcpy(bytes.data() + misalignment, segment.data(), segment.size());
    EXPECT_TRUE(decoder
                    .Begin(bytes.data() + misalignment, static_cast<int64_t>(segment.size()),
                           nullptr, "segment")
                    .ok());
  }
  AlignedBuffer bytes;
  SegmentDecoder decoder;
};

// Decodes the first batch of `segment` placed `misalignment` bytes past an 8-byte boundary and
// returns it re-encoded without compression (equal batches give equal bytes).
std::string DecodeAtAndReencode(const std::string& segment, size_t misalignment) {
  PlacedDecoder placed(segment, misalignment);
  SegmentDecoder& decoder = placed.decoder;
  auto batch = decoder.Next();
  EXPECT_TRUE(batch.ok() && batch->has_value()) << batch.status().ToString();
  if (!batch.ok() || !batch->has_value()) return {};
  auto encoder = SegmentEncoder::Make(testing::MixedSchema(), SegmentEncoderOptions()).ValueOrDie();
  AlignedBuffer encoded;
  EXPECT_TRUE(encoder->AppendSegment(std::span<const RecordBatch>(&**batch, 1), &encoded).ok());
  return std::string(reinterpret_cast<const char*>(encoded.data()),
                     static_cast<size_t>(encoded.size()));
}

// Bytes at an address off the 8-byte grid leave the in-place path: every buffer is copied to an
// aligned arena, and the batches are the same as those decoded in place.
TEST(SegmentDecoderTest, UncompressedBodyAtAnOddAddressDecodesTheSame) {
  const std::string segment = EncodeSegment(CompressionCodec::kNone, 100);
  const std::string in_place = DecodeAtAndReencode(segment, 0);
  EXPECT_EQ(in_place, segment);
  for (size_t misalignment : {1, 4}) {
    EXPECT_EQ(DecodeAtAndReencode(segment, misalignment), in_place) << misalignment;
  }
}

// The same for compressed bodies, whose buffers stored raw (those that did not shrink, such as
// a short validity bitmap) are copied when misaligned, while the others are decompressed.
TEST(SegmentDecoderTest, CompressedBodyAtAnOddAddressDecodesTheSame) {
  const std::string uncompressed = EncodeSegment(CompressionCodec::kNone, 100);
  for (CompressionCodec codec : {CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    std::string segment = EncodeSegment(codec, 100);
    int stored_raw = 0;
    const SegmentLayout layout = Locate(segment);
    for (const fb::Buffer* buffer : *layout.message->header_as_RecordBatch()->buffers()) {
      int64_t declared = 0;
      if (buffer->length() < 8) continue;
      std::memcpy(&declared, segment.data() + layout.body + buffer->offset(), 8);
      stored_raw += declared == -1 ? 1 : 0;
    }
    EXPECT_GT(stored_raw, 0) << static_cast<int>(codec);
    for (size_t misalignment : {0, 1, 4}) {
      EXPECT_EQ(DecodeAtAndReencode(segment, misalignment), uncompressed)
          << static_cast<int>(codec) << " " << misalignment;
    }
  }
}

// Decodes every batch of `segment` placed `misalignment` bytes past an 8-byte boundary and
// returns the bytes the decoder counts as decompressed.
int64_t DecompressedBytesAt(const std::string& segment, size_t misalignment) {
  PlacedDecoder placed(segment, misalignment);
  SegmentDecoder& decoder = placed.decoder;
  while (true) {
    auto batch = decoder.Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !batch->has_value()) break;
  }
  return decoder.metrics().decompressed_bytes;
}

// At an odd address a compressed block's one-pass loop decompresses buffers until it meets a
// misaligned stored-raw one, then hands the block to the general pass, which decompresses them
// all again: each buffer's bytes are still counted once. Here each block's first column is all
// zeros (compressed) and its second random (stored raw, as it does not shrink).
TEST(SegmentDecoderTest, DecompressedBytesCountEachBufferOnce) {
  const auto schema = std::make_shared<Schema>(std::vector<Field>{
      MakeField("zeros", DataType::Int64(), false), MakeField("noise", DataType::Int64(), false)});
  std::mt19937_64 rng(5);
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 3; ++b) {
    auto builders = MakeBuilders(*schema);
    for (int row = 0; row < 100; ++row) {
      builders[0]->Append<int64_t>(0);
      builders[1]->Append<int64_t>(static_cast<int64_t>(rng()));
    }
    batches.push_back(FinishBatch(schema, builders));
  }
  for (CompressionCodec codec : {CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    const std::string segment = SegmentOf(schema, batches, codec);
    // Each block decompresses its 800 bytes of zeros.
    EXPECT_EQ(DecompressedBytesAt(segment, 0), 3 * 800) << CompressionCodecName(codec);
    EXPECT_EQ(DecompressedBytesAt(segment, 4), 3 * 800) << CompressionCodecName(codec);
  }
}

TEST(SegmentDecoderTest, EmptyInputNamesTheProblem) {
  Status status = DecodeAll("");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "segment: byte 0: the stream ends without an end-of-stream marker");
}

}  // namespace
}  // namespace sluice
