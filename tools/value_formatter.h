// FormatValue: one cell of a column as text, the way `sluice read --head` shows rows.
//
// Dates as 1996-03-13, timestamps as 1996-03-13 08:00:00.000000 in their unit, decimals with
// their scale (1234.50), binary as hex, lists as [1, 2], structs as {a: 1, b: x}, maps as
// {k: v}, nulls as "null".
#pragma once

#include <cstdint>
#include <string>

#include "sluice/format/array_data.h"

namespace sluice::cli {

/// Returns row `row` (0-based in the view) of `array` as text.
std::string FormatValue(const ArrayData& array, int64_t row);

}  // namespace sluice::cli
