#include "sluice/codec/compressed_frame.h"

#include <gtest/gtest.h>
#include <lz4frame.h>
#include <zstd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sluice {
namespace {

std::vector<uint8_t> Text(size_t bytes) {
  std::vector<uint8_t> text(bytes);
  for (size_t i = 0; i < bytes; ++i) text[i] = static_cast<uint8_t>("shuffle "[i % 8] + i / 977);
  return text;
}

// An LZ4 frame made by liblz4 itself with the given preferences.
std::vector<uint8_t> Lz4Frame(const std::vector<uint8_t>& content,
                              const LZ4F_preferences_t& preferences) {
  std::vector<uint8_t> frame(LZ4F_compressFrameBound(content.size(), &preferences));
  const size_t size =
      LZ4F_compressFrame(frame.data(), frame.size(), content.data(), content.size(), &preferences);
  EXPECT_FALSE(LZ4F_isError(size)) << LZ4F_getErrorName(size);
  frame.resize(size);
  return frame;
}

std::vector<uint8_t> ZstdFrame(const std::vector<uint8_t>& content, bool with_size) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, with_size ? 1 : 0);
  std::vector<uint8_t> frame(ZSTD_compressBound(content.size()));
  const size_t size =
      ZSTD_compress2(context, frame.data(), frame.size(), content.data(), content.size());
  ZSTD_freeCCtx(context);
  EXPECT_FALSE(ZSTD_isError(size));
  frame.resize(size);
  return frame;
}

TEST(CompressedFrameTest, TellsFramesByTheirMagicNumber) {
  const auto content = Text(100);
  const auto lz4 = Lz4Frame(content, LZ4F_preferences_t{});
  const auto zstd = ZstdFrame(content, true);
  EXPECT_EQ(FrameCodecAt(lz4.data(), static_cast<int64_t>(lz4.size())),
            CompressionCodec::kLz4Frame);
  EXPECT_EQ(FrameCodecAt(zstd.data(), static_cast<int64_t>(zstd.size())), CompressionCodec::kZstd);
  const uint8_t stream[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0};  // an Arrow IPC stream
  EXPECT_EQ(FrameCodecAt(stream, 8), CompressionCodec::kNone);
  EXPECT_EQ(FrameCodecAt(lz4.data(), 3), CompressionCodec::kNone);
  EXPECT_EQ(FrameCodecAt(nullptr, 0), CompressionCodec::kNone);
}

TEST(CompressedFrameTest, MeasuresLz4FramesOfEveryShapeWithTrailingBytes) {
  const auto content = Text(300000);  // several 64 KiB blocks
  for (bool content_size : {false, true}) {
    for (bool block_checksums : {false, true}) {
      for (bool content_checksum : {false, true}) {
        for (bool linked : {false, true}) {
          LZ4F_preferences_t preferences{};
          preferences.frameInfo.blockSizeID = LZ4F_max64KB;
          preferences.frameInfo.blockMode = linked ? LZ4F_blockLinked : LZ4F_blockIndependent;
          preferences.frameInfo.contentSize = content_size ? content.size() : 0;
          preferences.frameInfo.blockChecksumFlag =
              block_checksums ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
          preferences.frameInfo.contentChecksumFlag =
              content_checksum ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
          auto frame = Lz4Frame(content, preferences);
          const auto frame_size = static_cast<int64_t>(frame.size());
          frame.insert(frame.end(), {1, 2, 3, 4, 5});  // bytes after the frame are not its
          auto measured = MeasureCompressedFrame(frame.data(), static_cast<int64_t>(frame.size()));
          ASSERT_TRUE(measured.ok()) << measured.status().ToString();
          EXPECT_EQ(measured->codec, CompressionCodec::kLz4Frame);
          EXPECT_EQ(measured->compressed_size, frame_size);
          EXPECT_EQ(measured->content_size,
                    content_size ? static_cast<int64_t>(content.size()) : -1);
        }
      }
    }
  }
}

TEST(CompressedFrameTest, MeasuresZstdFrames) {
  const auto content = Text(200000);
  for (bool with_size : {false, true}) {
    auto frame = ZstdFrame(content, with_size);
    const auto frame_size = static_cast<int64_t>(frame.size());
    frame.insert(frame.end(), 16, 0xAB);
    auto measured = MeasureCompressedFrame(frame.data(), static_cast<int64_t>(frame.size()));
    ASSERT_TRUE(measured.ok()) << measured.status().ToString();
    EXPECT_EQ(measured->codec, CompressionCodec::kZstd);
    EXPECT_EQ(measured->compressed_size, frame_size);
    EXPECT_EQ(measured->content_size, with_size ? static_cast<int64_t>(content.size()) : -1);
  }
}

TEST(CompressedFrameTest, EveryTruncationOfAFrameIsCorrupt) {
  const auto content = Text(5000);
  LZ4F_preferences_t preferences{};
  preferences.frameInfo.contentSize = content.size();
  for (const auto& frame : {Lz4Frame(content, preferences), ZstdFrame(content, true)}) {
    for (size_t size = 0; size < frame.size(); ++size) {
      auto measured = MeasureCompressedFrame(frame.data(), static_cast<int64_t>(size));
      ASSERT_FALSE(measured.ok()) << "a frame cut to " << size << " bytes was measured";
      EXPECT_EQ(measured.status().code(), StatusCode::kCorrupt);
    }
  }
}

TEST(CompressedFrameTest, ABadLz4HeaderIsCorruptNamingTheByte) {
  LZ4F_preferences_t preferences{};
  preferences.frameInfo.contentSize = 100;
  auto frame = Lz4Frame(Text(100), preferences);
  auto header_checksum = frame;
  header_checksum[4 + 2 + 8] ^= 0xFF;  // FLG, BD, the content size, then HC
  auto measured =
      MeasureCompressedFrame(header_checksum.data(), static_cast<int64_t>(header_checksum.size()));
  ASSERT_FALSE(measured.ok());
  EXPECT_EQ(measured.status().message(),
            "compressed frame: byte 14: the LZ4 frame header checksum does not match");
  auto version = frame;
  version[4] = 0x00;
  measured = MeasureCompressedFrame(version.data(), static_cast<int64_t>(version.size()));
  ASSERT_FALSE(measured.ok());
  EXPECT_EQ(measured.status().message(), "compressed frame: byte 4: unknown LZ4 frame version");
  const uint8_t stream[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0};
  measured = MeasureCompressedFrame(stream, 8);
  ASSERT_FALSE(measured.ok());
  EXPECT_EQ(measured.status().message(),
            "compressed frame: byte 0: no LZ4 or zstd frame magic number");
}

}  // namespace
}  // namespace sluice
