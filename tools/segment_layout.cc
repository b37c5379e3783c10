#include "segment_layout.h"

#include <cstring>
#include <set>

#include "arrow_message_generated.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::cli {

namespace {

// Flatbuffer verification bounds: far above real metadata, low enough to bound corrupt input.
constexpr flatbuffers::uoffset_t kMaxFlatbufferDepth = 128;
constexpr flatbuffers::uoffset_t kMaxFlatbufferTables = 1u << 20;
// The file format starts with "ARROW1" padded to 8 bytes.
constexpr char kFileMagic[] = "ARROW1";
constexpr int64_t kFileMagicPaddedSize = 8;

int32_t LoadInt32(const uint8_t* bytes) {
  int32_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

}  // namespace

std::string SegmentLayout::CodecNames() const {
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

Result<SegmentLayout> ReadSegmentLayout(const uint8_t* data, int64_t size,
                                        const std::string& source, int64_t base_offset) {
  SegmentLayout layout;
  if (size == 0) return layout;
  int64_t position = 0;
  if (size >= kFileMagicPaddedSize && std::memcmp(data, kFileMagic, 6) == 0) {
    position = kFileMagicPaddedSize;
  }
  auto corrupt = [&](int64_t offset, auto&&... parts) {
    return Status::Corrupt(source, ": byte ", base_offset + offset, ": ", parts...);
  };
  bool seen_schema = false;
  while (true) {
    const int64_t start = position;
    if (size - position < 4) {
      return corrupt(position, position == size ? "the stream ends without an end-of-stream marker"
                                                : "truncated message prefix");
    }
    int32_t metadata_size = LoadInt32(data + position);
    int64_t prefix = 4;
    if (static_cast<uint32_t>(metadata_size) == ipc::kContinuationMarker) {
      if (size - position < 8) return corrupt(position, "truncated message prefix");
      metadata_size = LoadInt32(data + position + 4);
      prefix = 8;
    }
    if (metadata_size == 0) {
      layout.end = position + prefix;
      if (!seen_schema) return corrupt(start, "the stream ends before its Schema message");
      return layout;
    }
    if (metadata_size < 0 || metadata_size > size - position - prefix) {
      return corrupt(position, "message metadata length ", metadata_size, " exceeds the ",
                     size - position - prefix, " bytes left");
    }
    const uint8_t* metadata = data + position + prefix;
    flatbuffers::Verifier verifier(metadata, static_cast<size_t>(metadata_size),
                                   kMaxFlatbufferDepth, kMaxFlatbufferTables);
    if (!fb::VerifyMessageBuffer(verifier)) {
      return corrupt(position + prefix, "message metadata (", metadata_size,
                     " bytes) is not a valid Arrow IPC Message flatbuffer");
    }
    const fb::Message* message = fb::GetMessage(metadata);
    const int64_t body_length = message->body_length();
    const int64_t body_start = position + prefix + metadata_size;
    if (body_length < 0 || body_length > size - body_start) {
      return corrupt(position, "message body length ", body_length, " exceeds the ",
                     size - body_start, " bytes left");
    }
    switch (message->header_type()) {
      case fb::MessageHeader::Schema:
        if (seen_schema) return corrupt(start, "a second Schema message in one stream");
        seen_schema = true;
        layout.schema_bytes = body_start + body_length - start;
        break;
      case fb::MessageHeader::RecordBatch: {
        if (!seen_schema) return corrupt(start, "a RecordBatch message before the Schema");
        const fb::RecordBatch* batch = message->header_as_RecordBatch();
        BlockLayout block;
        block.offset = base_offset + start;
        block.rows = batch->length();
        block.metadata_bytes = prefix + metadata_size;
        block.body_bytes = body_length;
        if (block.rows < 0) return corrupt(start, "negative row count ", block.rows);
        if (const fb::BodyCompression* compression = batch->compression()) {
          switch (compression->codec()) {
            case fb::CompressionType::LZ4_FRAME:
              block.codec = CompressionCodec::kLz4Frame;
              break;
            case fb::CompressionType::ZSTD:
              block.codec = CompressionCodec::kZstd;
              break;
            default:
              return corrupt(start, "unknown compression codec ",
                             static_cast<int>(compression->codec()));
          }
        }
        layout.rows += block.rows;
        layout.blocks.push_back(block);
        break;
      }
      default:
        return corrupt(start, "unexpected message type ", static_cast<int>(message->header_type()));
    }
    position = body_start + body_length;
  }
}

}  // namespace sluice::cli
