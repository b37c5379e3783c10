#include "sluice/format/schema.h"

namespace sluice {

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool Schema::Equals(const Schema& other, bool check_metadata) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) return false;
  }
  return !check_metadata || metadata_ == other.metadata_;
}

std::string Schema::ToString() const {
  std::string text;
  for (const auto& field : fields_) {
    text += field.ToString();
    text += "\n";
  }
  return text;
}

}  // namespace sluice
