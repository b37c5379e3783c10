#include <algorithm>

#include "rows_by_partition_internal.h"

namespace sluice {

void RowsByPartition::Build(std::span<const HeldBatch> batches, int32_t partition_count) {
  // starts_[p + 2] counts partition p's rows; the prefix sum makes starts_[p + 1] partition p's
  // start, where the scatter's cursor for p begins; after the scatter starts_[p + 1] is p's
  // end, which is p + 1's start. One array of P + 2 entries, no second one for cursors.
  starts_.assign(static_cast<size_t>(partition_count) + 2, 0);
  int64_t total = 0;
  for (const HeldBatch& held : batches) {
    const auto* ids = reinterpret_cast<const uint32_t*>(held.partition_ids.data());
    const int64_t rows = held.batch.num_rows();
    for (int64_t row = 0; row < rows; ++row) ++starts_[ids[row] + 2];
    total += rows;
  }
  for (int32_t p = 0; p < partition_count; ++p) starts_[p + 2] += starts_[p + 1];
  rows_.resize(static_cast<size_t>(total));
  batch_of_.resize(static_cast<size_t>(total));
  for (size_t b = 0; b < batches.size(); ++b) {
    const auto* ids = reinterpret_cast<const uint32_t*>(batches[b].partition_ids.data());
    const int64_t rows = batches[b].batch.num_rows();
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t position = starts_[ids[row] + 1]++;
      rows_[position] = static_cast<uint32_t>(row);
      batch_of_[position] = static_cast<uint32_t>(b);
    }
  }
}

void RowsByPartition::Release() {
  std::vector<int64_t>().swap(starts_);
  std::vector<uint32_t>().swap(rows_);
  std::vector<uint32_t>().swap(batch_of_);
}

}  // namespace sluice
