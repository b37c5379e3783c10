// SegmentDecoder: reads Arrow IPC streams (partition segments) into batches, treating every
// byte as untrusted.
//
// A reduce task decodes thousands of small segments, so the decoder is made once per reader
// and reused for all of them:
// - the Schema message of a segment is looked up by its bytes in a cache: a stream of segments
//   with the same schema verifies and parses it once;
// - one decompression context per codec, reused;
// - each compressed buffer is decompressed once, straight into its final place in one arena
//   per block (the 8-byte prefix gives its size); uncompressed buffers are used in place;
// - arenas come from a pool of the decoder's and go back to it when the last batch viewing one
//   is dropped (on any thread), so a warm decoder allocates no block memory; it pools up to
//   8 MiB of arenas;
// - batches are returned zero-copy over the arena or the input bytes.
// Every length, offset, count and buffer bound is checked, and each array is validated against
// its type before it is returned. Errors name the source and the byte offset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"
#include "sluice/ipc/compact_segment.h"

namespace sluice {

struct SegmentDecoderOptions {
  /// Upper bound of the bytes one block may decompress to. Protects against a corrupt length
  /// prefix asking for an absurd allocation. Default 2 GiB, above any block a writer makes.
  int64_t max_block_bytes = int64_t{2} << 30;
  /// Whether bytes may follow a stream's end-of-stream marker. Default false: trailing bytes are
  /// an error, which catches wrong segment bounds. True lets a reader decode streams laid back
  /// to back without knowing where each ends (a fetched block of several partitions): Next()
  /// stops at each marker and position() says where the next stream starts.
  bool allow_trailing_bytes = false;
};

/// What a decoder has done since it was made.
struct SegmentDecoderMetrics {
  int64_t segments = 0;
  /// RecordBatch messages decoded and their rows.
  int64_t blocks = 0;
  int64_t rows = 0;
  /// DictionaryBatch messages decoded (not counted as blocks).
  int64_t dictionary_batches = 0;
  /// Schema messages parsed (cache misses) and found in the cache (hits).
  int64_t schemas_parsed = 0;
  int64_t schemas_cached = 0;
  /// Messages run through the flatbuffers verifier. A RecordBatch message laid out as the last
  /// one verified (every block of a stream, as a rule) is checked by comparing bytes instead.
  int64_t messages_verified = 0;
  int64_t decompressed_bytes = 0;
  /// Time in the loop that decompresses (or copies misaligned) buffers into block arenas.
  int64_t decompress_nanos = 0;
  /// Block arenas allocated; every other block decompressed into an arena reused from the pool.
  int64_t arenas_made = 0;
};

class SegmentDecoder {
 public:
  explicit SegmentDecoder(const SegmentDecoderOptions& options = {});
  ~SegmentDecoder();
  SegmentDecoder(const SegmentDecoder&) = delete;
  SegmentDecoder& operator=(const SegmentDecoder&) = delete;

  /// Starts decoding the stream in `data[0..size)`. `owner` keeps the bytes alive for as long as
  /// batches point into them (nullptr when the caller guarantees that itself). `source` names
  /// the bytes in errors (for example "map output 3 (shuffle_0_3_0.data) partition 7"), and
  /// `base_offset` is added to byte offsets in errors (the segment's position in its file).
  /// An Arrow IPC file (magic "ARROW1") is read as the stream it contains.
  Status Begin(const uint8_t* data, int64_t size, MemoryOwner owner, std::string source,
               int64_t base_offset = 0);

  /// Continues the stream whose Schema message the decoder has read with the messages in
  /// `data[0..size)` (RecordBatch messages, and the end-of-stream marker when the stream ends
  /// there): a stream that arrives a message at a time, as from a pipe, decodes each message
  /// from the buffer it was read into. Invalid before a schema was read.
  Status Continue(const uint8_t* data, int64_t size, MemoryOwner owner, std::string source,
                  int64_t base_offset);

  /// Returns the segment's schema, or null before the Schema message has been read. Next()
  /// reads it first; ReadSchema() reads only it.
  const SchemaPtr& schema() const;
  Status ReadSchema();

  /// Returns the next batch, or std::nullopt at the end-of-stream marker. A stream with
  /// dictionary-encoded fields (an Arrow IPC stream from another writer) is returned with their
  /// values: each DictionaryBatch message sets, extends (delta) or replaces a dictionary, and
  /// each batch's indices are unpacked to the values they select.
  Result<std::optional<RecordBatch>> Next();

  /// Reads one DictionaryBatch message (after Continue with a buffer that holds it) into the
  /// stream's dictionaries. Invalid for a stream without dictionary-encoded fields.
  Status ReadDictionaryBatch();

  /// Returns the offset just after the end-of-stream marker once Next() has returned nullopt.
  int64_t position() const;

  /// Makes `schema`'s Schema message, as Sluice encodes it, known as a dictionary that compact
  /// segments may be compressed against (sluice/ipc/compact_segment.h); it is encoded when a
  /// segment first names a dictionary the decoder does not know. Every Schema message the
  /// decoder reads is known that way too: a reader given its schema up front, or that reads a
  /// map output's first segment first, decodes all of its segments. Invalid for null.
  Status AddSchema(SchemaPtr schema);
  /// Returns whether the decoder knows the dictionary a compact segment names.
  bool KnowsDictionary(const CompactSegmentDictionary& dictionary);

  /// Gives the decoder a batch's vectors to build a later batch in (see
  /// RecordBatch::TakeStorage): a consumer that hands back each batch it is done with spares
  /// the decoder two allocations and two frees per block, and the work of destroying and
  /// building its columns. It keeps one of each.
  void RecycleStorage(RecordBatch::Storage&& storage);

  const SegmentDecoderMetrics& metrics() const;
  /// Returns the bytes of the decoder's pool of decompression arenas, lent to batches or free.
  int64_t pooled_arena_bytes() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
