// ColumnAssembler: the columns of a block, assembled from its field nodes and resolved buffers
// (BlockBuffers) as its DecodePlan lays them out, and checked.
//
// A block of flat columns takes the short path (AssembleFlatBlock): one loop per kind of column
// and one order check of every column's offsets, with no call or dispatch per column, checking
// what ValidateArray would given what the decoder already guarantees. Any other block, or one
// whose short path fails a check, takes the general path (AssembleColumns), which assembles
// nested columns recursively, runs ValidateArray on them, and names the field, the rule broken
// and the message's byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arrow_message_generated.h"
#include "decode_plan_internal.h"
#include "offsets_order_internal.h"
#include "segment_message_internal.h"
#include "sluice/format/array_data.h"

namespace sluice::ipc {

class ColumnAssembler {
 public:
  /// The short path: assembles every column of a block of `plan` (all_flat) into `columns` (one
  /// element per column, overwritten whatever it held) from the block's `views`, one per
  /// Buffer entry. Returns false at the first failed check, with nothing the caller may use.
  bool AssembleFlatBlock(const DecodePlan& plan, const BufferView* views,
                         const fb::FieldNode* nodes, int64_t length, ArrayData* columns);

  /// The general path: assembles and checks every column of the block in `message`, column by
  /// column, pre-order, as `nodes` and `views` list them, into `columns` (each holding its type,
  /// everything else empty). `variadic_counts` are the block's counts of view fields' buffers.
  Status AssembleColumns(const DecodePlan& plan, const SegmentMessage& message,
                         const BufferView* views,
                         const flatbuffers::Vector<const fb::FieldNode*>* nodes,
                         const flatbuffers::Vector<int64_t>* variadic_counts, int64_t length,
                         std::vector<ArrayData>* columns);

  /// The field nodes of a RecordBatch as an array (null when there are none).
  static const fb::FieldNode* FieldNodes(const flatbuffers::Vector<const fb::FieldNode*>* nodes) {
    return nodes != nullptr ? reinterpret_cast<const fb::FieldNode*>(nodes->Data()) : nullptr;
  }

 private:
  Status AssembleFlat(const ColumnPlan& column_plan, size_t index, const SegmentMessage& message,
                      ArrayData* column);
  Status Assemble(const DataType& type, const SegmentMessage& message, ArrayData* out);
  template <typename... Parts>
  Status InvalidColumn(const SegmentMessage& message, size_t index, Parts&&... parts) const;
  template <typename Offset>
  Status CheckOffsetsIncrease(const std::vector<PendingOffsets<Offset>>& pending,
                              const SegmentMessage& message) const;

  // The offsets of the block's binary-like columns, checked once it is assembled (the general
  // path appends them; the short path sizes them for the schema and fills them by index).
  std::vector<PendingOffsets<int32_t>> offsets32_;
  std::vector<PendingOffsets<int64_t>> offsets64_;
  // The general path's place in the block it is assembling.
  const DecodePlan* plan_ = nullptr;
  const BufferView* views_ = nullptr;
  const flatbuffers::Vector<const fb::FieldNode*>* nodes_ = nullptr;
  const flatbuffers::Vector<int64_t>* variadic_counts_ = nullptr;
  int64_t node_index_ = 0;
  int64_t buffer_index_ = 0;
  int64_t view_index_ = 0;  // the next view field's entry in variadic_counts_
  std::string path_;        // the field Assemble is at, for errors
};

}  // namespace sluice::ipc
