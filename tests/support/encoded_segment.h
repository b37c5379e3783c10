// Segments for decoder tests: a schema, one block for each batch, end of stream.
#pragma once

#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/codec/compression.h"
#include "sluice/format/record_batch.h"

namespace sluice::testing {

/// Returns `batches` encoded as one segment with `codec` (the encoder's default options
/// otherwise); fails the calling test if the encoder does.
AlignedBuffer EncodedSegment(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                             CompressionCodec codec);

}  // namespace sluice::testing
