// CompressedFrame: where one compressed frame (an LZ4 frame or a zstd frame) that starts a byte
// range ends, and what its header says it holds, found without decompressing it.
//
// A compact partition segment (see sluice/ipc/compact_segment.h) is one such frame around an
// Arrow IPC stream. A reader that meets one must know the frame's extent (segments may lie back
// to back in one fetched block) and the size to decompress it to before it allocates.
#pragma once

#include <cstdint>

#include "sluice/base/result.h"
#include "sluice/codec/compression.h"

namespace sluice {

struct CompressedFrame {
  CompressionCodec codec = CompressionCodec::kNone;
  /// Bytes of the frame, from its magic number to its end (content checksum included).
  int64_t compressed_size = 0;
  /// The content size the frame's header declares; -1 when it declares none.
  int64_t content_size = -1;
};

/// Returns the codec whose frame magic number starts `data` (LZ4 frame: 04 22 4D 18, zstd:
/// 28 B5 2F FD), or kNone.
CompressionCodec FrameCodecAt(const uint8_t* data, int64_t size);

/// Walks the frame at the start of `data[0..size)`: its header, and the block headers up to its
/// end. Returns Corrupt, naming the byte, for a frame that is malformed or runs past `size`.
Result<CompressedFrame> MeasureCompressedFrame(const uint8_t* data, int64_t size);

}  // namespace sluice
