// Booleans as people write them in settings: "true", "false", "1", "0", "yes", "no", "on", "off".
#pragma once

#include <string_view>

#include "sluice/base/result.h"

namespace sluice {

/// Parses a boolean in any case; Invalid quoting `text` otherwise.
Result<bool> ParseBoolean(std::string_view text);

}  // namespace sluice
