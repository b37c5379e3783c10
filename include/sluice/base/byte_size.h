// Byte sizes as people write them: "256MiB", "64MB", "1g", "4096", "unlimited".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice {

/// Parses a byte size. Binary units KiB/MiB/GiB/TiB (and k/m/g/t, any case) multiply by 1024s;
/// decimal units KB/MB/GB/TB by 1000s; no unit or "B" means bytes. "unlimited" returns -1.
Result<int64_t> ParseByteSize(std::string_view text);

/// Formats a byte count for people: "1.5 GiB", "312 KiB", "17 B".
std::string FormatByteSize(int64_t bytes);

}  // namespace sluice
