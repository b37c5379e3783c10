// Fuzzes the segment decoder with arbitrary bytes: every outcome must be a batch that passes
// validation or an error, never a crash, a leak or an out-of-bounds read. The decoder is given
// the schema of the corpus's "mixed" table, so that segments compressed against its Schema
// message (make_segment_decoder_corpus.py's "referring" seeds) are decoded too.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/schema.h"
#include "sluice/ipc/segment_decoder.h"

namespace {

const sluice::SchemaPtr& MixedSchema() {
  using sluice::DataType;
  static const sluice::SchemaPtr schema =
      std::make_shared<sluice::Schema>(std::vector<sluice::Field>{
          sluice::Field{"c0", DataType::Int32(), true}, sluice::Field{"c1", DataType::Utf8(), true},
          sluice::Field{"c2", DataType::Date32(), true},
          sluice::Field{"c3", DataType::Decimal128(11, 2), true}});
  return schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy, so reads past the end are caught.
  sluice::AlignedBuffer copy;
  copy.Append(data, static_cast<int64_t>(size));
  sluice::SegmentDecoderOptions options;
  options.max_block_bytes = 64 << 20;
  sluice::SegmentDecoder decoder(options);
  if (!decoder.AddSchema(MixedSchema()).ok()) __builtin_trap();
  if (!decoder.Begin(copy.data(), copy.size(), nullptr, "fuzz").ok()) return 0;
  for (int blocks = 0; blocks < 64; ++blocks) {
    auto next = decoder.Next();
    if (!next.ok() || !next->has_value()) break;
    const sluice::RecordBatch& batch = **next;
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      // A decoded batch must be valid, so touching it is safe.
      if (!sluice::ValidateArray(batch.column(c), "fuzz").ok()) __builtin_trap();
    }
  }
  return 0;
}
