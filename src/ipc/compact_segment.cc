#include "sluice/ipc/compact_segment.h"

#include <xxhash.h>

#include <cstring>

#include "sluice/base/bit_ops.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice {

namespace {

bool StartsDictionaryReference(const uint8_t* data, int64_t size) {
  return size >= kSkippableFrameHeaderSize &&
         bits::LoadUnaligned<uint32_t>(data) == kDictionaryReferenceMagic;
}

}  // namespace

bool IsCompactSegment(const uint8_t* data, int64_t size) {
  return StartsDictionaryReference(data, size) ||
         FrameCodecAt(data, size) != CompressionCodec::kNone;
}

CompactSegmentDictionary CompactSegmentDictionary::Of(std::span<const uint8_t> dictionary) {
  return CompactSegmentDictionary{static_cast<int64_t>(dictionary.size()),
                                  XXH32(dictionary.data(), dictionary.size(), 0)};
}

std::optional<CompactSegmentDictionary> DictionaryReferenceAt(const uint8_t* data, int64_t size) {
  if (!StartsDictionaryReference(data, size) || size < kDictionaryReferenceSize) {
    return std::nullopt;
  }
  return CompactSegmentDictionary{bits::LoadUnaligned<uint32_t>(data + 8),
                                  bits::LoadUnaligned<uint32_t>(data + 12)};
}

Status MissingDictionary(const CompactSegmentDictionary& dictionary, const std::string& source,
                         int64_t offset, std::string_view what_to_do) {
  return Status::Invalid(source, ": byte ", offset,
                         ": the compact segment was compressed against its map output's Schema "
                         "message or, written for readers given the schema, the dictionary "
                         "derived from it (",
                         dictionary.size, " bytes, XXH32 ", dictionary.hash, "), ", what_to_do);
}

void AppendAlignmentFrame(int64_t next_offset, AlignedBuffer* out) {
  const int64_t padding = (-next_offset) & (ipc::kBufferAlignment - 1);
  if (padding == 0) return;
  uint8_t* frame = out->AppendUninitialized(kSkippableFrameHeaderSize + padding);
  bits::StoreUnaligned<uint32_t>(frame, kSkippableFrameMagic);
  bits::StoreUnaligned<uint32_t>(frame + 4, static_cast<uint32_t>(padding));
  std::memset(frame + kSkippableFrameHeaderSize, 0, static_cast<size_t>(padding));
}

void AppendDictionaryReference(const CompactSegmentDictionary& dictionary, AlignedBuffer* out) {
  uint8_t* frame = out->AppendUninitialized(kDictionaryReferenceSize);
  bits::StoreUnaligned<uint32_t>(frame, kDictionaryReferenceMagic);
  bits::StoreUnaligned<uint32_t>(frame + 4, 8);
  bits::StoreUnaligned<uint32_t>(frame + 8, static_cast<uint32_t>(dictionary.size));
  bits::StoreUnaligned<uint32_t>(frame + 12, dictionary.hash);
}

Result<CompactSegmentExtent> MeasureCompactSegment(const uint8_t* data, int64_t size,
                                                   int64_t max_content_bytes) {
  CompactSegmentExtent extent;
  if (StartsDictionaryReference(data, size)) {
    if (size < kDictionaryReferenceSize || bits::LoadUnaligned<uint32_t>(data + 4) != 8) {
      return Status::Corrupt("byte 0: a dictionary reference must be a skippable frame of 8 ",
                             "bytes");
    }
    extent.dictionary = CompactSegmentDictionary{bits::LoadUnaligned<uint32_t>(data + 8),
                                                 bits::LoadUnaligned<uint32_t>(data + 12)};
    extent.frame_offset = kDictionaryReferenceSize;
  }
  SLUICE_ASSIGN_OR_RAISE(
      extent.frame, MeasureCompressedFrame(data + extent.frame_offset, size - extent.frame_offset));
  if (extent.frame.content_size < 0) {
    return Status::Corrupt("the frame of a compact segment must declare its content size");
  }
  if (extent.frame.content_size > max_content_bytes) {
    return Status::Corrupt("a compact segment of ", extent.frame.content_size,
                           " bytes is larger than the limit of ", max_content_bytes, " bytes");
  }
  int64_t end = extent.frame_offset + extent.frame.compressed_size;
  if (size - end >= kSkippableFrameHeaderSize &&
      bits::LoadUnaligned<uint32_t>(data + end) == kSkippableFrameMagic) {
    const int64_t skipped = bits::LoadUnaligned<uint32_t>(data + end + 4);
    if (skipped > size - end - kSkippableFrameHeaderSize) {
      return Status::Corrupt("compressed frame: byte ", end,
                             ": a skippable frame runs past the end of the input");
    }
    end += kSkippableFrameHeaderSize + skipped;
  }
  extent.size = end;
  return extent;
}

}  // namespace sluice
