// Dictionary-encoded arrays unpacked to their values.
//
// Sluice carries a dictionary-encoded field as the values its indices select: the C Data
// importer and the IPC decoder both unpack such fields here, so an index out of range is
// refused alike on every path.
#pragma once

#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/record_batch.h"

namespace sluice {

/// Appends slot `row` of `source` (a validated array) to `builder`, which has source's type.
void AppendArrayValue(ArrayBuilder& builder, const ArrayData& source, int64_t row);

/// Returns the values that `indices` (an array of a signed or unsigned integer type) select
/// from `dictionary` (a validated array), in new buffers whose owner is appended to `owners`;
/// a null index is a null value. An index outside the dictionary is Invalid, naming the column
/// `path` and the row.
Result<ArrayData> UnpackDictionary(const ArrayData& indices, const ArrayData& dictionary,
                                   std::string_view path, std::vector<MemoryOwner>* owners);

}  // namespace sluice
