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

// Where a plan's buffers were laid out, and how far assembling views over them has come.
struct Assembly {
  const ipc::BlockPlan* plan = nullptr;
  std::vector<uint8_t*> locations;  // where each planned buffer lies in its arena
  size_t buffer_index = 0;
  size_t node_index = 0;
};

// Gives every buffer of `plan` its own aligned place in one new arena, direct ones included (the
// result must not borrow from the inputs), recording where in `locations`.
MemoryOwner Lay(ipc::BlockPlan* plan, std::vector<uint8_t*>* locations) {
  int64_t arena_size = 0;
  for (const auto& buffer : plan->buffers) {
    arena_size += bits::RoundUp(buffer.size, ipc::kBufferAlignment);
  }
  auto arena = std::make_shared<Arena>();
  arena->bytes.Resize(arena_size);
  int64_t position = 0;
  locations->resize(plan->buffers.size());
  for (size_t i = 0; i < plan->buffers.size(); ++i) {
    ipc::PlannedBuffer& buffer = plan->buffers[i];
    uint8_t* dest = arena->bytes.data() + position;
    if (buffer.direct != nullptr) {
      std::memcpy(dest, buffer.direct, static_cast<size_t>(buffer.size));
    } else {
      buffer.destination = dest;
    }
    (*locations)[i] = buffer.size > 0 ? dest : nullptr;
    position += bits::RoundUp(buffer.size, ipc::kBufferAlignment);
  }
  return arena;
}

}  // namespace

class BatchConcatenator::Impl {
 public:
  explicit Impl(SchemaPtr schema) : schema_(std::move(schema)) {
    for (const Field& field : schema_->fields()) {
      columns_.push_back(ipc::ColumnGather::Make(*field.type));
      columns_.back()->CollectDictionaries(&dictionaries_);
    }
    sources_.resize(columns_.size());
    dictionary_plans_.resize(dictionaries_.size());
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
    if (plan_.dictionary_overflow) {
      return Status::Invalid("concatenating ", total,
                             " rows needs a dictionary of more values than a dictionary column's "
                             "index type can number (the batches have different dictionaries)");
    }
    if (plan_.offsets_overflow) {
      return Status::Invalid("concatenating ", total,
                             " rows would hold more values than a column's offsets or run ends "
                             "can index (2^31 for 32-bit offsets, 32,767 rows for int16 run "
                             "ends)");
    }
    std::vector<MemoryOwner> owners;
    Assembly batch{&plan_, {}};
    owners.push_back(Lay(&plan_, &batch.locations));
    for (auto& column : columns_) column->Write(selection, &plan_, &batch.buffer_index);
    batch.buffer_index = 0;
    // Each dictionary column's values: those its rows use, from every batch's dictionary, in a
    // plan and arena of their own, assembled where the column is.
    dictionary_assemblies_.clear();
    for (size_t d = 0; d < dictionaries_.size(); ++d) {
      ipc::DictionaryColumn& dictionary = *dictionaries_[d];
      ipc::BlockPlan& plan = dictionary_plans_[d];
      plan.Clear();
      dictionary.values().Plan(dictionary.used_values(), &plan);
      if (plan.offsets_overflow) {
        return Status::Invalid("concatenating a dictionary of ", dictionary.used_values().count,
                               " values would hold more values than its offsets can index");
      }
      Assembly values{&plan, {}};
      owners.push_back(Lay(&plan, &values.locations));
      dictionary.values().Write(dictionary.used_values(), &plan, &values.buffer_index);
      values.buffer_index = 0;
      dictionary_assemblies_.push_back(std::move(values));
    }
    next_dictionary_ = 0;
    std::vector<ArrayData> arrays(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) {
      Assemble(*schema_->field(c).type, &batch, &arrays[c]);
    }
    return RecordBatch(schema_, total, std::move(arrays), std::move(owners));
  }

  bool dictionary_overflow() const { return plan_.dictionary_overflow; }

 private:
  // Builds the views over an arena from its plan, in pre-order.
  void Assemble(const DataType& type, Assembly* assembly, ArrayData* out) {
    const ipc::BlockPlan& plan = *assembly->plan;
    const ipc::PlannedNode& node = plan.nodes[assembly->node_index++];
    out->type = &type;
    out->length = node.length;
    out->offset = 0;
    out->null_count = node.null_count;
    const int count = BufferCount(type.id());
    for (int b = 0; b < count; ++b) {
      const size_t index = assembly->buffer_index++;
      out->buffers[b] = BufferView{assembly->locations[index], plan.buffers[index].size};
    }
    out->variadic_buffers.clear();
    if (IsBinaryView(type.id())) {
      // The gather's one data buffer, which every view of a long value points into.
      const size_t index = assembly->buffer_index++;
      out->variadic_buffers.push_back(
          BufferView{assembly->locations[index], plan.buffers[index].size});
    }
    if (type.id() == TypeId::kDictionary) {
      // The dictionaries were planned in the columns' pre-order, the order of this walk.
      out->children.resize(1);
      Assemble(*type.value_type(), &dictionary_assemblies_[next_dictionary_++], &out->children[0]);
      return;
    }
    out->children.resize(type.children().size());
    for (size_t c = 0; c < type.children().size(); ++c) {
      Assemble(*type.children()[c].type, assembly, &out->children[c]);
    }
  }

  SchemaPtr schema_;
  std::vector<std::unique_ptr<ipc::ColumnGather>> columns_;
  std::vector<std::vector<const ArrayData*>> sources_;
  std::vector<ipc::Run> runs_;
  ipc::BlockPlan plan_;
  // The dictionary-encoded columns in pre-order, and per concatenation their values' plans.
  std::vector<ipc::DictionaryColumn*> dictionaries_;
  std::vector<ipc::BlockPlan> dictionary_plans_;
  std::vector<Assembly> dictionary_assemblies_;
  size_t next_dictionary_ = 0;
};

BatchConcatenator::BatchConcatenator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BatchConcatenator::~BatchConcatenator() = default;

Result<std::unique_ptr<BatchConcatenator>> BatchConcatenator::Make(SchemaPtr schema) {
  if (schema == nullptr) return Status::Invalid("BatchConcatenator needs a schema");
  return std::unique_ptr<BatchConcatenator>(
      new BatchConcatenator(std::make_unique<Impl>(std::move(schema))));
}

Result<RecordBatch> BatchConcatenator::Concatenate(std::span<const RecordBatch* const> batches) {
  return impl_->Concatenate(batches);
}

bool BatchConcatenator::dictionary_overflow() const {
  return impl_->dictionary_overflow();
}

}  // namespace sluice
