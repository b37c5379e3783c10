// CompactSegment (the format): a small partition written as one compressed frame around a plain
// Arrow IPC stream, instead of an IPC stream whose every buffer is compressed on its own.
//
// At high partition counts most partitions hold a few rows, and Arrow's per-buffer compression
// costs more than it saves there: every segment repeats the Schema message (about 1 KiB for 16
// columns), every block its RecordBatch metadata, every buffer an 8-byte length prefix, a frame
// header and padding, and buffers of a few values barely compress. One frame over the whole
// stream compresses the metadata with the values. A compact segment is:
//
//   one LZ4 frame or zstd frame (the map output's codec, content size declared), whose content
//   is an Arrow IPC stream without body compression: the Schema message, one RecordBatch, the
//   end-of-stream marker; then, to keep the next segment 8-byte aligned, a skippable frame of
//   8 to 15 bytes (magic 0x184D2A50, which LZ4 and zstd decoders both skip) when needed.
//
// It is told from an IPC stream by its first four bytes (an IPC stream starts with FF FF FF FF).
// Sluice's readers open both kinds. Any other reader needs one step first: decompress the frame
// (`lz4 -d`, `zstd -d`, pyarrow.input_stream(..., compression="lz4"), any LZ4 or zstd library),
// and what comes out is a plain Arrow IPC stream. CompactSegmentEncoder writes them
// (sluice/ipc/compact_segment_encoder.h); SegmentDecoder reads them.
#pragma once

#include <cstdint>

#include "sluice/base/result.h"
#include "sluice/codec/compressed_frame.h"

namespace sluice {

/// Returns whether `data` starts a compact segment (a compressed frame's magic number).
inline bool IsCompactSegment(const uint8_t* data, int64_t size) {
  return FrameCodecAt(data, size) != CompressionCodec::kNone;
}

/// The frame of the compact segment at the start of `data[0..size)`, and the bytes the segment
/// spans (its alignment padding included). Corrupt, naming the byte, when it is malformed, and
/// when its frame does not declare its content size or declares more than
/// `max_content_bytes` (what a reader is willing to decompress it to).
/// A skippable frame that ends the segment has this magic number, and says how many bytes of
/// zeros follow its 8-byte header.
struct CompactSegmentExtent {
  CompressedFrame frame;
  int64_t size = 0;
};
Result<CompactSegmentExtent> MeasureCompactSegment(const uint8_t* data, int64_t size,
                                                   int64_t max_content_bytes = INT64_MAX);

inline constexpr uint32_t kSkippableFrameMagic = 0x184D2A50;
inline constexpr int64_t kSkippableFrameHeaderSize = 8;

}  // namespace sluice
