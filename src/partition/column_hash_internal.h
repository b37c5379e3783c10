// The column kernels behind column_hash.h, for the partitioners that fold hashes in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/base/status.h"
#include "sluice/format/array_data.h"
#include "sluice/format/record_batch.h"

namespace sluice::internal {

/// Folds rows [first, first + count) of `array` into `states` (states[k] for row first + k) with
/// Spark's Murmur3: each state becomes the hash of its row seeded by the state, or stays when the
/// row is null.
void FoldColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states);

/// FoldColumnMurmur3 into states that all hold Spark's seed (42), without reading them: the
/// first key column.
void StartColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states);

/// Same as FoldColumnMurmur3 with Spark's XXH64.
void FoldColumnXxHash64(const ArrayData& array, int64_t first, int64_t count, uint64_t* states);

/// Checks that `key_columns` is not empty, names existing columns of `batch`, and that those
/// columns have batch.num_rows() rows. `role` names the keys in messages ("hash key").
Status CheckKeyColumns(const RecordBatch& batch, std::span<const int> key_columns,
                       std::string_view role);

}  // namespace sluice::internal
