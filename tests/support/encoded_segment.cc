#include "support/encoded_segment.h"

#include <gtest/gtest.h>

#include "sluice/ipc/segment_encoder.h"

namespace sluice::testing {

AlignedBuffer EncodedSegment(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                             CompressionCodec codec) {
  SegmentEncoderOptions options;
  options.codec = codec;
  auto encoder = SegmentEncoder::Make(schema, options);
  AlignedBuffer bytes;
  EXPECT_TRUE(encoder.ok()) << encoder.status().ToString();
  if (!encoder.ok()) return bytes;
  const Status appended = (*encoder)->AppendSegment(batches, &bytes);
  EXPECT_TRUE(appended.ok()) << appended.ToString();
  return bytes;
}

}  // namespace sluice::testing
