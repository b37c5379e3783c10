// Dictionary-encoded arrays unpacked to their values.
//
// Sluice carries dictionary-encoded columns as they are (DataType::Dictionary); a host that wants
// the values instead (MapWriterOptions::unpack_dictionaries) unpacks its batches here.
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

/// Returns `type` with every dictionary type in it replaced by its values' type.
TypePtr UnpackedType(const TypePtr& type);

/// Returns `schema` with UnpackedType applied to every field (metadata kept).
SchemaPtr UnpackedSchema(const SchemaPtr& schema);

/// Returns `batch` (validated) with every dictionary-encoded array in it, nested ones included,
/// replaced by the values its indices select, laid out in `unpacked` (UnpackedSchema of the
/// batch's schema). Columns without dictionaries are kept as they are.
Result<RecordBatch> UnpackDictionaries(const RecordBatch& batch, const SchemaPtr& unpacked);

}  // namespace sluice
