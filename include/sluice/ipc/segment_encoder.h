// SegmentEncoder: writes partition segments as Arrow IPC streams.
//
// A segment is one Schema message, RecordBatch messages ("blocks") and the end-of-stream
// marker: a stream any Arrow reader opens. The encoder is made once per map task and schema and
// reused for every block of every partition:
// - the Schema message is encoded once (schema_message());
// - the RecordBatch metadata is a flatbuffer built once per encoder; a block copies it and
//   patches its lengths and offsets in place, so producing metadata costs no schema work;
// - rows are gathered from the input batches straight to their final place (the output when
//   there is no codec, the codec's input otherwise), once;
// - the codec context is made once and reused, so encoding a warm block allocates nothing.
// An encoder is used by one thread at a time; a writer with a second thread gives it an encoder
// of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/codec/compression.h"
#include "sluice/format/record_batch.h"

namespace sluice {

struct SegmentEncoderOptions {
  /// Codec of every body buffer (Arrow's LZ4_FRAME or ZSTD). Default none: shuffle data is often
  /// compressed by the engine already, and codec time dominates small blocks.
  CompressionCodec codec = CompressionCodec::kNone;
  /// zstd level (1..22); 1 is the fastest and what Spark uses by default.
  int compression_level = 1;
  /// Buffers smaller than this are stored raw (Arrow's -1 length) instead of compressed. A codec
  /// call costs microseconds of fixed work and saves a few bytes on tiny buffers; at high
  /// partition counts most buffers are tiny. 256 bytes.
  int64_t min_compress_bytes = 256;
};

/// What an encoder has done since it was made.
struct SegmentEncoderMetrics {
  int64_t blocks = 0;
  int64_t rows = 0;
  /// Body bytes before compression.
  int64_t uncompressed_body_bytes = 0;
  /// Message bytes appended (metadata and bodies).
  int64_t encoded_bytes = 0;
  /// Time in codec calls. (Gathering is not timed apart; callers time whole blocks or flushes.)
  int64_t compress_nanos = 0;
};

class SegmentEncoder {
 public:
  ~SegmentEncoder();

  /// Makes an encoder for batches of `schema`.
  static Result<std::unique_ptr<SegmentEncoder>> Make(const SchemaPtr& schema,
                                                      const SegmentEncoderOptions& options = {});

  const SchemaPtr& schema() const { return schema_; }
  const SegmentEncoderOptions& options() const { return options_; }

  /// Returns the framed Schema message that starts every segment.
  std::span<const uint8_t> schema_message() const;

  /// Binds the batches that AppendRows selects rows from: sources[i] names batches[sources[i]].
  /// They must have this encoder's schema and stay alive until the next Bind (or
  /// AppendRecordBatch, which binds its own batch). Costs columns x batches, once per flush.
  void BindBatches(std::span<const RecordBatch* const> batches);

  /// Appends one RecordBatch message holding rows `rows[i]` of bound batch `sources[i]`, in
  /// order, to `out`. `out`'s size must be a multiple of 8 (as it is after appending any
  /// message), so buffers stay aligned. The `readable_ahead` entries of `sources` and `rows`
  /// after the block's `count` may be read too and name rows of the bound batches (the rows of
  /// the blocks that come next): the gather asks for their memory ahead, so that the cache
  /// misses of many short blocks overlap.
  Status AppendRows(const uint32_t* sources, const uint32_t* rows, int64_t count,
                    AlignedBuffer* out, int64_t readable_ahead = 0);

  /// Appends one RecordBatch message holding all of `batch` (zero-copy where the buffers line
  /// up). Replaces the binding.
  Status AppendRecordBatch(const RecordBatch& batch, AlignedBuffer* out);

  /// Appends a whole segment: schema, one block per batch (empty batches included), end of
  /// stream.
  Status AppendSegment(std::span<const RecordBatch> batches, AlignedBuffer* out);

  const SegmentEncoderMetrics& metrics() const { return metrics_; }

 private:
  class Impl;
  SegmentEncoder(SchemaPtr schema, const SegmentEncoderOptions& options);

  SchemaPtr schema_;
  SegmentEncoderOptions options_;
  SegmentEncoderMetrics metrics_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
