#include <span>
#include <utility>

#include "dictionary_memo_internal.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/dictionary_values.h"

namespace sluice::ipc {

namespace {

// Returns `type` with the field at `path` below it (child indices) given `replacement`'s type.
TypePtr ReplaceBelow(const DataType& type, std::span<const int> path, const TypePtr& replacement);

Field ReplaceField(const Field& field, std::span<const int> path, const TypePtr& replacement) {
  Field replaced = field;
  replaced.type = path.empty() ? replacement : ReplaceBelow(*field.type, path, replacement);
  return replaced;
}

TypePtr ReplaceBelow(const DataType& type, std::span<const int> path, const TypePtr& replacement) {
  std::vector<Field> children = type.children();
  const auto child = static_cast<size_t>(path.front());
  children[child] = ReplaceField(children[child], path.subspan(1), replacement);
  return WithChildren(type, std::move(children));
}

// Returns the array at `path` (the top-level column, then child indices) of `columns`, each
// array on the way given its type in `schema`: the arrays were decoded with the index schema's
// types, which differ from the values' along the path (and only there).
ArrayData* ArrayAt(std::vector<ArrayData>* columns, const Schema& schema,
                   const std::vector<int>& path) {
  const DataType* type = schema.field(static_cast<size_t>(path.front())).type.get();
  ArrayData* array = &(*columns)[static_cast<size_t>(path.front())];
  array->type = type;
  for (size_t i = 1; i < path.size(); ++i) {
    type = &type->child_type(static_cast<size_t>(path[i]));
    array = &array->children[static_cast<size_t>(path[i])];
    array->type = type;
  }
  return array;
}

}  // namespace

SchemaPtr IndexSchema(const Schema& schema, const std::vector<DictionaryField>& fields) {
  std::vector<Field> columns = schema.fields();
  for (const DictionaryField& field : fields) {
    const auto column = static_cast<size_t>(field.index_path.front());
    columns[column] =
        ReplaceField(columns[column], std::span(field.index_path).subspan(1), field.index_type);
  }
  return std::make_shared<const Schema>(std::move(columns), schema.metadata());
}

namespace {

void CollectDictionaryFields(const Field& field, std::vector<int>* index_path,
                             const std::string& path, std::vector<DictionaryField>* out) {
  const DataType& type = *field.type;
  if (type.id() == TypeId::kDictionary) {
    out->push_back(DictionaryField{static_cast<int64_t>(out->size()), *index_path, path,
                                   type.index_type(), type.value_type(), type.ordered()});
    return;
  }
  for (size_t i = 0; i < type.children().size(); ++i) {
    const Field& child = type.children()[i];
    index_path->push_back(static_cast<int>(i));
    CollectDictionaryFields(child, index_path, path + "." + child.name, out);
    index_path->pop_back();
  }
}

}  // namespace

std::vector<DictionaryField> DictionaryFieldsOf(const Schema& schema) {
  std::vector<DictionaryField> fields;
  std::vector<int> index_path;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    index_path.assign(1, static_cast<int>(c));
    CollectDictionaryFields(schema.field(c), &index_path, schema.field(c).name, &fields);
  }
  return fields;
}

SchemaPtr EncodedSchema(const Schema& schema, const std::vector<DictionaryField>& fields) {
  std::vector<Field> columns = schema.fields();
  for (const DictionaryField& field : fields) {
    const auto column = static_cast<size_t>(field.index_path.front());
    columns[column] =
        ReplaceField(columns[column], std::span(field.index_path).subspan(1),
                     DataType::Dictionary(field.index_type, field.value_type, field.ordered));
  }
  return std::make_shared<const Schema>(std::move(columns), schema.metadata());
}

DictionaryMemo::DictionaryMemo(std::vector<DictionaryField> fields, SchemaPtr encoded_schema)
    : fields_(std::move(fields)), encoded_schema_(std::move(encoded_schema)) {
  for (const DictionaryField& field : fields_) {
    if (Find(field.id) != nullptr) continue;
    Dictionary dictionary;
    dictionary.id = field.id;
    dictionary.schema = std::make_shared<const Schema>(
        std::vector<Field>{MakeField("dictionary", field.value_type)});
    dictionaries_.push_back(std::move(dictionary));
  }
}

const DictionaryMemo::Dictionary* DictionaryMemo::Find(int64_t id) const {
  for (const Dictionary& dictionary : dictionaries_) {
    if (dictionary.id == id) return &dictionary;
  }
  return nullptr;
}

SchemaPtr DictionaryMemo::DictionarySchema(int64_t id) const {
  const Dictionary* dictionary = Find(id);
  return dictionary != nullptr ? dictionary->schema : nullptr;
}

Status DictionaryMemo::Add(int64_t id, const RecordBatch& batch, bool delta,
                           const std::string& where) {
  Dictionary* dictionary = nullptr;
  for (Dictionary& candidate : dictionaries_) {
    if (candidate.id == id) dictionary = &candidate;
  }
  if (dictionary == nullptr) {
    return Status::Corrupt(where, ": a DictionaryBatch of id ", id,
                           ", which no field of the schema uses");
  }
  if (!delta || !dictionary->set) {
    if (delta) {
      return Status::Corrupt(where, ": a delta DictionaryBatch of id ", id,
                             " before any dictionary of that id");
    }
    dictionary->values = batch.column(0);
    dictionary->owners = batch.owners();
    dictionary->set = true;
    return Status::OK();
  }
  // A delta: the values so far, then the new ones, in new buffers.
  ArrayBuilder builder(dictionary->values.type);
  for (int64_t row = 0; row < dictionary->values.length; ++row) {
    AppendArrayValue(builder, dictionary->values, row);
  }
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    AppendArrayValue(builder, batch.column(0), row);
  }
  std::vector<MemoryOwner> owners;
  dictionary->values = builder.Finish(&owners);
  dictionary->owners = std::move(owners);
  return Status::OK();
}

Result<RecordBatch> DictionaryMemo::Attach(const RecordBatch& batch,
                                           const std::string& where) const {
  std::vector<ArrayData> columns = batch.columns();
  std::vector<MemoryOwner> owners = batch.owners();
  for (const DictionaryField& field : fields_) {
    const Dictionary* dictionary = Find(field.id);
    if (!dictionary->set) {
      return Status::Corrupt(where, ": field '", field.path, "' refers to dictionary id ", field.id,
                             ", which no DictionaryBatch before it set");
    }
    ArrayData* array = ArrayAt(&columns, *encoded_schema_, field.index_path);
    array->children.assign(1, dictionary->values);
    const Status indices = ValidateDictionaryIndices(*array, field.path);
    if (!indices.ok()) return Status::Corrupt(where, ": ", indices.message());
    owners.insert(owners.end(), dictionary->owners.begin(), dictionary->owners.end());
  }
  return RecordBatch(encoded_schema_, batch.num_rows(), std::move(columns), std::move(owners));
}

}  // namespace sluice::ipc
