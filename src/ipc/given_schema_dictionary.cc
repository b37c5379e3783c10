#include <memory>
#include <utility>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/format/record_batch.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice {

Status AppendGivenSchemaDictionary(const SchemaPtr& schema, AlignedBuffer* out) {
  SLUICE_ASSIGN_OR_RAISE(std::unique_ptr<SegmentEncoder> encoder, SegmentEncoder::Make(schema));
  const std::span<const uint8_t> schema_message = encoder->schema_message();
  out->Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));

  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  std::vector<ArrayData> columns;
  builders.reserve(schema->fields().size());
  columns.reserve(schema->fields().size());
  for (const Field& field : schema->fields()) {
    builders.push_back(std::make_unique<ArrayBuilder>(field.type.get()));
    builders.back()->AppendEmptyValue();
    columns.push_back(builders.back()->View());
  }
  const RecordBatch template_batch(schema, 1, std::move(columns), {});
  return encoder->AppendRecordBatch(template_batch, out);
}

}  // namespace sluice
