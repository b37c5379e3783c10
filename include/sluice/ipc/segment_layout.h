// SegmentLayout: the messages of one partition segment (an Arrow IPC stream), read from their
// metadata alone: where each block starts, how many rows it holds, which codec compressed it.
//
// `sluice inspect` describes map outputs with it without decompressing anything but compact
// segments (which are one frame around a small stream), and `sluice
// write` counts its input's rows from it (for progress). It checks the framing (every length
// inside the bytes, each flatbuffer verified) but not the bodies: decoding does that.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/codec/compression.h"

namespace sluice {

/// One RecordBatch message of a segment.
struct BlockLayout {
  /// Offset of the message prefix, counted from the segment's base offset.
  int64_t offset = 0;
  int64_t rows = 0;
  int64_t metadata_bytes = 0;
  int64_t body_bytes = 0;
  /// kNone for a body stored as plain IPC.
  CompressionCodec codec = CompressionCodec::kNone;
};

struct SegmentLayout {
  std::vector<BlockLayout> blocks;
  int64_t rows = 0;
  /// Bytes of the Schema message (prefix included).
  int64_t schema_bytes = 0;
  /// The offset just after the end-of-stream marker, relative to the segment's start (for a
  /// compact segment: just after the segment).
  int64_t end = 0;
  /// A compact segment's frame codec (sluice/ipc/compact_segment.h), else kNone. The blocks of a
  /// compact segment are those of the stream inside its frame, with offsets in that stream.
  CompressionCodec compact_codec = CompressionCodec::kNone;

  /// Returns the codecs of the blocks: "lz4", "none", "lz4+none" when mixed (a block whose
  /// buffers did not shrink is still a compressed block; mixing means different settings), or
  /// "-" when there are no blocks; "lz4 compact" or "zstd compact" for a compact segment.
  std::string CodecNames() const;
};

/// Walks the stream in `data[0..size)`. An empty span is an empty segment (no blocks). Errors
/// name `source` and the byte offset, counted from `base_offset`. An Arrow IPC file (ARROW1) is
/// walked as the stream it contains. `dictionary` is the map output's Schema message, for a
/// compact segment compressed against it (see FirstSchemaMessage).
Result<SegmentLayout> ReadSegmentLayout(const uint8_t* data, int64_t size,
                                        const std::string& source, int64_t base_offset = 0,
                                        std::span<const uint8_t> dictionary = {});

/// Returns the Schema message (framed, as it is in the stream) that the segment in
/// `data[0..size)` starts with: a map output's data file starts with its first non-empty
/// segment, whose Schema message the others may be compressed against. Decompresses a compact
/// segment. Errors as ReadSegmentLayout's.
Result<std::vector<uint8_t>> FirstSchemaMessage(const uint8_t* data, int64_t size,
                                                const std::string& source);

}  // namespace sluice
