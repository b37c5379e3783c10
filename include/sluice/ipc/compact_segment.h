// Compact segments: a small partition written as one compressed frame around a plain Arrow IPC
// stream, instead of an IPC stream whose every buffer is compressed on its own.
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
// and what comes out is a plain Arrow IPC stream.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/codec/compressed_frame.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice {

/// Returns whether `data` starts a compact segment (a compressed frame's magic number).
inline bool IsCompactSegment(const uint8_t* data, int64_t size) {
  return FrameCodecAt(data, size) != CompressionCodec::kNone;
}

/// The frame of the compact segment at the start of `data[0..size)`, and the bytes the segment
/// spans (its alignment padding included). Corrupt, naming the byte, when it is malformed.
struct CompactSegmentExtent {
  CompressedFrame frame;
  int64_t size = 0;
};
Result<CompactSegmentExtent> MeasureCompactSegment(const uint8_t* data, int64_t size);

/// Writes compact segments of one schema and codec. Made once per map task, like the
/// SegmentEncoder beside it; encoding a warm segment allocates nothing but the merged batch.
class CompactSegmentEncoder {
 public:
  /// `options.codec` must be LZ4_FRAME or ZSTD.
  static Result<std::unique_ptr<CompactSegmentEncoder>> Make(SchemaPtr schema,
                                                             const SegmentEncoderOptions& options);
  ~CompactSegmentEncoder();

  /// The encoder of plain RecordBatch messages (no codec) that AppendSegment and
  /// AppendCompressed take: a writer encodes held rows with it.
  SegmentEncoder* plain_encoder();

  /// Appends one compact segment holding the rows of `messages` (plain RecordBatch messages of
  /// this schema, in order) as one batch. `out`'s size stays a multiple of 8.
  Status AppendSegment(std::span<const std::span<const uint8_t>> messages, AlignedBuffer* out);

  /// Appends the rows of `messages` re-encoded as RecordBatch messages compressed with the
  /// codec, one per message: a partition too large to be compact keeps its plain pieces this way.
  Status AppendCompressed(std::span<const std::span<const uint8_t>> messages, AlignedBuffer* out);

  /// Time in codec calls.
  int64_t compress_nanos() const;

 private:
  class Impl;
  explicit CompactSegmentEncoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
