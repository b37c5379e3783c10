#include "decode_plan_internal.h"
#include "sluice/format/data_type.h"

namespace sluice::ipc {

namespace {

ColumnPlan PlanColumn(const DataType& type) {
  ColumnPlan plan;
  plan.type = &type;
  const TypeId id = type.id();
  plan.buffer_count = BufferCount(id);
  if (!type.children().empty() || IsBinaryView(id)) {
    // (A view column's buffer count varies by block: its variadic buffers.)
    plan.kind = ColumnKind::kNested;
  } else if (id == TypeId::kNull) {
    plan.kind = ColumnKind::kNull;
  } else if (IsFixedWidth(id)) {
    plan.kind = ColumnKind::kFixedWidth;
    plan.bit_width = BitWidth(type);  // 64-bit: a fixed-size binary may be of any width
  } else if (IsBinaryLike(id)) {
    plan.kind = HasLargeOffsets(id) ? ColumnKind::kLargeBinary : ColumnKind::kBinary;
  }
  return plan;
}

// Appends kHeadAndTail for every buffer of a column of `type`, children included; `next` is the
// index of the column's first buffer and is advanced past its last.
void AppendHeadAndTailReads(const DataType& type, uint32_t* next, std::vector<PlannedRead>* out) {
  for (int b = 0; b < BufferCount(type.id()); ++b) {
    out->push_back(PlannedRead{(*next)++, BufferReads::kHeadAndTail});
  }
  for (const Field& child : type.children()) AppendHeadAndTailReads(*child.type, next, out);
}

// Appends the buffers of a top-level column of `type` (children included, pre-order) that
// assembling and checking it reads; `next` as above.
void AppendBufferReads(const DataType& type, uint32_t* next, std::vector<PlannedRead>* out) {
  if (!type.children().empty()) return AppendHeadAndTailReads(type, next, out);
  for (int b = 0; b < BufferCount(type.id()); ++b) {
    const uint32_t buffer = (*next)++;
    const bool read = b == 0 || (b == 1 && IsBinaryLike(type.id()));  // validity, offsets
    if (read) out->push_back(PlannedRead{buffer, BufferReads::kWhole});
  }
}

int CountNodes(const DataType& type) {
  int count = 1;
  for (const Field& child : type.children()) count += CountNodes(*child.type);
  return count;
}

int CountBuffers(const DataType& type) {
  int count = BufferCount(type.id());
  for (const Field& child : type.children()) count += CountBuffers(*child.type);
  return count;
}

}  // namespace

void FlatColumns::Add(const ColumnPlan& plan, uint32_t column, uint32_t first_buffer) {
  const FlatColumn flat{plan.type, column, first_buffer, plan.bit_width};
  switch (plan.kind) {
    case ColumnKind::kNull:
      nulls.push_back(flat);
      break;
    case ColumnKind::kFixedWidth:
      fixed_width.push_back(flat);
      break;
    case ColumnKind::kBinary:
      binary.push_back(flat);
      break;
    case ColumnKind::kLargeBinary:
      large_binary.push_back(flat);
      break;
    case ColumnKind::kNested:
      break;
  }
}

const DecodePlan* DecodePlan::DictionaryPlan(int64_t id) const {
  for (const auto& [plan_id, plan] : dictionary_plans) {
    if (plan_id == id) return plan.get();
  }
  return nullptr;
}

std::unique_ptr<DecodePlan> PlanDecoding(std::string bytes, SchemaPtr schema) {
  auto plan = std::make_unique<DecodePlan>();
  plan->bytes = std::move(bytes);
  plan->schema = std::move(schema);
  uint32_t next_buffer = 0;
  for (const Field& field : plan->schema->fields()) {
    plan->node_count += CountNodes(*field.type);
    plan->buffer_count += CountBuffers(*field.type);
    plan->view_count += CountBinaryViews(*field.type);
    plan->columns.push_back(PlanColumn(*field.type));
    plan->all_flat &= plan->columns.back().kind != ColumnKind::kNested;
    plan->flat.Add(plan->columns.back(), static_cast<uint32_t>(plan->columns.size() - 1),
                   next_buffer);
    AppendBufferReads(*field.type, &next_buffer, &plan->reads);
  }
  if (!plan->all_flat) plan->flat = FlatColumns{};
  // Buffer indices after a view field depend on each block's variadic buffers.
  if (plan->view_count > 0) plan->reads.clear();
  return plan;
}

}  // namespace sluice::ipc
