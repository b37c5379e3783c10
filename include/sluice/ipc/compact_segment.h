// CompactSegment (the format): a small partition written as one compressed frame around a plain
// Arrow IPC stream, instead of an IPC stream whose every buffer is compressed on its own.
//
// At high partition counts most partitions hold a few rows, and Arrow's per-buffer compression
// costs more than it saves there: every segment repeats the Schema message (about 1 KiB for 16
// columns), every block its RecordBatch metadata, every buffer an 8-byte length prefix, a frame
// header and padding, and buffers of a few values barely compress. One frame over the whole
// stream compresses the metadata with the values. A compact segment is:
//
//   [a dictionary reference: a skippable frame, magic 0x184D2A51, of 8 bytes: the size and the
//   XXH32 (seed 0) of the dictionary, both uint32 little-endian]
//   one LZ4 frame or zstd frame (the map output's codec, content size declared), whose content
//   is an Arrow IPC stream without body compression: the Schema message, one RecordBatch, the
//   end-of-stream marker;
//   then, when another segment follows it in the data file, a skippable frame of 8 to 15 bytes
//   (magic 0x184D2A50) that starts the next one 8-byte aligned, where needed (AppendAlignmentFrame;
//   the data file's last segment has none).
//
// With a dictionary reference, the frame was compressed against a dictionary (LZ4's and zstd's
// raw-content dictionaries), one of two:
// - the map output's Schema message, the exact bytes that begin the stream inside, so the Schema
//   costs a few bytes instead of hundreds (figures: DEVELOPING.md). Where to find it: a map
//   output's data file begins with its first non-empty partition, which is never compressed
//   against the dictionary (an IPC stream, or a compact segment without a reference), and so
//   begins with the Schema message. Sluice's readers take it from there, from an earlier segment
//   they read, or from the schema they were given.
// - for a map output whose every reader is given the schema (the writer's readers_have_schema),
//   the given-schema dictionary (AppendGivenSchemaDictionary): the Schema message, then the
//   RecordBatch message of a template batch of that schema, so that the metadata of a batch of
//   a few rows, most of such a segment, costs a few bytes too. No segment holds it; readers
//   derive it from the schema they are given.
//
// It is told from an IPC stream by its first four bytes (an IPC stream starts with FF FF FF FF).
// Sluice's readers open both kinds. Any other reader needs one step first: decompress the frame
// (`lz4 -d`, `zstd -d`, pyarrow.input_stream(..., compression="lz4"), any LZ4 or zstd library,
// which all skip skippable frames; with a dictionary reference, `lz4 -d -D schema.bin` or
// `zstd -d -D schema.bin`, schema.bin holding the first message of the data file), and what
// comes out is a plain Arrow IPC stream. CompactSegmentEncoder writes them
// (sluice/ipc/compact_segment_encoder.h); SegmentDecoder reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/codec/compressed_frame.h"
#include "sluice/format/schema.h"

namespace sluice {

inline constexpr uint32_t kSkippableFrameMagic = 0x184D2A50;
inline constexpr uint32_t kDictionaryReferenceMagic = 0x184D2A51;
inline constexpr int64_t kSkippableFrameHeaderSize = 8;
inline constexpr int64_t kDictionaryReferenceSize = kSkippableFrameHeaderSize + 8;

/// Returns whether `data` starts a compact segment (a dictionary reference, or a compressed
/// frame's magic number).
bool IsCompactSegment(const uint8_t* data, int64_t size);

/// What a dictionary reference names: the dictionary's size and XXH32 (seed 0).
struct CompactSegmentDictionary {
  int64_t size = 0;
  uint32_t hash = 0;

  static CompactSegmentDictionary Of(std::span<const uint8_t> dictionary);
  bool operator==(const CompactSegmentDictionary&) const = default;
};

/// Returns what the dictionary reference at the start of `data[0..size)` names, or nullopt when
/// there is none (or it is too short to be one: MeasureCompactSegment reports that).
std::optional<CompactSegmentDictionary> DictionaryReferenceAt(const uint8_t* data, int64_t size);

/// The error for a compact segment at byte `offset` of `source` compressed against `dictionary`
/// that the reader does not have; `what_to_do` ends it.
Status MissingDictionary(const CompactSegmentDictionary& dictionary, const std::string& source,
                         int64_t offset, std::string_view what_to_do);

/// Appends the given-schema dictionary of `schema` to `out`: its framed Schema message, then the
/// plain RecordBatch message (no codec) of one row whose every value is empty (zero, an empty
/// string or list, a struct of empty values; never null), as SegmentEncoder encodes it. Writer
/// and reader derive the same bytes from the same schema; one that derives others finds no
/// dictionary of the name the segment gives, and refuses it.
Status AppendGivenSchemaDictionary(const SchemaPtr& schema, AlignedBuffer* out);

/// Appends to `out` a skippable frame that brings `next_offset`, the file offset where the next
/// byte appended to `out` lands, to a multiple of 8, when it is not one.
void AppendAlignmentFrame(int64_t next_offset, AlignedBuffer* out);

/// Appends a dictionary reference naming `dictionary` to `out`.
void AppendDictionaryReference(const CompactSegmentDictionary& dictionary, AlignedBuffer* out);

/// The frame of the compact segment at the start of `data[0..size)`, and the bytes the segment
/// spans (its alignment padding included). Corrupt, naming the byte, when it is malformed, and
/// when its frame does not declare its content size or declares more than
/// `max_content_bytes` (what a reader is willing to decompress it to).
/// A skippable frame that ends the segment has magic kSkippableFrameMagic (any other magic
/// starts the next segment: kDictionaryReferenceMagic does), and says how many bytes of zeros
/// follow its 8-byte header.
struct CompactSegmentExtent {
  /// The dictionary the frame was compressed against, if any.
  std::optional<CompactSegmentDictionary> dictionary;
  /// Where the compressed frame starts (after the dictionary reference).
  int64_t frame_offset = 0;
  CompressedFrame frame;
  int64_t size = 0;
};
Result<CompactSegmentExtent> MeasureCompactSegment(const uint8_t* data, int64_t size,
                                                   int64_t max_content_bytes = INT64_MAX);

}  // namespace sluice
