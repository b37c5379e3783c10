#include "sluice/ipc/batch_concatenator.h"

#include <cstring>
#include <vector>

#include "column_gather_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/bit_ops.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice {

namespace {

struct Arena {
  AlignedBuffer bytes;
};

}  // namespace

class BatchConcatenator::Impl {
 public:
  explicit Impl(SchemaPtr schema) : schema_(std::move(schema)) {
    for (const Field& field : schema_->fields()) {
      columns_.push_back(ipc::ColumnGather::Make(*field.type));
    }
    sources_.resize(columns_.size());
  }

  Result<RecordBatch> Concatenate(std::span<const RecordBatch* const> batches) {
    runs_.clear();
    int64_t total = 0;
    for (size_t b = 0; b < batches.size(); ++b) {
      if (batches[b]->num_columns() != columns_.size()) {
        return Status::Invalid("cannot concatenate a batch of ", batches[b]->num_columns(),
                               " columns with a schema of ", columns_.size());
      }
      if (batches[b]->num_rows() == 0) continue;
      runs_.push_back(ipc::Run{static_cast<uint32_t>(b), 0, batches[b]->num_rows()});
      total += batches[b]->num_rows();
    }
    const ipc::RunSelection selection{runs_.data(), runs_.size(), total};
    plan_.Clear();
    for (size_t c = 0; c < columns_.size(); ++c) {
      sources_[c].resize(batches.size());
      for (size_t b = 0; b < batches.size(); ++b) sources_[c][b] = &batches[b]->column(c);
      columns_[c]->Bind(sources_[c]);
      columns_[c]->Plan(selection, &plan_);
    }
    if (plan_.offsets_overflow) {
      return Status::Invalid("concatenating ", total,
                             " rows would hold more values than a column's offsets or run ends "
                             "can index (2^31 for 32-bit offsets, 32,767 rows for int16 run "
                             "ends)");
    }
    // Every buffer gets its own aligned place in one arena, direct ones included: the result
    // must not borrow from the inputs.
    int64_t arena_size = 0;
    for (const auto& buffer : plan_.buffers) {
      arena_size += bits::RoundUp(buffer.size, ipc::kBufferAlignment);
    }
    auto arena = std::make_shared<Arena>();
    arena->bytes.Resize(arena_size);
    int64_t position = 0;
    locations_.resize(plan_.buffers.size());
    for (size_t i = 0; i < plan_.buffers.size(); ++i) {
      ipc::PlannedBuffer& buffer = plan_.buffers[i];
      uint8_t* dest = arena->bytes.data() + position;
      if (buffer.direct != nullptr) {
        std::memcpy(dest, buffer.direct, static_cast<size_t>(buffer.size));
      } else {
        buffer.destination = dest;
      }
      locations_[i] = buffer.size > 0 ? dest : nullptr;
      position += bits::RoundUp(buffer.size, ipc::kBufferAlignment);
    }
    size_t buffer_index = 0;
    for (auto& column : columns_) column->Write(selection, &plan_, &buffer_index);

    node_index_ = 0;
    buffer_index_ = 0;
    std::vector<ArrayData> arrays(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) Assemble(*schema_->field(c).type, &arrays[c]);
    return RecordBatch(schema_, total, std::move(arrays), {std::move(arena)});
  }

 private:
  // Builds the views over the arena from the plan, in pre-order.
  void Assemble(const DataType& type, ArrayData* out) {
    const ipc::PlannedNode& node = plan_.nodes[node_index_++];
    out->type = &type;
    out->length = node.length;
    out->offset = 0;
    out->null_count = node.null_count;
    const int count = BufferCount(type.id());
    for (int b = 0; b < count; ++b) {
      out->buffers[b] = BufferView{locations_[buffer_index_], plan_.buffers[buffer_index_].size};
      ++buffer_index_;
    }
    out->variadic_buffers.clear();
    if (IsBinaryView(type.id())) {
      // The gather's one data buffer, which every view of a long value points into.
      out->variadic_buffers.push_back(
          BufferView{locations_[buffer_index_], plan_.buffers[buffer_index_].size});
      ++buffer_index_;
    }
    out->children.resize(type.children().size());
    for (size_t c = 0; c < type.children().size(); ++c) {
      Assemble(*type.children()[c].type, &out->children[c]);
    }
  }

  SchemaPtr schema_;
  std::vector<std::unique_ptr<ipc::ColumnGather>> columns_;
  std::vector<std::vector<const ArrayData*>> sources_;
  std::vector<ipc::Run> runs_;
  ipc::BlockPlan plan_;
  std::vector<uint8_t*> locations_;  // where each planned buffer lies in the arena
  size_t node_index_ = 0;
  size_t buffer_index_ = 0;
};

BatchConcatenator::BatchConcatenator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BatchConcatenator::~BatchConcatenator() = default;

Result<std::unique_ptr<BatchConcatenator>> BatchConcatenator::Make(SchemaPtr schema) {
  if (schema == nullptr) return Status::Invalid("BatchConcatenator needs a schema");
  if (HasDictionary(*schema)) {
    // Each batch has dictionaries of its own; joining them is not done here.
    return Status::NotImplemented("concatenating batches with dictionary-encoded columns");
  }
  return std::unique_ptr<BatchConcatenator>(
      new BatchConcatenator(std::make_unique<Impl>(std::move(schema))));
}

Result<RecordBatch> BatchConcatenator::Concatenate(std::span<const RecordBatch* const> batches) {
  return impl_->Concatenate(batches);
}

}  // namespace sluice
