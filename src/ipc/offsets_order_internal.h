// OffsetsIncrease: the check that the offsets of binary-like columns never decrease, which the
// decoder makes once per block over every such column (a 64-row column of 32-bit offsets is 64
// comparisons of neighbours; a 50-column block has 25 such columns).
//
// Built three times: a portable loop, an AVX2 loop (eight 32-bit neighbours a comparison) and
// an AVX-512 loop (sixteen, the last lanes of a column loaded under a mask), chosen once per
// process (base/simd_dispatch_internal.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::ipc {

/// The offsets of one binary-like column whose order is still to be checked: `count` + 1
/// entries from `offsets`. `column` is for the caller's error message.
template <typename Offset>
struct PendingOffsets {
  const Offset* offsets = nullptr;
  int64_t count = 0;
  size_t column = 0;
};

/// Returns true when no column's offsets decrease: offsets[i] <= offsets[i + 1] for every i in
/// [0, count) of each of the `size` columns.
template <typename Offset>
bool OffsetsIncrease(const PendingOffsets<Offset>* columns, size_t size);

/// The same for columns that all have `count` values (the flat columns of one block; their own
/// `count` is not read): the loop bounds are worked out once for the block instead of once per
/// column, a set-up as long as the comparisons of a 64-row column.
template <typename Offset>
bool OffsetsIncrease(const PendingOffsets<Offset>* columns, size_t size, int64_t count);

}  // namespace sluice::ipc
