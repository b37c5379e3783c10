// Logical comparison of arrays and batches: same type, same nulls, same values, whatever the
// offsets, padding or buffer sharing. For tests and for checks in tools.
#pragma once

#include <string>

#include "sluice/format/array_data.h"
#include "sluice/format/record_batch.h"

namespace sluice {

/// Returns true when `left` and `right` hold the same values; otherwise, when `difference` is
/// given, describes the first difference (row and path).
bool ArraysEqual(const ArrayData& left, const ArrayData& right, std::string* difference = nullptr);

/// Returns true when both batches have equal schemas (field names, types, nullability) and
/// equal columns.
bool BatchesEqual(const RecordBatch& left, const RecordBatch& right,
                  std::string* difference = nullptr);

}  // namespace sluice
