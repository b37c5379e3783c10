// ColumnGather: collects selected rows of one column, from any number of source arrays, into
// the Arrow IPC body layout (a FieldNode per node and the buffers in pre-order).
//
// This is the map side's only copy of the data. The writer hands the encoder, for one
// partition, the rows it owns in each buffered input batch; a gather tree built once per schema
// plans the output (lengths, null counts and buffer sizes) in one pass, then writes every buffer
// straight to its final place: the output block when there is no codec, the codec's input
// scratch otherwise. When a buffer can be used as it is (one contiguous range with aligned
// offsets), the plan points at the source bytes instead and nothing is gathered.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sluice/format/array_data.h"

namespace sluice::ipc {

/// Rows selected from one source array: `rows[0..count)` when `rows` is set, otherwise the
/// contiguous range [start, start + count). Rows are indexes into the array view.
struct RowChunk {
  const ArrayData* array = nullptr;
  const uint32_t* rows = nullptr;
  int64_t start = 0;
  int64_t count = 0;
};

/// One node of the output, in pre-order.
struct PlannedNode {
  int64_t length = 0;
  int64_t null_count = 0;
};

/// One buffer of the output, in pre-order.
struct PlannedBuffer {
  int64_t size = 0;
  /// When set, the buffer's bytes as they already are in memory; nothing to gather.
  const uint8_t* direct = nullptr;
  /// Where the gathered bytes go; set by the caller between Plan and Write for every buffer
  /// whose `direct` is null and whose size is not zero.
  uint8_t* destination = nullptr;
};

/// The nodes and buffers of one block, reused from block to block.
struct BlockPlan {
  std::vector<PlannedNode> nodes;
  std::vector<PlannedBuffer> buffers;
  /// Set when a column with 32-bit offsets would span more than INT32_MAX values or bytes.
  bool offsets_overflow = false;

  void Clear() {
    nodes.clear();
    buffers.clear();
    offsets_overflow = false;
  }
};

class ColumnGather {
 public:
  virtual ~ColumnGather() = default;

  /// Makes the gather tree for `type`.
  static std::unique_ptr<ColumnGather> Make(const DataType& type);

  /// Appends this column's nodes and buffers for the selected rows to `plan`.
  virtual void Plan(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) = 0;
  /// Writes the buffers planned by the last Plan call, reading destinations from `plan`
  /// starting at `*buffer_index` (which it advances past this column's buffers). The chunks
  /// must be the ones given to Plan.
  virtual void Write(std::span<const RowChunk> chunks, BlockPlan* plan, size_t* buffer_index) = 0;

  /// Returns how many nodes and buffers this column contributes (fixed by the type).
  virtual int node_count() const = 0;
  virtual int buffer_count() const = 0;
};

}  // namespace sluice::ipc
