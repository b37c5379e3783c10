// Conversion between Sluice schemas and Arrow IPC Schema flatbuffers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arrow_message_generated.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/format/schema.h"

namespace sluice::ipc {

/// Appends a complete framed Schema message (prefix, flatbuffer, padding; no body) to `out`.
Status AppendSchemaMessage(const Schema& schema, AlignedBuffer* out);

/// A dictionary-encoded field of an IPC schema. The converted schema gives it the values' type;
/// the decoder gives its arrays the dictionary type (EncodedSchema) with the stream's dictionary.
struct DictionaryField {
  /// The id its DictionaryBatch messages carry.
  int64_t id = 0;
  /// The top-level column's index, then the index of each child on the way down.
  std::vector<int> index_path;
  /// The field's dotted name, for errors.
  std::string path;
  /// The type of its indices (a signed or unsigned integer type) and of its values.
  TypePtr index_type;
  TypePtr value_type;
  bool ordered = false;
};

/// Converts a verified Schema flatbuffer. `context` prefixes error messages. A dictionary-encoded
/// field is refused, or, given `dictionaries`, listed there (in the order of a pre-order walk,
/// children first) and converted with its values' type.
Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema& schema, std::string_view context,
                                       std::vector<DictionaryField>* dictionaries = nullptr);

/// Appends the flatbuffer `builder` holds as a framed message (prefix, flatbuffer padded to 8).
void AppendFramedMessage(const uint8_t* flatbuffer, int64_t size, AlignedBuffer* out);

}  // namespace sluice::ipc
