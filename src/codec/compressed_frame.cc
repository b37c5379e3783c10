#include "sluice/codec/compressed_frame.h"

#include <xxhash.h>
#include <zstd.h>

#include <cstring>

#include "sluice/base/bit_ops.h"

namespace sluice {

namespace {

constexpr uint32_t kLz4FrameMagic = 0x184D2204;
constexpr uint32_t kZstdFrameMagic = 0xFD2FB528;

// LZ4 frame descriptor flags (the LZ4 Frame Format Description, v1.6.x).
constexpr uint8_t kVersionMask = 0xC0;
constexpr uint8_t kVersion1 = 0x40;
constexpr uint8_t kBlockChecksumFlag = 0x10;
constexpr uint8_t kContentSizeFlag = 0x08;
constexpr uint8_t kContentChecksumFlag = 0x04;
constexpr uint8_t kDictionaryIdFlag = 0x01;
constexpr uint32_t kStoredRawBit = 0x80000000u;

Status CorruptFrame(int64_t byte, std::string_view what) {
  return Status::Corrupt("compressed frame: byte ", byte, ": ", what);
}

Result<CompressedFrame> MeasureLz4Frame(const uint8_t* data, int64_t size) {
  CompressedFrame frame;
  frame.codec = CompressionCodec::kLz4Frame;
  int64_t position = 4;
  if (size < position + 3) return CorruptFrame(size, "the LZ4 frame header is truncated");
  const uint8_t flags = data[position];
  if ((flags & kVersionMask) != kVersion1) {
    return CorruptFrame(position, "unknown LZ4 frame version");
  }
  const int64_t descriptor_size =
      2 + ((flags & kContentSizeFlag) != 0 ? 8 : 0) + ((flags & kDictionaryIdFlag) != 0 ? 4 : 0);
  if (size < position + descriptor_size + 1) {
    return CorruptFrame(size, "the LZ4 frame header is truncated");
  }
  if ((flags & kContentSizeFlag) != 0) {
    const auto declared = bits::LoadUnaligned<uint64_t>(data + position + 2);
    if (declared > static_cast<uint64_t>(INT64_MAX)) {
      return CorruptFrame(position + 2, "the LZ4 frame declares an impossible content size");
    }
    frame.content_size = static_cast<int64_t>(declared);
  }
  const auto header_checksum =
      static_cast<uint8_t>(XXH32(data + position, static_cast<size_t>(descriptor_size), 0) >> 8);
  position += descriptor_size;
  if (data[position] != header_checksum) {
    return CorruptFrame(position, "the LZ4 frame header checksum does not match");
  }
  position += 1;
  const int64_t block_checksum_size = (flags & kBlockChecksumFlag) != 0 ? 4 : 0;
  while (true) {
    if (size - position < 4) return CorruptFrame(position, "the LZ4 frame is truncated");
    const uint32_t block_header = bits::LoadUnaligned<uint32_t>(data + position);
    position += 4;
    if (block_header == 0) break;  // the end mark
    const int64_t block_size = block_header & ~kStoredRawBit;
    if (block_size > size - position - block_checksum_size) {
      return CorruptFrame(position - 4, "an LZ4 block runs past the end of the input");
    }
    position += block_size + block_checksum_size;
  }
  if ((flags & kContentChecksumFlag) != 0) {
    if (size - position < 4) return CorruptFrame(position, "the LZ4 frame is truncated");
    position += 4;
  }
  frame.compressed_size = position;
  return frame;
}

Result<CompressedFrame> MeasureZstdFrame(const uint8_t* data, int64_t size) {
  CompressedFrame frame;
  frame.codec = CompressionCodec::kZstd;
  const size_t compressed = ZSTD_findFrameCompressedSize(data, static_cast<size_t>(size));
  if (ZSTD_isError(compressed)) {
    return Status::Corrupt("compressed frame: byte 0: ", ZSTD_getErrorName(compressed));
  }
  frame.compressed_size = static_cast<int64_t>(compressed);
  const unsigned long long content = ZSTD_getFrameContentSize(data, static_cast<size_t>(size));
  if (content == ZSTD_CONTENTSIZE_ERROR) {
    return CorruptFrame(0, "the zstd frame header is malformed");
  }
  if (content != ZSTD_CONTENTSIZE_UNKNOWN) {
    if (content > static_cast<unsigned long long>(INT64_MAX)) {
      return CorruptFrame(0, "the zstd frame declares an impossible content size");
    }
    frame.content_size = static_cast<int64_t>(content);
  }
  return frame;
}

}  // namespace

CompressionCodec FrameCodecAt(const uint8_t* data, int64_t size) {
  if (data == nullptr || size < 4) return CompressionCodec::kNone;
  const uint32_t magic = bits::LoadUnaligned<uint32_t>(data);
  if (magic == kLz4FrameMagic) return CompressionCodec::kLz4Frame;
  if (magic == kZstdFrameMagic) return CompressionCodec::kZstd;
  return CompressionCodec::kNone;
}

Result<CompressedFrame> MeasureCompressedFrame(const uint8_t* data, int64_t size) {
  switch (FrameCodecAt(data, size)) {
    case CompressionCodec::kLz4Frame:
      return MeasureLz4Frame(data, size);
    case CompressionCodec::kZstd:
      return MeasureZstdFrame(data, size);
    case CompressionCodec::kNone:
      break;
  }
  return CorruptFrame(0, "no LZ4 or zstd frame magic number");
}

}  // namespace sluice
