// KeyValueMetadata: Arrow's custom_metadata, the key-value pairs a schema or a field carries.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sluice {

/// Key-value pairs kept with a schema or a field, in order (Arrow's custom_metadata). An
/// extension type is its storage type with the field metadata keys "ARROW:extension:name" and
/// "ARROW:extension:metadata", so keeping a field's metadata keeps its extension type.
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

}  // namespace sluice
