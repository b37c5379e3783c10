// RowsByPartition: one stable counting sort that groups every held row by partition.
//
// The writer holds input batches with a partition id per row. At a spill or at the end it sorts
// all held rows at once: a histogram over the partitions, a prefix sum, and one scatter of
// (batch, row) pairs. Within a partition rows keep their input order, so the rows of one batch
// form one run, which becomes one BatchRows of the encoder's selection.
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

  /// Fills `selection` with grouped positions [from, to), one BatchRows per run of rows from the
  /// same batch.
  void Select(std::span<const HeldBatch> batches, int64_t from, int64_t to,
              std::vector<BatchRows>* selection) const;

  /// Frees the sort's memory.
  void Release();

  /// Bytes the sort needs per row (row index and batch index), charged with each batch.
  static constexpr int64_t kBytesPerRow = 2 * sizeof(uint32_t);

 private:
  std::vector<int64_t> starts_;
  std::vector<int64_t> cursors_;
  std::vector<uint32_t> rows_;
  std::vector<uint32_t> batch_of_;
};

}  // namespace sluice
