// RowsByPartition: one stable counting sort that groups every held row by partition.
//
// The writer holds input batches with a partition id per row. At a spill or at the end it sorts
// all held rows at once: a histogram over the partitions, a prefix sum, and one scatter of
// (batch, row) pairs into two parallel arrays. Within a partition rows keep their input order;
// the arrays of a partition's range are exactly the selection the encoder gathers a block from.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice {

/// An input batch the writer holds until it writes, with the partition of each row.
struct HeldBatch {
  RecordBatch batch;
  AlignedBuffer partition_ids;  // uint32 per row
  int64_t charged_bytes = 0;    // what was reserved from the budget for it
};

class RowsByPartition {
 public:
  /// Groups the rows of `batches` by partition (ids below `partition_count`).
  void Build(std::span<const HeldBatch> batches, int32_t partition_count);

  /// Returns the grouped positions of partition p: [begin(p), end(p)).
  int64_t begin(int32_t partition) const { return starts_[partition]; }
  int64_t end(int32_t partition) const { return starts_[partition + 1]; }
  int64_t row_count() const { return static_cast<int64_t>(rows_.size()); }

  /// The batch index and the row of each grouped position.
  const uint32_t* sources() const { return batch_of_.data(); }
  const uint32_t* rows() const { return rows_.data(); }

  /// Frees the sort's memory.
  void Release();

  /// Bytes the sort needs per row (row index and batch index), charged with each batch.
  static constexpr int64_t kBytesPerRow = 2 * sizeof(uint32_t);
  /// Bytes the sort needs per partition (its start), whatever the rows.
  static constexpr int64_t kBytesPerPartition = sizeof(int64_t);

 private:
  std::vector<int64_t> starts_;
  std::vector<uint32_t> rows_;
  std::vector<uint32_t> batch_of_;
};

}  // namespace sluice
