#include <array>
#include <utility>

#include "column_assembler_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/format/array_validate.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::ipc {

namespace {

// The bytes a validity bitmap of `length` >= 0 bits needs.
int64_t BitmapBytes(int64_t length) {
  return static_cast<int64_t>((static_cast<uint64_t>(length) + 7) >> 3);
}

// True when `values_size` bytes hold `length` >= 0 values of `bit_width` bits. Compared in
// bits, so the check divides nothing (GCC emitted an idiv for `/ 8` here).
bool FixedWidthValuesFit(int64_t values_size, int64_t length, int64_t bit_width) {
  int64_t needed_bits = 0;
  return !__builtin_mul_overflow(length, bit_width, &needed_bits) &&
         static_cast<uint64_t>(values_size) >= (static_cast<uint64_t>(needed_bits) + 7) >> 3;
}

// True when a flat column's node has the block's `length` >= 0 and a null count in
// [0, length].
[[gnu::always_inline]] inline bool NodeFits(const fb::FieldNode& node, int64_t length) {
  return node.length() == length &&
         static_cast<uint64_t>(node.null_count()) <= static_cast<uint64_t>(length);
}

// True when `*validity` fits a column of `length` values and `null_count` nulls: no bitmap
// and no nulls (the view is then made null), or a bitmap that long with that many zeros.
[[gnu::always_inline]] inline bool ValidityFits(BufferView* validity, int64_t length,
                                                int64_t null_count) {
  if (validity->size == 0) {
    validity->data = nullptr;
    return null_count == 0;
  }
  return validity->size >= BitmapBytes(length) &&
         length - bits::CountSetBits(validity->data, 0, length) == null_count;
}

// True when `offsets_buffer` holds length + 1 offsets, the first >= 0 and the last within
// `data_size`.
template <typename Offset>
[[gnu::always_inline]] inline bool OffsetsInRange(const BufferView& offsets_buffer, int64_t length,
                                                  int64_t data_size) {
  if (static_cast<uint64_t>(offsets_buffer.size) / sizeof(Offset) <=
      static_cast<uint64_t>(length)) {
    return false;
  }
  if (!IsBufferAligned(offsets_buffer.data)) return false;  // before any typed load
  const Offset* offsets = reinterpret_cast<const Offset*>(offsets_buffer.data);
  return offsets[0] >= 0 && offsets[length] <= data_size;
}

// The binary-like columns with `Offset` offsets of AssembleFlatBlock; notes each column's
// offsets in `*pending` (by index: no push_back per column) for the block's order check.
template <typename Offset>
[[gnu::always_inline]] inline bool AssembleBinaryColumns(
    const BufferView* views, const std::vector<FlatColumn>& binary, const fb::FieldNode* nodes,
    int64_t length, ArrayData* columns, std::vector<PendingOffsets<Offset>>* pending) {
  if (pending->size() != binary.size()) pending->resize(binary.size());
  PendingOffsets<Offset>* next = pending->data();
  for (const FlatColumn& column : binary) {
    const fb::FieldNode& node = nodes[column.column];
    const BufferView* column_views = views + column.first_buffer;
    std::array<BufferView, 3> buffers{column_views[0], column_views[1], column_views[2]};
    if (!NodeFits(node, length) || !ValidityFits(&buffers[0], length, node.null_count())) {
      return false;
    }
    columns[column.column].AssignChildless(column.type, length, node.null_count(), buffers);
    if (length == 0) continue;  // no offsets to check; an empty buffer may stand for them
    if (!OffsetsInRange<Offset>(buffers[1], length, buffers[2].size)) return false;
    *next++ = {reinterpret_cast<const Offset*>(buffers[1].data), length, column.column};
  }
  return true;
}

// Checks the offsets of flat binary-like column `index` of `length` > 0 values: length + 1
// entries (aligned: the decoder's views are), the first >= 0, the last within the data; and
// queues them for CheckOffsetsIncrease, which checks that they never decrease.
template <typename Offset, typename Invalid>
Status CheckOffsets(const BufferView& offsets_buffer, int64_t length, int64_t data_size,
                    size_t index, const Invalid& invalid,
                    std::vector<PendingOffsets<Offset>>* pending) {
  if (static_cast<uint64_t>(offsets_buffer.size) / sizeof(Offset) <=
      static_cast<uint64_t>(length)) {
    return invalid("the offsets buffer has ", offsets_buffer.size, " bytes, too few for ",
                   length + 1, " offsets");
  }
  const Offset* offsets = reinterpret_cast<const Offset*>(offsets_buffer.data);
  if (offsets[0] < 0) return invalid("offset of row 0 is negative (", offsets[0], ")");
  if (offsets[length] > data_size) {
    return invalid("last offset ", offsets[length], " is past the end of the data buffer (",
                   data_size, ")");
  }
  pending->push_back(PendingOffsets<Offset>{offsets, length, index});
  return Status::OK();
}

}  // namespace

// Assembles every column of a block of flat columns, into `columns` (one element per column,
// overwritten whatever it held), and checks what AssembleFlat and CheckOffsetsIncrease check,
// with no call or dispatch per column: one loop per kind of column (FlatColumns), then one
// order check of every column's offsets. Returns false at the first failed check; the general
// path then names it. `views` holds the block's resolved buffers (BlockBuffers).
bool ColumnAssembler::AssembleFlatBlock(const DecodePlan& plan, const BufferView* views,
                                        const fb::FieldNode* nodes, int64_t length,
                                        ArrayData* columns) {
  const FlatColumns& flat = plan.flat;
  for (const FlatColumn& column : flat.nulls) {
    if (!NodeFits(nodes[column.column], length)) return false;
    // A null array is all nulls, whatever its node says, and has no buffers.
    columns[column.column].AssignChildless(column.type, length, length, {});
  }
  for (const FlatColumn& column : flat.fixed_width) {
    const fb::FieldNode& node = nodes[column.column];
    // Through a pointer: indexing views with first_buffer + 1 makes a 32-bit sum per buffer.
    const BufferView* column_views = views + column.first_buffer;
    std::array<BufferView, 3> buffers{column_views[0], column_views[1], BufferView{}};
    if (!NodeFits(node, length) || !ValidityFits(&buffers[0], length, node.null_count()) ||
        !FixedWidthValuesFit(buffers[1].size, length, column.bit_width)) {
      return false;
    }
    columns[column.column].AssignChildless(column.type, length, node.null_count(), buffers);
  }
  if (!AssembleBinaryColumns<int32_t>(views, flat.binary, nodes, length, columns, &offsets32_) ||
      !AssembleBinaryColumns<int64_t>(views, flat.large_binary, nodes, length, columns,
                                      &offsets64_)) {
    return false;
  }
  if (length == 0) return true;
  return (flat.binary.empty() || OffsetsIncrease(offsets32_.data(), flat.binary.size(), length)) &&
         (flat.large_binary.empty() ||
          OffsetsIncrease(offsets64_.data(), flat.large_binary.size(), length));
}

// Assembles and checks every column of a block whose buffers are resolved (`views`), column
// by column, pre-order, as the nodes and buffers list them; each error names what is wrong.
Status ColumnAssembler::AssembleColumns(const DecodePlan& plan, const SegmentMessage& message,
                                        const BufferView* views,
                                        const flatbuffers::Vector<const fb::FieldNode*>* nodes,
                                        const flatbuffers::Vector<int64_t>* variadic_counts,
                                        int64_t length, std::vector<ArrayData>* columns) {
  plan_ = &plan;
  views_ = views;
  variadic_counts_ = variadic_counts;
  node_index_ = 0;
  buffer_index_ = 0;
  view_index_ = 0;
  nodes_ = nodes;
  offsets32_.clear();
  offsets64_.clear();
  for (size_t c = 0; c < columns->size(); ++c) {
    const Field& field = plan.schema->field(c);
    const ColumnPlan& column_plan = plan.columns[c];
    ArrayData& column = (*columns)[c];
    if (column_plan.kind != ColumnKind::kNested) {
      SLUICE_RETURN_NOT_OK(AssembleFlat(column_plan, c, message, &column));
    } else {
      path_.assign(field.name);
      SLUICE_RETURN_NOT_OK(Assemble(*field.type, message, &column));
      Status valid = ValidateArray(column, field.name);
      if (!valid.ok()) {
        return message.CorruptAt(message.start, "invalid record batch: ", valid.message());
      }
    }
    if (column.length != length) {
      return message.CorruptAt(message.start, "column '", field.name, "' has ", column.length,
                               " rows, the batch ", length);
    }
  }
  SLUICE_RETURN_NOT_OK(CheckOffsetsIncrease(offsets32_, message));
  return CheckOffsetsIncrease(offsets64_, message);
}

// Fills a flat column (`column` holds its type, everything else empty) and checks it: the
// part of ValidateArray's rules the decoder does not already guarantee by construction.
Status ColumnAssembler::AssembleFlat(const ColumnPlan& column_plan, size_t index,
                                     const SegmentMessage& message, ArrayData* column) {
  const std::string& name = plan_->schema->field(index).name;
  const fb::FieldNode* node = nodes_->Get(static_cast<flatbuffers::uoffset_t>(node_index_++));
  const int64_t length = node->length();
  const int64_t null_count = node->null_count();
  if (length < 0 || null_count < 0 || null_count > length) {
    return message.CorruptAt(message.start, "field '", name, "': node length ", length,
                             " and null count ", null_count, " are inconsistent");
  }
  column->length = length;
  for (int b = 0; b < column_plan.buffer_count; ++b) column->buffers[b] = views_[buffer_index_++];
  if (column_plan.kind == ColumnKind::kNull) {
    column->null_count = length;  // some writers say 0; a null array is all nulls
    return Status::OK();
  }
  column->null_count = null_count;
  auto invalid = [&](auto&&... parts) { return InvalidColumn(message, index, parts...); };
  BufferView& validity = column->buffers[0];
  if (validity.size == 0) {
    if (null_count != 0) {
      return message.CorruptAt(message.start, "field '", name, "' has ", null_count,
                               " nulls but no validity bitmap");
    }
    validity.data = nullptr;
  } else {
    const int64_t bitmap_bytes = BitmapBytes(length);
    if (validity.size < bitmap_bytes) {
      return invalid("the validity bitmap has ", validity.size, " bytes, expected at least ",
                     bitmap_bytes, " for length ", length);
    }
    const int64_t nulls = length - bits::CountSetBits(validity.data, 0, length);
    if (nulls != null_count) {
      return invalid("null_count is ", null_count, " but the validity bitmap has ", nulls,
                     " nulls");
    }
  }
  if (length == 0) return Status::OK();
  const BufferView& values = column->buffers[1];
  if (column_plan.kind == ColumnKind::kFixedWidth) {
    if (!FixedWidthValuesFit(values.size, length, column_plan.bit_width)) {
      return invalid("the values buffer has ", values.size, " bytes, too few for ", length,
                     " values of ", column_plan.bit_width, " bits");
    }
    return Status::OK();
  }
  return column_plan.kind == ColumnKind::kBinary
             ? CheckOffsets(values, length, column->buffers[2].size, index, invalid, &offsets32_)
             : CheckOffsets(values, length, column->buffers[2].size, index, invalid, &offsets64_);
}

// The error for flat column `index` of the block in `message` that breaks a rule of
// ValidateArray's.
template <typename... Parts>
Status ColumnAssembler::InvalidColumn(const SegmentMessage& message, size_t index,
                                      Parts&&... parts) const {
  return message.CorruptAt(message.start, "invalid record batch: column '",
                           plan_->schema->field(index).name, "': ", std::forward<Parts>(parts)...);
}

// Checks that the queued offsets of no binary-like column decrease; the error names the first
// column and row where they do.
template <typename Offset>
Status ColumnAssembler::CheckOffsetsIncrease(const std::vector<PendingOffsets<Offset>>& pending,
                                             const SegmentMessage& message) const {
  if (pending.empty() || OffsetsIncrease(pending.data(), pending.size())) return Status::OK();
  for (const PendingOffsets<Offset>& column : pending) {
    for (int64_t i = 0; i < column.count; ++i) {
      if (column.offsets[i + 1] < column.offsets[i]) {
        return InvalidColumn(message, column.column, "offsets decrease at row ", i, ": ",
                             column.offsets[i], " then ", column.offsets[i + 1]);
      }
    }
  }
  return Status::OK();
}

// Assembles a nested column. `path_` holds the field's path, for errors: it is extended and
// cut back per child, so a warm decoder builds no strings per block.
Status ColumnAssembler::Assemble(const DataType& type, const SegmentMessage& message,
                                 ArrayData* out) {
  const std::string& path = path_;
  const fb::FieldNode* node = nodes_->Get(static_cast<flatbuffers::uoffset_t>(node_index_++));
  const int64_t length = node->length();
  const int64_t null_count = node->null_count();
  if (length < 0 || null_count < 0 || null_count > length) {
    return message.CorruptAt(message.start, "field '", path, "': node length ", length,
                             " and null count ", null_count, " are inconsistent");
  }
  out->type = &type;
  out->length = length;
  out->offset = 0;
  out->null_count = null_count;
  const int buffer_count = BufferCount(type.id());
  for (int b = 0; b < buffer_count; ++b) out->buffers[b] = views_[buffer_index_++];
  out->variadic_buffers.clear();
  if (IsBinaryView(type.id())) {
    const int64_t variadic =
        variadic_counts_->Get(static_cast<flatbuffers::uoffset_t>(view_index_++));
    for (int64_t v = 0; v < variadic; ++v) {
      out->variadic_buffers.push_back(views_[buffer_index_++]);
    }
  }
  if (type.id() == TypeId::kNull) {
    out->null_count = length;  // some writers say 0; a null array is all nulls
  } else if (IsUnion(type.id())) {
    // buffers[0] holds the type ids; a union has no nulls of its own (ValidateArray checks).
    if (out->buffers[0].size == 0) out->buffers[0].data = nullptr;
  } else if (out->buffers[0].size == 0) {
    out->buffers[0].data = nullptr;
    if (null_count != 0) {
      return message.CorruptAt(message.start, "field '", path, "' has ", null_count,
                               " nulls but no validity bitmap");
    }
  }
  const auto& children = type.children();
  out->children.resize(children.size());
  const size_t path_length = path_.size();
  for (size_t c = 0; c < children.size(); ++c) {
    path_.append(".").append(children[c].name);
    Status assembled = Assemble(*children[c].type, message, &out->children[c]);
    path_.resize(path_length);
    SLUICE_RETURN_NOT_OK(assembled);
  }
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kSparseUnion) {
    // Struct (and sparse union) children must cover it; keep them aligned with it.
    for (size_t c = 0; c < children.size(); ++c) {
      ArrayData& child = out->children[c];
      if (child.length < length) {
        return message.CorruptAt(message.start, "field '", path, ".", children[c].name, "' has ",
                                 child.length, " rows, fewer than its struct's ", length);
      }
      if (child.length > length) {
        Status valid = ValidateArray(child, path + "." + children[c].name);
        if (!valid.ok()) return message.CorruptAt(message.start, valid.message());
        child = child.Slice(0, length);
      }
    }
  }
  return Status::OK();
}

}  // namespace sluice::ipc
