// Schema: the top-level fields of a batch, with optional key-value metadata.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/status.h"
#include "sluice/format/data_type.h"
#include "sluice/format/key_value_metadata.h"

namespace sluice {

/// The columns of a batch.
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields, KeyValueMetadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  const std::vector<Field>& fields() const { return fields_; }
  const Field& field(size_t index) const { return fields_[index]; }
  size_t num_fields() const { return fields_.size(); }
  const KeyValueMetadata& metadata() const { return metadata_; }

  /// Returns the index of the field named `name`, or -1 when there is none.
  int FieldIndex(std::string_view name) const;

  /// Returns true when the fields are equal; metadata (the schema's, and every field's at every
  /// level of nesting) is compared only when asked.
  bool Equals(const Schema& other, bool check_metadata = false) const;
  /// Returns one line per field.
  std::string ToString() const;

 private:
  std::vector<Field> fields_;
  KeyValueMetadata metadata_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

/// Returns true when a field of `schema` is or holds a dictionary-encoded type.
bool HasDictionary(const Schema& schema);

/// Returns OK when `given` has the fields of `expected` (names, types, nullability), or an
/// Invalid naming the first difference: the column's position and name, and both types in
/// Arrow's words ("column 1 'price': expected double, got int64"). `expected_name` and
/// `given_name` say whose schemas they are ("the writer's schema", "the batch").
Status CheckSameFields(const Schema& expected, const Schema& given, std::string_view expected_name,
                       std::string_view given_name);

}  // namespace sluice
