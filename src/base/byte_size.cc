#include "sluice/base/byte_size.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

namespace sluice {

Result<int64_t> ParseByteSize(std::string_view text) {
  std::string lower;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (lower == "unlimited") return int64_t{-1};
  double number = 0;
  const char* begin = lower.data();
  const char* end = lower.data() + lower.size();
  auto [after, error] = std::from_chars(begin, end, number);
  if (error != std::errc() || after == begin || number < 0) {
    return Status::Invalid("'", text, "' is not a byte size (examples: 4096, 64MiB, 1g)");
  }
  const std::string unit(after, end);
  double multiplier = 0;
  if (unit.empty() || unit == "b") {
    multiplier = 1;
  } else if (unit == "k" || unit == "kib") {
    multiplier = 1024.0;
  } else if (unit == "m" || unit == "mib") {
    multiplier = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gib") {
    multiplier = 1024.0 * 1024 * 1024;
  } else if (unit == "t" || unit == "tib") {
    multiplier = 1024.0 * 1024 * 1024 * 1024;
  } else if (unit == "kb") {
    multiplier = 1e3;
  } else if (unit == "mb") {
    multiplier = 1e6;
  } else if (unit == "gb") {
    multiplier = 1e9;
  } else if (unit == "tb") {
    multiplier = 1e12;
  } else {
    return Status::Invalid("'", text, "' has an unknown unit '", unit,
                           "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
  }
  const double bytes = number * multiplier;
  if (bytes > static_cast<double>(std::numeric_limits<int64_t>::max()) / 2) {
    return Status::Invalid("'", text, "' is too large");
  }
  return static_cast<int64_t>(bytes);
}

std::string FormatByteSize(int64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof(text), "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(text, sizeof(text),
                  value < 10    ? "%.2f %s"
                  : value < 100 ? "%.1f %s"
                                : "%.0f %s",
                  value, kUnits[unit]);
  }
  return text;
}

}  // namespace sluice
