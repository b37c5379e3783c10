#include <utility>

#include "dictionary_memo_internal.h"
#include "known_schemas_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/format/dictionary_values.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::ipc {

Result<Decompressor*> KnownSchemas::CompressionDictionary::DecompressorFor(CompressionCodec codec) {
  auto& slot = decompressors[static_cast<size_t>(codec)];
  if (slot == nullptr) {
    SLUICE_ASSIGN_OR_RAISE(slot, Decompressor::Make(codec, bytes));
  }
  return slot.get();
}

DecodePlan* KnownSchemas::AddPlan(std::string bytes, SchemaPtr schema) {
  std::unique_ptr<DecodePlan> plan = PlanDecoding(std::move(bytes), std::move(schema));
  if (plans_.size() >= kMaxSchemas) plans_.erase(plans_.begin());
  plans_.push_back(std::move(plan));
  return plans_.back().get();
}

const DecodePlan* KnownSchemas::AddDictionaryStreamPlan(const std::string& bytes,
                                                        const SchemaPtr& values_schema,
                                                        std::vector<DictionaryField> fields,
                                                        SchemaPtr encoded_schema) {
  DecodePlan* plan = AddPlan(bytes, IndexSchema(*values_schema, fields));
  if (encoded_schema == nullptr) encoded_schema = EncodedSchema(*values_schema, fields);
  const DictionaryMemo memo(fields, encoded_schema);
  for (const DictionaryField& field : fields) {
    if (plan->DictionaryPlan(field.id) == nullptr) {
      plan->dictionary_plans.emplace_back(
          field.id, PlanDecoding(std::string(), memo.DictionarySchema(field.id)));
    }
  }
  plan->dictionary_fields = std::move(fields);
  plan->encoded_schema = std::move(encoded_schema);
  return plan;
}

void KnownSchemas::AddDictionary(std::span<const uint8_t> bytes) {
  const CompactSegmentDictionary id = CompactSegmentDictionary::Of(bytes);
  if (FindDictionary(id) != nullptr) return;
  if (dictionaries_.size() >= kMaxSchemas) dictionaries_.erase(dictionaries_.begin());
  auto entry = std::make_unique<CompressionDictionary>();
  entry->id = id;
  entry->bytes.assign(bytes.begin(), bytes.end());
  dictionaries_.push_back(std::move(entry));
}

KnownSchemas::CompressionDictionary* KnownSchemas::FindDictionary(
    const CompactSegmentDictionary& id) const {
  for (const auto& entry : dictionaries_) {
    if (entry->id == id) return entry.get();
  }
  return nullptr;
}

KnownSchemas::CompressionDictionary* KnownSchemas::FindOrLearnDictionary(
    const CompactSegmentDictionary& id) {
  CompressionDictionary* known = FindDictionary(id);
  if (known != nullptr || given_schemas_.empty()) return known;
  // A given schema costs nothing until a segment needs a dictionary.
  for (SchemaPtr& schema : given_schemas_) {
    AlignedBuffer message;
    if (!AppendSchemaMessage(*schema, &message).ok()) continue;  // cannot be the one
    AddDictionary(std::span<const uint8_t>(message.data(), static_cast<size_t>(message.size())));
    AlignedBuffer dictionary;
    if (AppendGivenSchemaDictionary(schema, &dictionary).ok()) {
      AddDictionary(
          std::span<const uint8_t>(dictionary.data(), static_cast<size_t>(dictionary.size())));
    }
    // A segment whose Schema message is these bytes has this schema: it is not parsed again.
    const auto* metadata = message.data() + kMessagePrefixSize;
    const int64_t metadata_size = message.size() - kMessagePrefixSize;
    if (FindPlan(metadata, metadata_size) == nullptr) {
      std::string bytes(reinterpret_cast<const char*>(metadata),
                        static_cast<size_t>(metadata_size));
      if (HasDictionary(*schema)) {
        AddDictionaryStreamPlan(bytes, UnpackedSchema(schema), DictionaryFieldsOf(*schema), schema);
      } else {
        AddPlan(std::move(bytes), std::move(schema));
      }
    }
  }
  given_schemas_.clear();
  return FindDictionary(id);
}

}  // namespace sluice::ipc
