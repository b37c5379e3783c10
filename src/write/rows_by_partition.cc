#include <algorithm>

#include "rows_by_partition_internal.h"

namespace sluice {

void RowsByPartition::Build(std::span<const HeldBatch> batches, int32_t partition_count) {
  starts_.assign(static_cast<size_t>(partition_count) + 1, 0);
  int64_t total = 0;
  for (const HeldBatch& held : batches) {
    const auto* ids = reinterpret_cast<const uint32_t*>(held.partition_ids.data());
    const int64_t rows = held.batch.num_rows();
    for (int64_t row = 0; row < rows; ++row) ++starts_[ids[row] + 1];
    total += rows;
  }
  for (int32_t p = 0; p < partition_count; ++p) starts_[p + 1] += starts_[p];
  cursors_.assign(starts_.begin(), starts_.end() - 1);
  rows_.resize(static_cast<size_t>(total));
  batch_of_.resize(static_cast<size_t>(total));
  for (size_t b = 0; b < batches.size(); ++b) {
    const auto* ids = reinterpret_cast<const uint32_t*>(batches[b].partition_ids.data());
    const int64_t rows = batches[b].batch.num_rows();
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t position = cursors_[ids[row]]++;
      rows_[position] = static_cast<uint32_t>(row);
      batch_of_[position] = static_cast<uint32_t>(b);
    }
  }
}

void RowsByPartition::Release() {
  std::vector<int64_t>().swap(starts_);
  std::vector<int64_t>().swap(cursors_);
  std::vector<uint32_t>().swap(rows_);
  std::vector<uint32_t>().swap(batch_of_);
}

}  // namespace sluice
