#include "sluice/ipc/message_reader.h"

#include <cstring>
#include <vector>

#include "message_metadata_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::ipc {

namespace {

// Flatbuffer verification bounds: far above real metadata, low enough to bound corrupt input.
constexpr flatbuffers::uoffset_t kMaxFlatbufferDepth = 128;
constexpr flatbuffers::uoffset_t kMaxFlatbufferTables = 1u << 20;
constexpr char kFileMagic[] = "ARROW1";

}  // namespace

bool StartsWithFileMagic(const uint8_t* data, int64_t size) {
  return size >= kFileMagicPaddedSize && std::memcmp(data, kFileMagic, 6) == 0;
}

bool VerifyMessageMetadata(const uint8_t* metadata, size_t size) {
  flatbuffers::Verifier verifier(metadata, size, kMaxFlatbufferDepth, kMaxFlatbufferTables);
  return fb::VerifyMessageBuffer(verifier);
}

Status UnsupportedMetadataVersion(fb::MetadataVersion version, const std::string& source,
                                  int64_t offset) {
  return Status::Corrupt(source, ": byte ", offset, ": unsupported metadata version ",
                         static_cast<int>(version) + 1, " (expected V4 or V5)");
}

Result<MessagePrefix> internal::ReadAnyMessagePrefix(const uint8_t* data, int64_t available,
                                                     const std::string& source, int64_t offset,
                                                     bool metadata_must_fit) {
  auto corrupt = [&](auto&&... parts) {
    return Status::Corrupt(source, ": byte ", offset, ": ", parts...);
  };
  if (available < 4) {
    if (available == 0) return corrupt("the stream ends without an end-of-stream marker");
    return corrupt("truncated message prefix: ", available, " bytes left, expected at least 4");
  }
  MessagePrefix prefix;
  prefix.size = 4;
  int32_t length = bits::LoadUnaligned<int32_t>(data);
  if (static_cast<uint32_t>(length) == kContinuationMarker) {
    if (available < 8) {
      return corrupt("truncated message prefix: ", available, " bytes left, expected 8");
    }
    length = bits::LoadUnaligned<int32_t>(data + 4);
    prefix.size = 8;
  }
  if (length < 0) return corrupt("negative message metadata length ", length);
  if (metadata_must_fit && length > available - prefix.size) {
    return corrupt("message metadata length ", length, " exceeds the ", available - prefix.size,
                   " bytes left");
  }
  prefix.metadata_size = length;
  return prefix;
}

Result<MessageHeader> ReadMessageHeader(const uint8_t* metadata, int64_t size,
                                        const std::string& source, int64_t offset) {
  auto corrupt = [&](auto&&... parts) {
    return Status::Corrupt(source, ": byte ", offset, ": ", parts...);
  };
  // Flatbuffers are read in place, which needs 8-byte alignment relative to the buffer.
  std::vector<uint64_t> aligned;
  if (!IsBufferAligned(metadata)) {
    aligned.resize(static_cast<size_t>((size + 7) / 8));
    std::memcpy(aligned.data(), metadata, static_cast<size_t>(size));
    metadata = reinterpret_cast<const uint8_t*>(aligned.data());
  }
  if (!VerifyMessageMetadata(metadata, static_cast<size_t>(size))) {
    return corrupt("message metadata (", size,
                   " bytes) is not a valid Arrow IPC Message "
                   "flatbuffer");
  }
  const fb::Message* message = fb::GetMessage(metadata);
  SLUICE_RETURN_NOT_OK(CheckMetadataVersion(*message, source, offset));
  MessageHeader header;
  header.body_length = message->body_length();
  if (header.body_length < 0) return corrupt("negative message body length ", header.body_length);
  header.type_name = fb::EnumNameMessageHeader(message->header_type());
  const fb::RecordBatch* batch = nullptr;
  // A header type names the table the header holds; a message whose table is missing (the
  // verifier accepts an absent union member) is refused here, so no reader meets a null header.
  switch (message->header_type()) {
    case fb::MessageHeader::Schema:
      header.type = MessageType::kSchema;
      if (message->header_as_Schema() == nullptr) {
        return corrupt("a Schema message without its schema");
      }
      break;
    case fb::MessageHeader::RecordBatch:
      header.type = MessageType::kRecordBatch;
      batch = message->header_as_RecordBatch();
      if (batch == nullptr) return corrupt("a RecordBatch message without its header");
      break;
    case fb::MessageHeader::DictionaryBatch: {
      header.type = MessageType::kDictionaryBatch;
      const fb::DictionaryBatch* dictionary = message->header_as_DictionaryBatch();
      batch = dictionary != nullptr ? dictionary->data() : nullptr;
      if (batch == nullptr) return corrupt("a DictionaryBatch message without its batch");
      break;
    }
    default:
      header.type = MessageType::kOther;
      break;
  }
  if (batch != nullptr) {
    header.rows = batch->length();
    if (header.rows < 0) return corrupt("negative row count ", header.rows);
    if (const fb::BodyCompression* compression = batch->compression()) {
      switch (compression->codec()) {
        case fb::CompressionType::LZ4_FRAME:
          header.codec = CompressionCodec::kLz4Frame;
          break;
        case fb::CompressionType::ZSTD:
          header.codec = CompressionCodec::kZstd;
          break;
        default:
          return corrupt("unknown body compression codec ", static_cast<int>(compression->codec()));
      }
    }
  }
  return header;
}

}  // namespace sluice::ipc
