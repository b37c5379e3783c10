// MessageReader: the framing of Arrow IPC messages, read one at a time from untrusted bytes.
//
// An Arrow IPC stream is a sequence of messages: the continuation marker 0xFFFFFFFF (absent in
// streams written before Arrow 0.15), an int32 metadata length, the metadata (a flatbuffer
// Message, padded), then the body whose length the metadata gives; a zero length ends the
// stream. An Arrow IPC file holds such a stream after its "ARROW1" magic. This is the one place
// that reads the framing: the segment layout (sluice inspect), the stream read from a file
// descriptor (sluice write's input) and the segment decoder use it. Every length is
// checked against the bytes there are, the flatbuffer is verified before it is read, and
// errors name the source and the byte offset.
#pragma once

#include <cstdint>
#include <string>

#include "sluice/base/bit_ops.h"
#include "sluice/base/result.h"
#include "sluice/codec/compression.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::ipc {

/// Bytes of the file format's magic ("ARROW1" and two bytes of padding).
inline constexpr int64_t kFileMagicPaddedSize = 8;

/// Returns whether `data[0..size)` starts with the Arrow IPC file format's magic.
bool StartsWithFileMagic(const uint8_t* data, int64_t size);

/// The prefix of a message: how long it is, and how long its metadata is.
struct MessagePrefix {
  /// 8 with the continuation marker, 4 without (before Arrow 0.15).
  int64_t size = 0;
  /// The metadata's length; 0 marks the end of the stream.
  int64_t metadata_size = 0;
  bool end_of_stream() const { return metadata_size == 0; }
};

/// Reads the prefix at `data`, where `available` bytes remain (at least 4 are needed; 8 with a
/// continuation marker). `offset` is where `data` lies in `source`, for errors. The metadata
/// length is checked against `available` only when `metadata_must_fit` (a whole stream in
/// memory); a reader of a descriptor checks what it reads itself.
/// (The common case is inline: the decoder reads a prefix per block.)
inline Result<MessagePrefix> ReadMessagePrefix(const uint8_t* data, int64_t available,
                                               const std::string& source, int64_t offset,
                                               bool metadata_must_fit = true);

namespace internal {
/// ReadMessagePrefix for every prefix: the pre-0.15 framing, and the errors.
Result<MessagePrefix> ReadAnyMessagePrefix(const uint8_t* data, int64_t available,
                                           const std::string& source, int64_t offset,
                                           bool metadata_must_fit);
}  // namespace internal

inline Result<MessagePrefix> ReadMessagePrefix(const uint8_t* data, int64_t available,
                                               const std::string& source, int64_t offset,
                                               bool metadata_must_fit) {
  if (available >= 8 && bits::LoadUnaligned<uint32_t>(data) == kContinuationMarker) {
    const int32_t length = bits::LoadUnaligned<int32_t>(data + 4);
    if (length >= 0 && (!metadata_must_fit || length <= available - 8)) {
      return MessagePrefix{8, length};
    }
  }
  return internal::ReadAnyMessagePrefix(data, available, source, offset, metadata_must_fit);
}

/// What a message's metadata says.
enum class MessageType { kSchema, kDictionaryBatch, kRecordBatch, kOther };

struct MessageHeader {
  MessageType type = MessageType::kOther;
  /// The type's name as the flatbuffer declares it ("RecordBatch", "Tensor", ...).
  std::string type_name;
  int64_t body_length = 0;
  /// A RecordBatch's (or DictionaryBatch's) row count, and the codec of its body.
  int64_t rows = 0;
  CompressionCodec codec = CompressionCodec::kNone;
};

/// Verifies the metadata flatbuffer `metadata[0..size)` (any alignment) and reads its header:
/// metadata version V4 or V5, a non-negative body length, a known body codec.
Result<MessageHeader> ReadMessageHeader(const uint8_t* metadata, int64_t size,
                                        const std::string& source, int64_t offset);

}  // namespace sluice::ipc
