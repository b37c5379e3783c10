// DictionaryMemo: the dictionaries an Arrow IPC stream's DictionaryBatch messages have set, and
// their attachment to the record batches that refer to them.
//
// A stream that has dictionary-encoded fields lays its RecordBatch messages out with the fields'
// index types (IndexSchema); each DictionaryBatch sets a dictionary (or, as a delta, extends
// it), and a later one with the same id replaces it, as Arrow's stream format allows. The
// decoder returns such a field as Sluice's dictionary type (EncodedSchema): its indices, and the
// dictionary set when its batch was read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schema_message_internal.h"
#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"

namespace sluice::ipc {

/// Returns `schema` (whose dictionary-encoded fields have their values' types) with each of
/// `fields` given its index type: the layout of the stream's RecordBatch messages.
SchemaPtr IndexSchema(const Schema& schema, const std::vector<DictionaryField>& fields);

/// Returns the dictionary-encoded fields of `schema` (which has dictionary types), with the ids
/// its Schema message gives them (AppendSchemaMessage: 0, 1, ... in pre-order).
std::vector<DictionaryField> DictionaryFieldsOf(const Schema& schema);

/// Returns `schema` with each of `fields` given its dictionary type (index and value types).
SchemaPtr EncodedSchema(const Schema& schema, const std::vector<DictionaryField>& fields);

class DictionaryMemo {
 public:
  /// `encoded_schema` is the stream's schema as the decoder returns it (EncodedSchema).
  DictionaryMemo(std::vector<DictionaryField> fields, SchemaPtr encoded_schema);

  /// Returns the one-field schema a DictionaryBatch of `id` is laid out in, or null when no
  /// field of the stream uses `id`.
  SchemaPtr DictionarySchema(int64_t id) const;

  /// Sets dictionary `id` to the one column of `dictionary` (laid out in DictionarySchema(id)),
  /// or with `delta` appends its values to the dictionary set before. `where` names the
  /// message in errors.
  Status Add(int64_t id, const RecordBatch& dictionary, bool delta, const std::string& where);

  /// Returns `batch`, laid out in IndexSchema, with every dictionary-encoded field given its
  /// dictionary type and the dictionary set now (its indices checked against it). `where` names
  /// the message in errors.
  Result<RecordBatch> Attach(const RecordBatch& batch, const std::string& where) const;

 private:
  struct Dictionary {
    int64_t id = 0;
    SchemaPtr schema;
    bool set = false;
    ArrayData values;
    std::vector<MemoryOwner> owners;
  };
  const Dictionary* Find(int64_t id) const;

  std::vector<DictionaryField> fields_;
  SchemaPtr encoded_schema_;
  std::vector<Dictionary> dictionaries_;
};

}  // namespace sluice::ipc
