// CompactSegmentEncoder: writes compact segments (sluice/ipc/compact_segment.h), merging a
// partition's plain pieces into one batch first.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice {

/// How a compact segment holds the Schema message its stream starts with.
enum class CompactSegmentSchema : uint8_t {
  kInside,    // compressed with the rest: the segment stands alone
  kReferred,  // compressed against the Schema message as a dictionary, which it refers to
  kGiven,     // compressed against what a reader given the schema derives from it (the Schema
              // message and a template RecordBatch message), which it refers to
};

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
  /// this schema, in order) as one batch, without alignment padding (a segment that follows it
  /// starts with AppendAlignmentFrame). A map output's first segment must hold its Schema
  /// kInside unless every reader is given the schema (readers find the dictionary there).
  Status AppendSegment(std::span<const std::span<const uint8_t>> messages,
                       CompactSegmentSchema schema_form, AlignedBuffer* out);

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
