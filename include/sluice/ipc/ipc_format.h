// Constants of the Arrow IPC stream format that segments follow.
//
// A partition segment is an Arrow IPC stream: a Schema message, RecordBatch messages, and the
// end-of-stream marker. Each message is: the continuation marker 0xFFFFFFFF, a little-endian
// int32 metadata length (the flatbuffer plus padding, so the body starts 8-byte aligned), the
// flatbuffer Message, padding, then the body.
#pragma once

#include <array>
#include <cstdint>

namespace sluice::ipc {

/// Marks the start of a message (since Arrow 0.15).
inline constexpr uint32_t kContinuationMarker = 0xFFFFFFFFu;

/// Buffers and message bodies are 8-byte aligned: Arrow's minimum, which keeps small blocks
/// small (the reference implementation's 64-byte padding made wide small blocks mostly padding).
inline constexpr int64_t kBufferAlignment = 8;

/// Whether `pointer` sits at kBufferAlignment, as a buffer (or metadata) read in place must.
inline bool IsBufferAligned(const uint8_t* pointer) {
  return (reinterpret_cast<uintptr_t>(pointer) & (kBufferAlignment - 1)) == 0;
}

/// Size of the prefix before each message's flatbuffer: continuation marker and length.
inline constexpr int64_t kMessagePrefixSize = 8;

/// Size of the uncompressed-length prefix of each compressed body buffer.
inline constexpr int64_t kCompressedLengthPrefixSize = 8;

/// An uncompressed-length prefix of -1 marks a buffer stored without compression.
inline constexpr int64_t kUncompressedBufferMarker = -1;

/// The end-of-stream marker: continuation marker and a zero length.
inline constexpr std::array<uint8_t, 8> kEndOfStream = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};

}  // namespace sluice::ipc
