#include "sluice/base/boolean_text.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace sluice {

Result<bool> ParseBoolean(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "0" || lower == "no" || lower == "off") return false;
  return Status::Invalid("'", text, "' is not a boolean (true or false)");
}

}  // namespace sluice
