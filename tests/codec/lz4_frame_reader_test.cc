// Lz4FrameReader: reads the frames LZ4F writes, straight into the output, and agrees with LZ4F
// on every damaged frame.
#include <gtest/gtest.h>
#include <lz4frame.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "codec/lz4_frame_reader_internal.h"
#include "sluice/codec/compression.h"

namespace sluice::internal {
namespace {

std::vector<uint8_t> TextBytes(size_t size) {
  std::string text;
  for (int i = 0; text.size() < size; ++i) text += "row " + std::to_string(i * 7919 % 1000) + ";";
  return std::vector<uint8_t>(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(size));
}

std::vector<uint8_t> FrameOf(const std::vector<uint8_t>& content,
                             const LZ4F_preferences_t& preferences) {
  std::vector<uint8_t> frame(LZ4F_compressFrameBound(content.size(), &preferences));
  const size_t size =
      LZ4F_compressFrame(frame.data(), frame.size(), content.data(), content.size(), &preferences);
  EXPECT_FALSE(LZ4F_isError(size));
  frame.resize(size);
  return frame;
}

// Decodes `frame` with a fresh LZ4F context into `output`; returns whether LZ4F finished the
// frame exactly, filling the output and consuming the input.
bool Lz4fDecodes(const std::vector<uint8_t>& frame, std::vector<uint8_t>* output) {
  LZ4F_dctx* context = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&context, LZ4F_VERSION))) return false;
  // With room to spare: LZ4F stops once the output is full, before blocks that decode to
  // nothing and the end mark.
  std::vector<uint8_t> decoded_bytes(output->size() + 65536);
  size_t decoded = decoded_bytes.size();
  size_t consumed = frame.size();
  const size_t hint =
      LZ4F_decompress(context, decoded_bytes.data(), &decoded, frame.data(), &consumed, nullptr);
  LZ4F_freeDecompressionContext(context);
  if (LZ4F_isError(hint) || hint != 0 || decoded != output->size() || consumed != frame.size()) {
    return false;
  }
  std::copy(decoded_bytes.begin(), decoded_bytes.begin() + static_cast<std::ptrdiff_t>(decoded),
            output->begin());
  return true;
}

// Reads `frame` into `output`, whose size is the expected content's, letting the reader write
// `room` more bytes past it (into a larger buffer, of which `output` receives the first part).
Result<Lz4FrameRead> Read(const std::vector<uint8_t>& frame, std::vector<uint8_t>* output,
                          int64_t room = 0) {
  std::vector<uint8_t> buffer(output->size() + static_cast<size_t>(room) + 1);
  const int64_t size = static_cast<int64_t>(output->size());
  auto read = ReadLz4Frame(frame.data(), static_cast<int64_t>(frame.size()), buffer.data(), size,
                           size == 0 ? 0 : size + room);
  if (read.ok() && *read == Lz4FrameRead::kDecoded) {
    std::copy(buffer.begin(), buffer.begin() + size, output->begin());
  }
  return read;
}

TEST(Lz4FrameReaderTest, ReadsSluiceFramesOfEverySize) {
  auto compressor = Compressor::Make(CompressionCodec::kLz4Frame).ValueOrDie();
  for (size_t size : {size_t{0}, size_t{1}, size_t{63}, size_t{4096}, size_t{65536}, size_t{65537},
                      size_t{300000}}) {
    const std::vector<uint8_t> content = TextBytes(size);
    std::vector<uint8_t> frame(
        static_cast<size_t>(compressor->MaxCompressedSize(static_cast<int64_t>(size))));
    const int64_t frame_size = compressor
                                   ->Compress(content.data(), static_cast<int64_t>(size),
                                              frame.data(), static_cast<int64_t>(frame.size()))
                                   .ValueOrDie();
    frame.resize(static_cast<size_t>(frame_size));
    for (int64_t room : {0, 64, 1 << 20}) {
      std::vector<uint8_t> output(size);
      auto read = Read(frame, &output, room);
      ASSERT_TRUE(read.ok()) << size << ": " << read.status().ToString();
      EXPECT_EQ(*read, Lz4FrameRead::kDecoded);
      EXPECT_TRUE(output == content) << size << " with room " << room;
    }
  }
}

TEST(Lz4FrameReaderTest, ReadsLinkedFramesWithoutContentSize) {
  // LZ4F's default frame (the lz4 tool's, with its larger blocks): linked blocks, whose matches
  // reach back into the blocks before them, and no content size.
  const std::vector<uint8_t> content = TextBytes(500000);
  LZ4F_preferences_t preferences = {};
  for (auto size_id : {LZ4F_max64KB, LZ4F_max256KB, LZ4F_max4MB}) {
    preferences.frameInfo.blockSizeID = size_id;
    const std::vector<uint8_t> frame = FrameOf(content, preferences);
    std::vector<uint8_t> output(content.size());
    auto read = Read(frame, &output);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(*read, Lz4FrameRead::kDecoded);
    EXPECT_TRUE(output == content);
  }
}

TEST(Lz4FrameReaderTest, LeavesFramesWithChecksumsToLz4f) {
  const std::vector<uint8_t> content = TextBytes(1000);
  LZ4F_preferences_t preferences = {};
  preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  std::vector<uint8_t> output(content.size(), 0xAB);
  const std::vector<uint8_t> frame = FrameOf(content, preferences);
  const int64_t size = static_cast<int64_t>(output.size());
  auto read =
      ReadLz4Frame(frame.data(), static_cast<int64_t>(frame.size()), output.data(), size, size);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, Lz4FrameRead::kUnsupported);
  EXPECT_EQ(output, std::vector<uint8_t>(content.size(), 0xAB));  // nothing written
}

TEST(Lz4FrameReaderTest, NamesTheByteOfEachKindOfDamage) {
  const std::vector<uint8_t> content = TextBytes(3000);
  LZ4F_preferences_t preferences = {};
  preferences.frameInfo.contentSize = content.size();
  const std::vector<uint8_t> frame = FrameOf(content, preferences);
  std::vector<uint8_t> output(content.size());
  auto message_of = [&](const std::vector<uint8_t>& damaged, size_t output_size) {
    std::vector<uint8_t> out(output_size);
    auto read = Read(damaged, &out);
    EXPECT_FALSE(read.ok());
    EXPECT_TRUE(read.status().IsCorrupt());
    return read.status().message();
  };
  std::vector<uint8_t> damaged = frame;
  damaged[14] ^= 0x01;  // HC: magic 4, FLG, BD, content size 8
  EXPECT_NE(message_of(damaged, content.size()).find("input byte 14: the frame header checksum"),
            std::string::npos);
  EXPECT_NE(message_of(frame, content.size() + 1).find("declares 3000 bytes, expected 3001"),
            std::string::npos);
  damaged = frame;
  damaged.push_back(0);
  EXPECT_NE(message_of(damaged, content.size()).find("1 bytes follow the end of the frame"),
            std::string::npos);
  damaged.assign(frame.begin(), frame.end() - 6);
  EXPECT_NE(message_of(damaged, content.size()).find("(truncated)"), std::string::npos);
  damaged = frame;
  damaged[0] ^= 0xFF;
  EXPECT_NE(message_of(damaged, content.size()).find("wrong magic number"), std::string::npos);
}

TEST(Lz4FrameReaderTest, ReadsABlockThatDecodesToNothingAfterTheContent) {
  // Found by the decompress fuzzer: a stored block of one byte, then a compressed block holding
  // a single empty sequence, then the end mark. Valid, and exactly one byte.
  std::vector<uint8_t> frame = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x40};
  frame.push_back(static_cast<uint8_t>(XXH32(frame.data() + 4, 2, 0) >> 8));
  for (uint8_t byte :
       {0x01, 0x00, 0x00, 0x80, 0x7A, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}) {
    frame.push_back(byte);
  }
  for (int64_t room : {0, 64}) {
    std::vector<uint8_t> output(1);
    auto read = Read(frame, &output, room);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(*read, Lz4FrameRead::kDecoded);
    EXPECT_EQ(output[0], 0x7A);
  }
}

// Every single-bit flip and every truncation of a small frame: the reader and LZ4F accept the
// same frames and decode them to the same bytes.
TEST(Lz4FrameReaderTest, AgreesWithLz4fOnEveryFlipAndTruncation) {
  const std::vector<uint8_t> content = TextBytes(700);
  for (bool content_size : {false, true}) {
    for (auto mode : {LZ4F_blockLinked, LZ4F_blockIndependent}) {
      LZ4F_preferences_t preferences = {};
      preferences.frameInfo.blockMode = mode;
      if (content_size) preferences.frameInfo.contentSize = content.size();
      const std::vector<uint8_t> frame = FrameOf(content, preferences);
      auto agree_with_room = [&](const std::vector<uint8_t>& damaged, const std::string& what,
                                 int64_t room) {
        std::vector<uint8_t> ours(content.size());
        std::vector<uint8_t> theirs(content.size());
        auto read = Read(damaged, &ours, room);
        if (read.ok() && *read == Lz4FrameRead::kUnsupported) return;
        const bool lz4f_ok = Lz4fDecodes(damaged, &theirs);
        ASSERT_EQ(read.ok(), lz4f_ok) << what << ": " << read.status().ToString();
        if (lz4f_ok) {
          ASSERT_TRUE(ours == theirs) << what;
        }
      };
      auto agree = [&](const std::vector<uint8_t>& damaged, const std::string& what) {
        agree_with_room(damaged, what, 0);
        agree_with_room(damaged, what + " with room", 64);
      };
      for (size_t bit = 0; bit < frame.size() * 8; ++bit) {
        std::vector<uint8_t> damaged = frame;
        damaged[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        agree(damaged, "bit " + std::to_string(bit));
      }
      for (size_t size = 0; size < frame.size(); ++size) {
        agree(
            std::vector<uint8_t>(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(size)),
            "truncated to " + std::to_string(size));
      }
    }
  }
}

}  // namespace
}  // namespace sluice::internal
