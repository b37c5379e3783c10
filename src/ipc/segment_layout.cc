#include "sluice/ipc/segment_layout.h"

#include <optional>
#include <set>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/saturating_arithmetic.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/message_reader.h"

namespace sluice {

std::string SegmentLayout::CodecNames() const {
  if (compact_codec != CompressionCodec::kNone) {
    return std::string(CompressionCodecName(compact_codec)) + " compact";
  }
  if (blocks.empty()) return "-";
  std::set<CompressionCodec> codecs;
  for (const BlockLayout& block : blocks) codecs.insert(block.codec);
  std::string names;
  for (CompressionCodec codec : codecs) {
    if (!names.empty()) names += "+";
    names += CompressionCodecName(codec);
  }
  return names;
}

namespace {

struct DecompressedCompactSegment {
  CompactSegmentExtent extent;
  AlignedBuffer stream;
};

// Decompresses the compact segment in `data[0..size)` (compact segments are small).
Result<DecompressedCompactSegment> DecompressCompactSegment(const uint8_t* data, int64_t size,
                                                            const std::string& source,
                                                            int64_t base_offset,
                                                            std::span<const uint8_t> dictionary) {
  Result<CompactSegmentExtent> extent = MeasureCompactSegment(data, size);
  if (!extent.ok()) {
    return Status::Corrupt(source, ": byte ", base_offset,
                           ": compact segment: ", extent.status().message());
  }
  const CompressedFrame& frame = extent->frame;
  std::span<const uint8_t> dictionary_bytes;
  if (extent->dictionary.has_value()) {
    if (CompactSegmentDictionary::Of(dictionary) != *extent->dictionary) {
      return MissingDictionary(*extent->dictionary, source, base_offset,
                               "which was not given (the first message of the map output's data "
                               "file)");
    }
    dictionary_bytes = dictionary;
  }
  SLUICE_ASSIGN_OR_RAISE(auto decompressor, Decompressor::Make(frame.codec, dictionary_bytes));
  DecompressedCompactSegment segment{*extent, AlignedBuffer(frame.content_size)};
  Status status = decompressor->Decompress(data + extent->frame_offset, frame.compressed_size,
                                           segment.stream.data(), frame.content_size);
  if (!status.ok()) {
    return Status::Corrupt(source, ": byte ", base_offset, ": compact segment: ", status.message());
  }
  return segment;
}

// A compact segment's layout: the stream inside its frame, with the frame's codec and extent.
Result<SegmentLayout> ReadCompactSegmentLayout(const uint8_t* data, int64_t size,
                                               const std::string& source, int64_t base_offset,
                                               std::span<const uint8_t> dictionary) {
  SLUICE_ASSIGN_OR_RAISE(DecompressedCompactSegment segment,
                         DecompressCompactSegment(data, size, source, base_offset, dictionary));
  const CompressedFrame& frame = segment.extent.frame;
  const AlignedBuffer& stream = segment.stream;
  SLUICE_ASSIGN_OR_RAISE(
      SegmentLayout layout,
      ReadSegmentLayout(stream.data(), frame.content_size,
                        source + " (the stream inside the compact segment at byte " +
                            std::to_string(base_offset) + ")",
                        0));
  if (layout.end != frame.content_size) {
    return Status::Corrupt(source, ": byte ", base_offset, ": ", frame.content_size - layout.end,
                           " bytes follow the stream inside the compact segment");
  }
  layout.compact_codec = frame.codec;
  layout.end = segment.extent.size;
  return layout;
}

}  // namespace

Result<SegmentLayout> ReadSegmentLayout(const uint8_t* data, int64_t size,
                                        const std::string& source, int64_t base_offset,
                                        std::span<const uint8_t> dictionary) {
  SegmentLayout layout;
  if (size == 0) return layout;
  if (IsCompactSegment(data, size)) {
    return ReadCompactSegmentLayout(data, size, source, base_offset, dictionary);
  }
  int64_t position = ipc::StartsWithFileMagic(data, size) ? ipc::kFileMagicPaddedSize : 0;
  auto corrupt = [&](int64_t offset, auto&&... parts) {
    return Status::Corrupt(source, ": byte ", base_offset + offset, ": ", parts...);
  };
  bool seen_schema = false;
  while (true) {
    const int64_t start = position;
    SLUICE_ASSIGN_OR_RAISE(
        ipc::MessagePrefix prefix,
        ipc::ReadMessagePrefix(data + position, size - position, source, base_offset + position));
    if (prefix.end_of_stream()) {
      layout.end = position + prefix.size;
      if (!seen_schema) return corrupt(start, "the stream ends before its Schema message");
      return layout;
    }
    const int64_t metadata_offset = position + prefix.size;
    SLUICE_ASSIGN_OR_RAISE(ipc::MessageHeader header,
                           ipc::ReadMessageHeader(data + metadata_offset, prefix.metadata_size,
                                                  source, base_offset + metadata_offset));
    const int64_t body_start = metadata_offset + prefix.metadata_size;
    if (header.body_length > size - body_start) {
      return corrupt(position, "message body length ", header.body_length, " exceeds the ",
                     size - body_start, " bytes left");
    }
    switch (header.type) {
      case ipc::MessageType::kSchema:
        if (seen_schema) return corrupt(start, "a second Schema message in one stream");
        seen_schema = true;
        layout.schema_bytes = body_start + header.body_length - start;
        break;
      case ipc::MessageType::kRecordBatch: {
        if (!seen_schema) return corrupt(start, "a RecordBatch message before the Schema");
        BlockLayout block;
        block.offset = base_offset + start;
        block.rows = header.rows;
        block.metadata_bytes = prefix.size + prefix.metadata_size;
        block.body_bytes = header.body_length;
        block.codec = header.codec;
        layout.rows = SaturatingAdd(layout.rows, block.rows);
        layout.blocks.push_back(block);
        break;
      }
      case ipc::MessageType::kDictionaryBatch:
        // In an input stream from another writer (Sluice's segments carry none): its rows are
        // a dictionary's values, not the stream's.
        if (!seen_schema) return corrupt(start, "a DictionaryBatch message before the Schema");
        break;
      default:
        return corrupt(start, "unexpected ", header.type_name, " message");
    }
    position = body_start + header.body_length;
  }
}

Result<std::vector<uint8_t>> FirstSchemaMessage(const uint8_t* data, int64_t size,
                                                const std::string& source) {
  const uint8_t* stream = data;
  int64_t stream_size = size;
  std::optional<DecompressedCompactSegment> compact;
  if (IsCompactSegment(data, size)) {
    SLUICE_ASSIGN_OR_RAISE(compact, DecompressCompactSegment(data, size, source, 0, {}));
    stream = compact->stream.data();
    stream_size = compact->extent.frame.content_size;
  }
  const int64_t start =
      ipc::StartsWithFileMagic(stream, stream_size) ? ipc::kFileMagicPaddedSize : 0;
  SLUICE_ASSIGN_OR_RAISE(ipc::MessagePrefix prefix,
                         ipc::ReadMessagePrefix(stream + start, stream_size - start, source,
                                                compact.has_value() ? 0 : start));
  if (prefix.end_of_stream() || prefix.metadata_size > stream_size - start - prefix.size) {
    return Status::Corrupt(source, ": byte ", start, ": the segment does not start with a message");
  }
  const uint8_t* message = stream + start;
  return std::vector<uint8_t>(message, message + prefix.size + prefix.metadata_size);
}

}  // namespace sluice
