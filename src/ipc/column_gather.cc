#include "column_gather_internal.h"

#include <cstring>
#include <limits>

#include "sluice/base/bit_ops.h"
#include "sluice/base/check.h"

namespace sluice::ipc {

namespace {

bool IsSingleRange(std::span<const RowChunk> chunks) {
  return chunks.size() == 1 && chunks[0].rows == nullptr;
}

// ---- Validity bitmaps ----------------------------------------------------------------------

int64_t CountNulls(std::span<const RowChunk> chunks) {
  int64_t nulls = 0;
  for (const RowChunk& chunk : chunks) {
    const ArrayData& array = *chunk.array;
    if (array.null_count == 0 || array.buffers[0].data == nullptr) continue;
    const uint8_t* bitmap = array.buffers[0].data;
    if (chunk.rows == nullptr) {
      nulls += chunk.count - bits::CountSetBits(bitmap, array.offset + chunk.start, chunk.count);
    } else {
      for (int64_t i = 0; i < chunk.count; ++i) {
        nulls += !bits::GetBit(bitmap, array.offset + chunk.rows[i]);
      }
    }
  }
  return nulls;
}

// Plans the node and validity buffer of a column that has one.
void PlanNodeWithValidity(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) {
  const int64_t nulls = CountNulls(chunks);
  plan->nodes.push_back(PlannedNode{length, nulls});
  PlannedBuffer validity;
  if (nulls > 0) {
    validity.size = bits::BytesForBits(length);
    if (IsSingleRange(chunks)) {
      const ArrayData& array = *chunks[0].array;
      const int64_t first_bit = array.offset + chunks[0].start;
      if ((first_bit & 7) == 0) validity.direct = array.buffers[0].data + (first_bit >> 3);
    }
  }
  plan->buffers.push_back(validity);
}

void WriteValidity(std::span<const RowChunk> chunks, const PlannedBuffer& buffer) {
  if (buffer.direct != nullptr || buffer.size == 0) return;
  uint8_t* dest = buffer.destination;
  std::memset(dest, 0, static_cast<size_t>(buffer.size));
  int64_t position = 0;
  for (const RowChunk& chunk : chunks) {
    const ArrayData& array = *chunk.array;
    const uint8_t* bitmap = array.buffers[0].data;
    if (array.null_count == 0 || bitmap == nullptr) {
      bits::FillBits(dest, position, chunk.count, true);
    } else if (chunk.rows == nullptr) {
      bits::CopyBits(bitmap, array.offset + chunk.start, chunk.count, dest, position);
    } else {
      for (int64_t i = 0; i < chunk.count; ++i) {
        if (bits::GetBit(bitmap, array.offset + chunk.rows[i])) bits::SetBit(dest, position + i);
      }
    }
    position += chunk.count;
  }
}

// ---- Null ---------------------------------------------------------------------------------

class NullGather final : public ColumnGather {
 public:
  void Plan(std::span<const RowChunk>, int64_t length, BlockPlan* plan) override {
    plan->nodes.push_back(PlannedNode{length, length});
  }
  void Write(std::span<const RowChunk>, BlockPlan*, size_t*) override {}
  int node_count() const override { return 1; }
  int buffer_count() const override { return 0; }
};

// ---- Fixed width --------------------------------------------------------------------------

template <int kWidth>
void GatherFixed(const uint8_t* values, const uint32_t* rows, int64_t count, uint8_t* dest) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dest + i * kWidth, values + static_cast<int64_t>(rows[i]) * kWidth, kWidth);
  }
}

void GatherFixedAnyWidth(const uint8_t* values, const uint32_t* rows, int64_t count, int64_t width,
                         uint8_t* dest) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dest + i * width, values + static_cast<int64_t>(rows[i]) * width,
                static_cast<size_t>(width));
  }
}

// kWidth is the value width in bytes, or 0 for a width known only at run time
// (fixed_size_binary).
template <int kWidth>
class FixedWidthGather final : public ColumnGather {
 public:
  explicit FixedWidthGather(int64_t width) : width_(kWidth != 0 ? kWidth : width) {}

  void Plan(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) override {
    PlanNodeWithValidity(chunks, length, plan);
    PlannedBuffer values;
    values.size = length * width_;
    if (IsSingleRange(chunks)) {
      const ArrayData& array = *chunks[0].array;
      values.direct = array.buffers[1].data + (array.offset + chunks[0].start) * width_;
    }
    plan->buffers.push_back(values);
  }

  void Write(std::span<const RowChunk> chunks, BlockPlan* plan, size_t* buffer_index) override {
    WriteValidity(chunks, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& values = plan->buffers[(*buffer_index)++];
    if (values.direct != nullptr || values.size == 0) return;
    uint8_t* dest = values.destination;
    for (const RowChunk& chunk : chunks) {
      const ArrayData& array = *chunk.array;
      const uint8_t* source = array.buffers[1].data + array.offset * width_;
      if (chunk.rows == nullptr) {
        std::memcpy(dest, source + chunk.start * width_, static_cast<size_t>(chunk.count * width_));
      } else if constexpr (kWidth != 0) {
        GatherFixed<kWidth>(source, chunk.rows, chunk.count, dest);
      } else {
        GatherFixedAnyWidth(source, chunk.rows, chunk.count, width_, dest);
      }
      dest += chunk.count * width_;
    }
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 2; }

 private:
  int64_t width_;
};

// ---- Boolean ------------------------------------------------------------------------------

class BooleanGather final : public ColumnGather {
 public:
  void Plan(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) override {
    PlanNodeWithValidity(chunks, length, plan);
    PlannedBuffer values;
    values.size = bits::BytesForBits(length);
    if (IsSingleRange(chunks)) {
      const ArrayData& array = *chunks[0].array;
      const int64_t first_bit = array.offset + chunks[0].start;
      if ((first_bit & 7) == 0) values.direct = array.buffers[1].data + (first_bit >> 3);
    }
    plan->buffers.push_back(values);
  }

  void Write(std::span<const RowChunk> chunks, BlockPlan* plan, size_t* buffer_index) override {
    WriteValidity(chunks, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& values = plan->buffers[(*buffer_index)++];
    if (values.direct != nullptr || values.size == 0) return;
    uint8_t* dest = values.destination;
    std::memset(dest, 0, static_cast<size_t>(values.size));
    int64_t position = 0;
    for (const RowChunk& chunk : chunks) {
      const ArrayData& array = *chunk.array;
      const uint8_t* source = array.buffers[1].data;
      if (chunk.rows == nullptr) {
        bits::CopyBits(source, array.offset + chunk.start, chunk.count, dest, position);
      } else {
        for (int64_t i = 0; i < chunk.count; ++i) {
          if (bits::GetBit(source, array.offset + chunk.rows[i])) bits::SetBit(dest, position + i);
        }
      }
      position += chunk.count;
    }
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 2; }
};

// ---- Offsets (binary-like, list, map) -----------------------------------------------------

// Plans an offsets buffer of length + 1 entries; usable as it is when one range starts at 0.
template <typename Offset>
PlannedBuffer PlanOffsets(std::span<const RowChunk> chunks, int64_t length) {
  PlannedBuffer offsets;
  offsets.size = (length + 1) * static_cast<int64_t>(sizeof(Offset));
  if (IsSingleRange(chunks)) {
    const Offset* source = chunks[0].array->template value_offsets<Offset>() + chunks[0].start;
    if (source[0] == 0) offsets.direct = reinterpret_cast<const uint8_t*>(source);
  }
  return offsets;
}

// Writes offsets rebased to start at zero.
template <typename Offset>
void WriteOffsets(std::span<const RowChunk> chunks, const PlannedBuffer& buffer) {
  if (buffer.direct != nullptr) return;
  auto* dest = reinterpret_cast<Offset*>(buffer.destination);
  Offset running = 0;
  dest[0] = 0;
  int64_t position = 1;
  for (const RowChunk& chunk : chunks) {
    const Offset* source = chunk.array->template value_offsets<Offset>();
    if (chunk.rows == nullptr) {
      const Offset base = source[chunk.start];
      const Offset shift = static_cast<Offset>(running - base);
      for (int64_t i = 1; i <= chunk.count; ++i) {
        dest[position++] = static_cast<Offset>(source[chunk.start + i] + shift);
      }
      running = static_cast<Offset>(source[chunk.start + chunk.count] + shift);
    } else {
      for (int64_t i = 0; i < chunk.count; ++i) {
        const uint32_t row = chunk.rows[i];
        running = static_cast<Offset>(running + (source[row + 1] - source[row]));
        dest[position++] = running;
      }
    }
  }
}

// Returns the number of child values (or bytes) the selected rows span.
template <typename Offset>
int64_t SpannedValues(std::span<const RowChunk> chunks) {
  int64_t total = 0;
  for (const RowChunk& chunk : chunks) {
    const Offset* source = chunk.array->template value_offsets<Offset>();
    if (chunk.rows == nullptr) {
      total += source[chunk.start + chunk.count] - source[chunk.start];
    } else {
      for (int64_t i = 0; i < chunk.count; ++i) {
        total += source[chunk.rows[i] + 1] - source[chunk.rows[i]];
      }
    }
  }
  return total;
}

template <typename Offset>
class BinaryGather final : public ColumnGather {
 public:
  void Plan(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) override {
    PlanNodeWithValidity(chunks, length, plan);
    plan->buffers.push_back(PlanOffsets<Offset>(chunks, length));
    PlannedBuffer data;
    data.size = SpannedValues<Offset>(chunks);
    if (data.size > std::numeric_limits<Offset>::max()) plan->offsets_overflow = true;
    if (IsSingleRange(chunks)) {
      const ArrayData& array = *chunks[0].array;
      data.direct = array.value_bytes() + array.value_offsets<Offset>()[chunks[0].start];
    }
    plan->buffers.push_back(data);
  }

  void Write(std::span<const RowChunk> chunks, BlockPlan* plan, size_t* buffer_index) override {
    WriteValidity(chunks, plan->buffers[(*buffer_index)++]);
    WriteOffsets<Offset>(chunks, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& data = plan->buffers[(*buffer_index)++];
    if (data.direct != nullptr || data.size == 0) return;
    uint8_t* dest = data.destination;
    for (const RowChunk& chunk : chunks) {
      const Offset* offsets = chunk.array->template value_offsets<Offset>();
      const uint8_t* bytes = chunk.array->value_bytes();
      if (chunk.rows == nullptr) {
        const int64_t begin = offsets[chunk.start];
        const int64_t size = offsets[chunk.start + chunk.count] - begin;
        std::memcpy(dest, bytes + begin, static_cast<size_t>(size));
        dest += size;
      } else {
        for (int64_t i = 0; i < chunk.count; ++i) {
          const uint32_t row = chunk.rows[i];
          const int64_t size = offsets[row + 1] - offsets[row];
          std::memcpy(dest, bytes + offsets[row], static_cast<size_t>(size));
          dest += size;
        }
      }
    }
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 3; }
};

// ---- List, large list, map ----------------------------------------------------------------

template <typename Offset>
class ListGather final : public ColumnGather {
 public:
  explicit ListGather(const DataType& type) : child_(ColumnGather::Make(type.child_type(0))) {}

  void Plan(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) override {
    PlanNodeWithValidity(chunks, length, plan);
    plan->buffers.push_back(PlanOffsets<Offset>(chunks, length));
    // The child rows: one range per contiguous chunk, one per selected row otherwise, merged
    // when they touch.
    child_chunks_.clear();
    int64_t child_length = 0;
    for (const RowChunk& chunk : chunks) {
      const Offset* offsets = chunk.array->template value_offsets<Offset>();
      const ArrayData* child = &chunk.array->children[0];
      if (chunk.rows == nullptr) {
        AddChildRange(child, offsets[chunk.start], offsets[chunk.start + chunk.count]);
      } else {
        for (int64_t i = 0; i < chunk.count; ++i) {
          AddChildRange(child, offsets[chunk.rows[i]], offsets[chunk.rows[i] + 1]);
        }
      }
    }
    for (const RowChunk& chunk : child_chunks_) child_length += chunk.count;
    if (child_length > std::numeric_limits<Offset>::max()) plan->offsets_overflow = true;
    child_->Plan(child_chunks_, child_length, plan);
  }

  void Write(std::span<const RowChunk> chunks, BlockPlan* plan, size_t* buffer_index) override {
    WriteValidity(chunks, plan->buffers[(*buffer_index)++]);
    WriteOffsets<Offset>(chunks, plan->buffers[(*buffer_index)++]);
    child_->Write(child_chunks_, plan, buffer_index);
  }

  int node_count() const override { return 1 + child_->node_count(); }
  int buffer_count() const override { return 2 + child_->buffer_count(); }

 private:
  void AddChildRange(const ArrayData* child, int64_t begin, int64_t end) {
    if (end <= begin) return;
    if (!child_chunks_.empty()) {
      RowChunk& last = child_chunks_.back();
      if (last.array == child && last.start + last.count == begin) {
        last.count += end - begin;
        return;
      }
    }
    child_chunks_.push_back(RowChunk{child, nullptr, begin, end - begin});
  }

  std::unique_ptr<ColumnGather> child_;
  std::vector<RowChunk> child_chunks_;
};

// ---- Struct -------------------------------------------------------------------------------

class StructGather final : public ColumnGather {
 public:
  explicit StructGather(const DataType& type) {
    for (const Field& field : type.children()) children_.push_back(ColumnGather::Make(*field.type));
    child_chunks_.resize(children_.size());
  }

  void Plan(std::span<const RowChunk> chunks, int64_t length, BlockPlan* plan) override {
    PlanNodeWithValidity(chunks, length, plan);
    // Children are aligned with the struct, so they take the same rows.
    for (size_t c = 0; c < children_.size(); ++c) {
      std::vector<RowChunk>& child_chunks = child_chunks_[c];
      child_chunks.clear();
      for (const RowChunk& chunk : chunks) {
        child_chunks.push_back(
            RowChunk{&chunk.array->children[c], chunk.rows, chunk.start, chunk.count});
      }
      children_[c]->Plan(child_chunks, length, plan);
    }
  }

  void Write(std::span<const RowChunk> chunks, BlockPlan* plan, size_t* buffer_index) override {
    WriteValidity(chunks, plan->buffers[(*buffer_index)++]);
    for (size_t c = 0; c < children_.size(); ++c) {
      children_[c]->Write(child_chunks_[c], plan, buffer_index);
    }
  }

  int node_count() const override {
    int count = 1;
    for (const auto& child : children_) count += child->node_count();
    return count;
  }
  int buffer_count() const override {
    int count = 1;
    for (const auto& child : children_) count += child->buffer_count();
    return count;
  }

 private:
  std::vector<std::unique_ptr<ColumnGather>> children_;
  std::vector<std::vector<RowChunk>> child_chunks_;
};

}  // namespace

std::unique_ptr<ColumnGather> ColumnGather::Make(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::make_unique<NullGather>();
    case TypeId::kBoolean:
      return std::make_unique<BooleanGather>();
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return std::make_unique<FixedWidthGather<1>>(1);
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return std::make_unique<FixedWidthGather<2>>(2);
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
      return std::make_unique<FixedWidthGather<4>>(4);
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
      return std::make_unique<FixedWidthGather<8>>(8);
    case TypeId::kDecimal128:
      return std::make_unique<FixedWidthGather<16>>(16);
    case TypeId::kFixedSizeBinary:
      return std::make_unique<FixedWidthGather<0>>(type.byte_width());
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return std::make_unique<BinaryGather<int32_t>>();
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      return std::make_unique<BinaryGather<int64_t>>();
    case TypeId::kList:
    case TypeId::kMap:
      return std::make_unique<ListGather<int32_t>>(type);
    case TypeId::kLargeList:
      return std::make_unique<ListGather<int64_t>>(type);
    case TypeId::kStruct:
      return std::make_unique<StructGather>(type);
  }
  SLUICE_CHECK(false, "unhandled type in ColumnGather::Make");
  return nullptr;
}

}  // namespace sluice::ipc
