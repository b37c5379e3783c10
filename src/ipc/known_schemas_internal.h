// KnownSchemas: the schemas a decoder has met or been given, kept for the segments to come.
//
// Two things are found by a schema's bytes. A Schema message met before is not parsed again:
// its flatbuffer's bytes find the DecodePlan made the first time. And a compact segment
// (sluice/ipc/compact_segment.h) is compressed against a stream's framed Schema message, or
// against what a reader given the schema derives from it, which it names by size and hash: the
// messages read, and the dictionaries of the schemas given (made only when a segment names one
// that was not read), are the dictionaries it can be decompressed with.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "decode_plan_internal.h"
#include "sluice/codec/compression.h"
#include "sluice/ipc/compact_segment.h"

namespace sluice::ipc {

class KnownSchemas {
 public:
  /// Bytes that compact segments may be compressed against (a framed Schema message, or a given
  /// schema's dictionary), with a decompressor per codec made with them as the dictionary.
  struct CompressionDictionary {
    CompactSegmentDictionary id;
    std::vector<uint8_t> bytes;
    std::array<std::unique_ptr<Decompressor>, 4> decompressors;

    /// The decompressor of `codec` with these bytes as its dictionary, made at its first use.
    Result<Decompressor*> DecompressorFor(CompressionCodec codec);
  };

  /// The plan of the schema whose Schema flatbuffer is `bytes[0..size)`, or null. (Inline: the
  /// decoder looks up every message it reads.)
  const DecodePlan* FindPlan(const uint8_t* bytes, int64_t size) const {
    for (const auto& plan : plans_) {
      if (static_cast<int64_t>(plan->bytes.size()) == size &&
          std::memcmp(plan->bytes.data(), bytes, static_cast<size_t>(size)) == 0) {
        return plan.get();
      }
    }
    return nullptr;
  }

  /// Plans `schema`, whose Schema flatbuffer is `bytes`, and keeps the plan.
  DecodePlan* AddPlan(std::string bytes, SchemaPtr schema);

  /// Plans a stream with dictionary-encoded `fields`, whose Schema flatbuffer is `bytes` and
  /// whose fields have their values' types in `values_schema`: its batches are laid out with
  /// index types, and each dictionary's batches with its values' type. `encoded_schema`, when
  /// given, is the schema batches are returned in (else built).
  const DecodePlan* AddDictionaryStreamPlan(const std::string& bytes,
                                            const SchemaPtr& values_schema,
                                            std::vector<DictionaryField> fields,
                                            SchemaPtr encoded_schema = nullptr);

  /// Makes `bytes` (a framed Schema message, or a given schema's dictionary) known as a compact
  /// segments' dictionary.
  void AddDictionary(std::span<const uint8_t> bytes);

  /// Keeps `schema` to encode when a compact segment names a dictionary not read.
  void AddGivenSchema(SchemaPtr schema) { given_schemas_.push_back(std::move(schema)); }

  /// The dictionary `id` names, among the Schema messages read or, made now, the given schemas'
  /// (their Schema messages and their given-schema dictionaries); null when it is none of them.
  CompressionDictionary* FindOrLearnDictionary(const CompactSegmentDictionary& id);

 private:
  // A handful of distinct schemas per reader is the norm; both lists are bounded anyway.
  static constexpr size_t kMaxSchemas = 64;

  CompressionDictionary* FindDictionary(const CompactSegmentDictionary& id) const;

  std::vector<std::unique_ptr<DecodePlan>> plans_;
  std::vector<std::unique_ptr<CompressionDictionary>> dictionaries_;
  std::vector<SchemaPtr> given_schemas_;  // not yet encoded
};

}  // namespace sluice::ipc
