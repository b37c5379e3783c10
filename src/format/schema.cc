#include "sluice/format/schema.h"

namespace sluice {

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// True when the fields, and the fields nested in their types, carry the same metadata (the
// fields are already known to be equal otherwise).
bool SameFieldMetadata(const std::vector<Field>& left, const std::vector<Field>& right) {
  for (size_t i = 0; i < left.size(); ++i) {
    if (left[i].metadata != right[i].metadata) return false;
    if (!SameFieldMetadata(left[i].type->children(), right[i].type->children())) return false;
  }
  return true;
}

}  // namespace

bool Schema::Equals(const Schema& other, bool check_metadata) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return !check_metadata ||
         (metadata_ == other.metadata_ && SameFieldMetadata(fields_, other.fields_));
}

std::string Schema::ToString() const {
  std::string text;
  for (const auto& field : fields_) {
    text += field.ToString();
    text += "\n";
  }
  return text;
}

Status CheckSameFields(const Schema& expected, const Schema& given, std::string_view expected_name,
                       std::string_view given_name) {
  const auto describe = [](const Schema& schema) {
    std::string text;
    for (const Field& field : schema.fields()) {
      if (!text.empty()) text += ", ";
      text += field.ToString();
    }
    return text;
  };
  if (expected.num_fields() != given.num_fields()) {
    return Status::Invalid(given_name, " has ", given.num_fields(), " columns (", describe(given),
                           ") where ", expected_name, " has ", expected.num_fields(), " (",
                           describe(expected), ")");
  }
  for (size_t i = 0; i < expected.num_fields(); ++i) {
    const Field& want = expected.field(i);
    const Field& got = given.field(i);
    if (want.name != got.name) {
      return Status::Invalid("column ", i, " is '", got.name, "' in ", given_name, " but '",
                             want.name, "' in ", expected_name);
    }
    if (!want.type->Equals(*got.type)) {
      return Status::Invalid("column ", i, " '", want.name, "': ", expected_name, " has ",
                             want.type->ToString(), ", ", given_name, " has ",
                             got.type->ToString());
    }
    if (want.nullable != got.nullable) {
      return Status::Invalid("column ", i, " '", want.name, "' is ",
                             want.nullable ? "nullable" : "not nullable", " in ", expected_name,
                             " but ", got.nullable ? "nullable" : "not nullable", " in ",
                             given_name);
    }
  }
  return Status::OK();
}

bool HasDictionary(const Schema& schema) {
  for (const Field& field : schema.fields()) {
    if (HasDictionary(*field.type)) return true;
  }
  return false;
}

}  // namespace sluice
