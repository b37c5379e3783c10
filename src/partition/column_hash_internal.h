// The column kernels behind column_hash.h, for the partitioners that fold hashes in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/base/status.h"
#include "sluice/format/array_data.h"
#include "sluice/format/data_type.h"
#include "sluice/format/record_batch.h"

namespace sluice::internal {

/// Returns whether a key column of this type is hashed with 512-bit vectors where the CPU has
/// them; a key set uses them only when every key column does, which is when all are integers.
/// Integer keys hash faster with them; but a key set that also held strings or floats ran
/// slower, as the core slows while it switches between the 512-bit and the other work of every
/// chunk (DEVELOPING.md, "Figures behind the constants").
bool HashesWithWideVectors(TypeId key_type);

/// Folds rows [first, first + count) of `array` into `states` (states[k] for row first + k) with
/// Spark's Murmur3: each state becomes the hash of its row seeded by the state, or stays when the
/// row is null. `wide`: whether HashesWithWideVectors holds for every column of the key set.
void FoldColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states,
                       bool wide);

/// FoldColumnMurmur3 into states that all hold Spark's seed (42), without reading them: the
/// first key column.
void StartColumnMurmur3(const ArrayData& array, int64_t first, int64_t count, uint32_t* states,
                        bool wide);

/// Checks that `key_columns` is not empty, names existing columns of `batch`, and that those
/// columns have batch.num_rows() rows. `role` names the keys in messages ("hash key").
Status CheckKeyColumns(const RecordBatch& batch, std::span<const int> key_columns,
                       std::string_view role);

}  // namespace sluice::internal
