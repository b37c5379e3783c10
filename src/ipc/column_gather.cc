#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_map>

#include "column_gather_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/check.h"
#include "sluice/format/type_visitor.h"

namespace sluice::ipc {

namespace {

template <typename Selection>
constexpr bool kIsRows = std::is_same_v<Selection, RowSelection>;

// How far ahead a gather over scattered rows asks for the memory of a row (a cache miss each):
// far enough that many misses are in flight at once. Measured on the mixed input at 200
// partitions (map_writer_benchmark, medians of 8 alternating runs): 32 rows took 0.90 of the
// time of 16 and 0.94 of 64.
constexpr int64_t kPrefetchRows = 32;

// The average stretch of one source, in rows, below which a selection is not split by source.
constexpr int64_t kMinStretchRows = 8;

// Calls visit(context_of(source), i) for every entry i of a row selection, in order, where
// `source` is the entry's and context_of returns what the loop needs of that source (its base
// pointers). When the selection is split into stretches of one source, the context is made once
// a stretch and held in registers (a uint8_t store may alias the tables it comes from, so the
// compiler would otherwise load it again after every store); otherwise once an entry.
template <typename ContextOf, typename Visit>
void ForEachEntry(const RowSelection& selection, ContextOf&& context_of, Visit&& visit) {
  if (selection.stretches == nullptr) {
    for (int64_t i = 0; i < selection.count; ++i) visit(context_of(selection.sources[i]), i);
    return;
  }
  for (size_t k = 0; k < selection.stretch_count; ++k) {
    const SourceStretch stretch = selection.stretches[k];
    const auto context = context_of(stretch.source);
    for (int64_t i = stretch.begin; i < stretch.end; ++i) visit(context, i);
  }
}

// ForEachEntry, with ask(context, row) called before each entry for the entry kPrefetchRows
// ahead (into the next blocks' rows near the end): the rows are scattered over the held
// batches, so each is a cache miss, and asking ahead keeps many in flight. Within a stretch the
// entry ahead shares the stretch's context; near a stretch's end it is made for the entry's own.
template <typename ContextOf, typename Ask, typename Visit>
void ForEachEntryAhead(const RowSelection& selection, ContextOf&& context_of, Ask&& ask,
                       Visit&& visit) {
  const uint32_t* sources = selection.sources;
  const uint32_t* rows = selection.rows;
  const int64_t last = selection.readable - 1;
  if (selection.stretches == nullptr) {
    for (int64_t i = 0; i < selection.count; ++i) {
      const int64_t ahead = std::min(i + kPrefetchRows, last);
      ask(context_of(sources[ahead]), rows[ahead]);
      visit(context_of(sources[i]), i);
    }
    return;
  }
  for (size_t k = 0; k < selection.stretch_count; ++k) {
    const SourceStretch stretch = selection.stretches[k];
    const auto context = context_of(stretch.source);
    const int64_t near_end = std::max(stretch.begin, stretch.end - kPrefetchRows);
    int64_t i = stretch.begin;
    for (; i < near_end; ++i) {
      ask(context, rows[i + kPrefetchRows]);
      visit(context, i);
    }
    for (; i < stretch.end; ++i) {
      const int64_t ahead = std::min(i + kPrefetchRows, last);
      ask(context_of(sources[ahead]), rows[ahead]);
      visit(context, i);
    }
  }
}

// Calls f(source, start, count) for every contiguous piece, in order.
template <typename F>
void ForEachRun(const RowSelection& selection, F&& f) {
  for (int64_t i = 0; i < selection.count; ++i) f(selection.sources[i], selection.rows[i], 1);
}
template <typename F>
void ForEachRun(const RunSelection& selection, F&& f) {
  for (size_t r = 0; r < selection.size; ++r) {
    f(selection.runs[r].source, selection.runs[r].start, selection.runs[r].count);
  }
}

// The one run of a selection that is a single contiguous range of one source, or null.
const Run* SingleRun(const RowSelection&) {
  return nullptr;
}
const Run* SingleRun(const RunSelection& selection) {
  return selection.size == 1 ? selection.runs : nullptr;
}

// A source's validity bitmap: null data when the source has no nulls.
struct SourceBitmap {
  const uint8_t* data = nullptr;
  int64_t offset = 0;
};

// Shared by every node type: the bound sources and their validity bitmaps, and the node plus
// validity buffer of the output.
class NodeWithValidity : public ColumnGather {
 public:
  void Bind(std::span<const ArrayData* const> sources) override {
    sources_.assign(sources.begin(), sources.end());
    validity_.resize(sources.size());
    any_nulls_ = false;
    for (size_t s = 0; s < sources.size(); ++s) {
      const ArrayData& array = *sources[s];
      const bool has_nulls = array.null_count != 0 && array.buffers[0].data != nullptr;
      validity_[s] = SourceBitmap{has_nulls ? array.buffers[0].data : nullptr, array.offset};
      any_nulls_ |= has_nulls;
    }
    BindChildren();
  }

 protected:
  virtual void BindChildren() {}

  template <typename Selection>
  void PlanNode(const Selection& selection, BlockPlan* plan) {
    int64_t nulls = 0;
    if (any_nulls_) {
      if constexpr (kIsRows<Selection>) {
        const uint32_t* rows = selection.rows;
        ForEachEntry(
            selection, [&](uint32_t source) { return validity_[source]; },
            [&](const SourceBitmap& bitmap, int64_t i) {
              if (bitmap.data != nullptr)
                nulls += !bits::GetBit(bitmap.data, bitmap.offset + rows[i]);
            });
      } else {
        ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
          const SourceBitmap& bitmap = validity_[source];
          if (bitmap.data != nullptr) {
            nulls += count - bits::CountSetBits(bitmap.data, bitmap.offset + start, count);
          }
        });
      }
    }
    plan->nodes.push_back(PlannedNode{selection.count, nulls});
    PlannedBuffer validity;
    if (nulls > 0) {
      validity.size = bits::BytesForBits(selection.count);
      if (const Run* run = SingleRun(selection)) {
        const SourceBitmap& bitmap = validity_[run->source];
        const int64_t first_bit = bitmap.offset + run->start;
        if ((first_bit & 7) == 0) validity.direct = bitmap.data + (first_bit >> 3);
      }
    }
    plan->buffers.push_back(validity);
  }

  template <typename Selection>
  void WriteValidity(const Selection& selection, const PlannedBuffer& buffer) {
    if (buffer.direct != nullptr || buffer.size == 0) return;
    uint8_t* dest = buffer.destination;
    if constexpr (kIsRows<Selection>) {
      // Entry i of the selection is bit i of the output; the entries come in order, so each
      // output byte is built in a register and stored once.
      const uint32_t* rows = selection.rows;
      unsigned byte = 0;
      ForEachEntry(
          selection, [&](uint32_t source) { return validity_[source]; },
          [&](const SourceBitmap& bitmap, int64_t i) {
            const bool valid =
                bitmap.data == nullptr || bits::GetBit(bitmap.data, bitmap.offset + rows[i]);
            byte |= unsigned{valid} << (i & 7);
            if ((i & 7) == 7) {
              dest[i >> 3] = static_cast<uint8_t>(byte);
              byte = 0;
            }
          });
      if ((selection.count & 7) != 0) dest[selection.count >> 3] = static_cast<uint8_t>(byte);
    } else {
      std::memset(dest, 0, static_cast<size_t>(buffer.size));
      int64_t position = 0;
      ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
        const SourceBitmap& bitmap = validity_[source];
        if (bitmap.data == nullptr) {
          bits::FillBits(dest, position, count, true);
        } else {
          bits::CopyBits(bitmap.data, bitmap.offset + start, count, dest, position);
        }
        position += count;
      });
    }
  }

  std::vector<const ArrayData*> sources_;
  std::vector<SourceBitmap> validity_;
  bool any_nulls_ = false;
};

// Dispatches the virtual Plan/Write of both selection kinds to Derived's templates.
template <typename Derived>
class GatherNode : public NodeWithValidity {
 public:
  void Plan(const RowSelection& selection, BlockPlan* plan) override {
    static_cast<Derived*>(this)->PlanSelection(selection, plan);
  }
  void Plan(const RunSelection& selection, BlockPlan* plan) override {
    static_cast<Derived*>(this)->PlanSelection(selection, plan);
  }
  void Write(const RowSelection& selection, BlockPlan* plan, size_t* buffer_index) override {
    static_cast<Derived*>(this)->WriteSelection(selection, plan, buffer_index);
  }
  void Write(const RunSelection& selection, BlockPlan* plan, size_t* buffer_index) override {
    static_cast<Derived*>(this)->WriteSelection(selection, plan, buffer_index);
  }
};

// ---- Null ---------------------------------------------------------------------------------

class NullGather final : public GatherNode<NullGather> {
 public:
  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    plan->nodes.push_back(PlannedNode{selection.count, selection.count});
  }
  template <typename Selection>
  void WriteSelection(const Selection&, BlockPlan*, size_t*) {}
  int node_count() const override { return 1; }
  int buffer_count() const override { return 0; }
};

// ---- Fixed width --------------------------------------------------------------------------

// kWidth is the value width in bytes, or 0 for a width known only at run time
// (fixed_size_binary).
template <int kWidth>
class FixedWidthGather final : public GatherNode<FixedWidthGather<kWidth>> {
 public:
  explicit FixedWidthGather(int64_t width) : width_(kWidth != 0 ? kWidth : width) {}

  void BindChildren() override {
    values_.resize(this->sources_.size());
    for (size_t s = 0; s < this->sources_.size(); ++s) {
      const ArrayData& array = *this->sources_[s];
      values_[s] = array.buffers[1].data == nullptr ? nullptr
                                                    : array.buffers[1].data + array.offset * width_;
    }
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    this->PlanNode(selection, plan);
    PlannedBuffer values;
    values.size = selection.count * width_;
    if (const Run* run = SingleRun(selection))
      values.direct = values_[run->source] + run->start * width_;
    plan->buffers.push_back(values);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    this->WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& values = plan->buffers[(*buffer_index)++];
    if (values.direct != nullptr || values.size == 0) return;
    uint8_t* dest = values.destination;
    if constexpr (kIsRows<Selection> && kWidth != 0) {
      const uint8_t* const* bases = values_.data();
      const uint32_t* rows = selection.rows;
      // The rows are scattered over the held batches, so each is a cache miss: ask for the
      // value kPrefetchRows ahead (into the next blocks' rows near the end), so that many
      // misses are in flight at once.
      ForEachEntryAhead(
          selection, [&](uint32_t source) { return bases[source]; },
          [&](const uint8_t* base, uint32_t row) {
            __builtin_prefetch(base + static_cast<int64_t>(row) * kWidth);
          },
          [&](const uint8_t* base, int64_t i) {
            std::memcpy(dest + i * kWidth, base + static_cast<int64_t>(rows[i]) * kWidth, kWidth);
          });
    } else {
      ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
        std::memcpy(dest, values_[source] + start * width_, static_cast<size_t>(count * width_));
        dest += count * width_;
      });
    }
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 2; }

 private:
  int64_t width_;
  std::vector<const uint8_t*> values_;  // per source, advanced to its offset
};

// ---- Boolean ------------------------------------------------------------------------------

class BooleanGather final : public GatherNode<BooleanGather> {
 public:
  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    PlanNode(selection, plan);
    PlannedBuffer values;
    values.size = bits::BytesForBits(selection.count);
    if (const Run* run = SingleRun(selection)) {
      const ArrayData& array = *sources_[run->source];
      const int64_t first_bit = array.offset + run->start;
      if ((first_bit & 7) == 0) values.direct = array.buffers[1].data + (first_bit >> 3);
    }
    plan->buffers.push_back(values);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& values = plan->buffers[(*buffer_index)++];
    if (values.direct != nullptr || values.size == 0) return;
    uint8_t* dest = values.destination;
    std::memset(dest, 0, static_cast<size_t>(values.size));
    int64_t position = 0;
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      const ArrayData& array = *sources_[source];
      bits::CopyBits(array.buffers[1].data, array.offset + start, count, dest, position);
      position += count;
    });
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 2; }
};

// ---- Offsets (binary-like, list, map) -----------------------------------------------------

// Shared by binary-like and list-like nodes: per-source offsets advanced to the array's offset,
// and the rebased offsets buffer of the output.
template <typename Offset, typename Derived>
class OffsetsNode : public GatherNode<Derived> {
 protected:
  void BindOffsets() {
    offsets_.resize(this->sources_.size());
    for (size_t s = 0; s < this->sources_.size(); ++s) {
      const ArrayData& array = *this->sources_[s];
      offsets_[s] = array.length == 0 ? &kZeroOffset : array.template value_offsets<Offset>();
    }
  }

  // Plans the offsets buffer (length + 1 entries); usable as it is when one range starts at 0.
  template <typename Selection>
  PlannedBuffer PlanOffsets(const Selection& selection) const {
    PlannedBuffer offsets;
    offsets.size = (selection.count + 1) * static_cast<int64_t>(sizeof(Offset));
    if (const Run* run = SingleRun(selection)) {
      const Offset* source = offsets_[run->source] + run->start;
      if (source[0] == 0) offsets.direct = reinterpret_cast<const uint8_t*>(source);
    }
    return offsets;
  }

  // Returns the number of child values (or bytes) the selected rows span.
  template <typename Selection>
  int64_t Spanned(const Selection& selection) const {
    int64_t total = 0;
    if constexpr (kIsRows<Selection>) {
      // The first pass over the rows' offsets, a cache miss each: ask for them ahead.
      const uint32_t* rows = selection.rows;
      ForEachEntryAhead(
          selection, [&](uint32_t source) { return offsets_[source]; },
          [&](const Offset* offsets, uint32_t row) { __builtin_prefetch(offsets + row); },
          [&](const Offset* offsets, int64_t i) {
            const Offset* row_offsets = offsets + rows[i];
            total += row_offsets[1] - row_offsets[0];
          });
    } else {
      ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
        total += offsets_[source][start + count] - offsets_[source][start];
      });
    }
    return total;
  }

  // Writes the offsets rebased to start at zero.
  template <typename Selection>
  void WriteOffsets(const Selection& selection, const PlannedBuffer& buffer) const {
    if (buffer.direct != nullptr) return;
    auto* dest = reinterpret_cast<Offset*>(buffer.destination);
    Offset running = 0;
    dest[0] = 0;
    int64_t position = 1;
    if constexpr (kIsRows<Selection>) {
      const uint32_t* rows = selection.rows;
      ForEachEntry(
          selection, [&](uint32_t source) { return offsets_[source]; },
          [&](const Offset* offsets, int64_t i) {
            const Offset* row_offsets = offsets + rows[i];
            running = static_cast<Offset>(running + (row_offsets[1] - row_offsets[0]));
            dest[i + 1] = running;
          });
    } else {
      ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
        const Offset* offsets = offsets_[source];
        const Offset shift = static_cast<Offset>(running - offsets[start]);
        for (int64_t k = 1; k <= count; ++k) {
          dest[position++] = static_cast<Offset>(offsets[start + k] + shift);
        }
        running = static_cast<Offset>(offsets[start + count] + shift);
      });
    }
  }

  static constexpr Offset kZeroOffset = 0;
  std::vector<const Offset*> offsets_;  // per source, advanced to its offset
};

template <typename Offset>
class BinaryGather final : public OffsetsNode<Offset, BinaryGather<Offset>> {
 public:
  void BindChildren() override {
    this->BindOffsets();
    bytes_.resize(this->sources_.size());
    bytes_end_.resize(this->sources_.size());
    for (size_t s = 0; s < this->sources_.size(); ++s) {
      const ArrayData& array = *this->sources_[s];
      bytes_[s] = array.value_bytes();
      bytes_end_[s] = array.value_bytes() + array.buffers[2].size;
    }
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    this->PlanNode(selection, plan);
    plan->buffers.push_back(this->PlanOffsets(selection));
    PlannedBuffer data;
    data.size = this->Spanned(selection);
    if (data.size > std::numeric_limits<Offset>::max()) plan->offsets_overflow = true;
    if (const Run* run = SingleRun(selection)) {
      data.direct = bytes_[run->source] + this->offsets_[run->source][run->start];
    }
    plan->buffers.push_back(data);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    this->WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    this->WriteOffsets(selection, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& data = plan->buffers[(*buffer_index)++];
    if (data.direct != nullptr || data.size == 0) return;
    uint8_t* dest = data.destination;
    uint8_t* const dest_end = dest + data.size;
    if constexpr (kIsRows<Selection>) {
      // The offsets of the rows ahead were asked for by Plan; ask for their bytes now.
      const uint32_t* rows = selection.rows;
      ForEachEntryAhead(
          selection, [&](uint32_t source) { return BytesOf(source); },
          [&](const SourceBytes& from, uint32_t row) {
            // A short value's kShortCopy-byte copy may cross into the next cache line. (Its
            // last byte may lie past the buffer: an integer address, as no pointer may point
            // there; a prefetch never faults.)
            const uint8_t* value = from.bytes + from.offsets[row];
            __builtin_prefetch(value);
            __builtin_prefetch(
                reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(value) + kShortCopy - 1));
          },
          [&](const SourceBytes& from, int64_t i) {
            dest = CopyValues(from, rows[i], 1, dest, dest_end);
          });
    } else {
      ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
        dest = CopyValues(BytesOf(source), start, count, dest, dest_end);
      });
    }
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 3; }

 private:
  static constexpr int64_t kShortCopy = 32;

  // A source's offsets (advanced to its offset) and data buffer, with the buffer's end.
  struct SourceBytes {
    const Offset* offsets;
    const uint8_t* bytes;
    const uint8_t* bytes_end;
  };

  SourceBytes BytesOf(uint32_t source) const {
    return SourceBytes{this->offsets_[source], bytes_[source], bytes_end_[source]};
  }

  // Copies the bytes of values [start, start + count) of `source` to `dest`, which has room up
  // to `dest_end`; returns the end of the copied bytes.
  static uint8_t* CopyValues(const SourceBytes& source, int64_t start, int64_t count, uint8_t* dest,
                             const uint8_t* dest_end) {
    const int64_t begin = source.offsets[start];
    const int64_t size = source.offsets[start + count] - begin;
    const uint8_t* from = source.bytes + begin;
    if (size <= kShortCopy && dest_end - dest >= kShortCopy &&
        source.bytes_end - from >= kShortCopy) {
      // A short value, with room to read and write a whole kShortCopy bytes: one fixed-size
      // copy, inlined, instead of a call that branches on the size (most strings are short).
      // The bytes past the value are overwritten by the values after it.
      std::memcpy(dest, from, kShortCopy);
    } else if (size > 0) {
      // A run of empty values may come from an array without a data buffer (null pointer).
      std::memcpy(dest, from, static_cast<size_t>(size));
    }
    return dest + size;
  }

  std::vector<const uint8_t*> bytes_;      // per source, its data buffer
  std::vector<const uint8_t*> bytes_end_;  // per source, the end of its data buffer
};

// ---- Binary view, utf8 view ---------------------------------------------------------------

// Views are copied; the bytes of values over 12 bytes are gathered into one data buffer, and
// their views point into it (variadic buffer 0). A null row gets an empty view: what a
// producer left in the view of a null slot is never read.
class ViewGather final : public GatherNode<ViewGather> {
 public:
  void BindChildren() override {
    views_.resize(sources_.size());
    for (size_t s = 0; s < sources_.size(); ++s) {
      const ArrayData& array = *sources_[s];
      views_[s] = SourceViews{
          array.buffers[1].data == nullptr ? nullptr : array.buffers[1].data + array.offset * 16,
          array.variadic_buffers.data(), validity_[s]};
    }
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    this->PlanNode(selection, plan);
    plan->buffers.push_back(PlannedBuffer{selection.count * kViewBytes, nullptr, nullptr});
    int64_t data_size = 0;
    ForEachSelected(selection, [&](const SourceViews& from, int64_t row) {
      if (!from.IsNull(row)) data_size += OutOfLineSize(from.view(row));
    });
    if (data_size > std::numeric_limits<int32_t>::max()) plan->offsets_overflow = true;
    plan->buffers.push_back(PlannedBuffer{data_size, nullptr, nullptr, /*variadic=*/true});
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    this->WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    const PlannedBuffer& views = plan->buffers[(*buffer_index)++];
    const PlannedBuffer& data = plan->buffers[(*buffer_index)++];
    uint8_t* view_out = views.destination;
    uint8_t* data_out = data.destination;
    int32_t data_position = 0;
    // Out-of-line values that follow each other in a source buffer (as in Sluice's own
    // segments) are copied as one span: a copy per value is a library call each.
    const uint8_t* span_begin = nullptr;
    const uint8_t* span_end = nullptr;
    int32_t span_position = 0;
    auto flush = [&] {
      if (span_end != span_begin) {
        std::memcpy(data_out + span_position, span_begin,
                    static_cast<size_t>(span_end - span_begin));
      }
    };
    ForEachSelected(selection, [&](const SourceViews& from, int64_t row) {
      if (from.IsNull(row)) {
        std::memset(view_out, 0, kViewBytes);
      } else {
        const uint8_t* view = from.view(row);
        std::memcpy(view_out, view, kViewBytes);
        if (const int32_t size = OutOfLineSize(view); size > 0) {
          const auto* value =
              reinterpret_cast<const uint8_t*>(ViewBytes(view, from.variadic).data());
          if (value != span_end) {
            flush();
            span_begin = value;
            span_position = data_position;
          }
          span_end = value + size;
          const int32_t zero = 0;
          std::memcpy(view_out + 8, &zero, 4);
          std::memcpy(view_out + 12, &data_position, 4);
          data_position += size;
        }
      }
      view_out += kViewBytes;
    });
    flush();
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 3; }

 private:
  static constexpr int64_t kViewBytes = 16;

  // A source's views (advanced to its offset), its variadic buffers and its validity.
  struct SourceViews {
    const uint8_t* views;
    const BufferView* variadic;
    SourceBitmap validity;
    const uint8_t* view(int64_t row) const { return views + row * kViewBytes; }
    bool IsNull(int64_t row) const {
      return validity.data != nullptr && !bits::GetBit(validity.data, validity.offset + row);
    }
  };

  // The bytes of a view's value outside the view: its length over 12 bytes, else 0.
  static int32_t OutOfLineSize(const uint8_t* view) {
    int32_t size;
    std::memcpy(&size, view, 4);
    return size > 12 ? size : 0;
  }

  // Calls visit(source views, row) for every selected row, in order.
  template <typename Visit>
  void ForEachSelected(const RowSelection& selection, Visit&& visit) const {
    const uint32_t* rows = selection.rows;
    ForEachEntry(
        selection, [&](uint32_t source) -> const SourceViews& { return views_[source]; },
        [&](const SourceViews& from, int64_t i) { visit(from, rows[i]); });
  }
  template <typename Visit>
  void ForEachSelected(const RunSelection& selection, Visit&& visit) const {
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      for (int64_t row = start; row < start + count; ++row) visit(views_[source], row);
    });
  }

  std::vector<SourceViews> views_;
};

// Appends child rows [begin, begin + length) of `source` to `runs`, merged into the last run
// when they continue it; returns `length` (none when it is not positive).
int64_t AppendChildRun(uint32_t source, int64_t begin, int64_t length, std::vector<Run>* runs) {
  if (length <= 0) return 0;
  if (!runs->empty()) {
    Run& last = runs->back();
    if (last.source == source && last.start + last.count == begin) {
      last.count += length;
      return length;
    }
  }
  runs->push_back(Run{source, begin, length});
  return length;
}

// ---- List, large list, map ----------------------------------------------------------------

template <typename Offset>
class ListGather final : public OffsetsNode<Offset, ListGather<Offset>> {
 public:
  explicit ListGather(const DataType& type) : child_(ColumnGather::Make(type.child_type(0))) {}

  void BindChildren() override {
    this->BindOffsets();
    child_sources_.resize(this->sources_.size());
    for (size_t s = 0; s < this->sources_.size(); ++s) {
      child_sources_[s] = &this->sources_[s]->children[0];
    }
    child_->Bind(child_sources_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    this->PlanNode(selection, plan);
    plan->buffers.push_back(this->PlanOffsets(selection));
    // The child's rows: the element range of every selected row, merged when they touch.
    child_runs_.clear();
    int64_t child_length = 0;
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      const Offset* offsets = this->offsets_[source];
      const int64_t begin = offsets[start];
      const int64_t end = offsets[start + count];
      child_length += AppendChildRun(source, begin, end - begin, &child_runs_);
    });
    if (child_length > std::numeric_limits<Offset>::max()) plan->offsets_overflow = true;
    child_selection_ = RunSelection{child_runs_.data(), child_runs_.size(), child_length};
    child_->Plan(child_selection_, plan);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    this->WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    this->WriteOffsets(selection, plan->buffers[(*buffer_index)++]);
    child_->Write(child_selection_, plan, buffer_index);
  }

  int node_count() const override { return 1 + child_->node_count(); }
  int buffer_count() const override { return 2 + child_->buffer_count(); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    child_->CollectDictionaries(out);
  }

 private:
  std::unique_ptr<ColumnGather> child_;
  std::vector<const ArrayData*> child_sources_;
  std::vector<Run> child_runs_;
  RunSelection child_selection_;
};

// ---- List view, large list view ----------------------------------------------------------

// A row's elements are wherever its offset and size say, in any order: the output lays the
// selected rows' elements out one after another (merged into runs where they touch), so its
// offsets increase and its sizes are the rows' own; a null row gets size 0.
template <typename Offset>
class ListViewGather final : public GatherNode<ListViewGather<Offset>> {
 public:
  explicit ListViewGather(const DataType& type) : child_(ColumnGather::Make(type.child_type(0))) {}

  void BindChildren() override {
    child_sources_.resize(this->sources_.size());
    for (size_t s = 0; s < this->sources_.size(); ++s) {
      child_sources_[s] = &this->sources_[s]->children[0];
    }
    child_->Bind(child_sources_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    this->PlanNode(selection, plan);
    const int64_t entries_bytes = selection.count * static_cast<int64_t>(sizeof(Offset));
    plan->buffers.push_back(PlannedBuffer{entries_bytes});  // offsets
    plan->buffers.push_back(PlannedBuffer{entries_bytes});  // sizes
    child_runs_.clear();
    int64_t child_length = 0;
    ForEachSelected(selection, [&](uint32_t source, int64_t row) {
      const auto [offset, size] = RangeOf(*this->sources_[source], row);
      child_length += AppendChildRun(source, offset, size, &child_runs_);
    });
    if (child_length > std::numeric_limits<Offset>::max()) plan->offsets_overflow = true;
    child_selection_ = RunSelection{child_runs_.data(), child_runs_.size(), child_length};
    child_->Plan(child_selection_, plan);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    this->WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    uint8_t* offsets = plan->buffers[(*buffer_index)++].destination;
    uint8_t* sizes = plan->buffers[(*buffer_index)++].destination;
    Offset position = 0;
    int64_t i = 0;
    ForEachSelected(selection, [&](uint32_t source, int64_t row) {
      const auto size = static_cast<Offset>(RangeOf(*this->sources_[source], row).second);
      std::memcpy(offsets + i * sizeof(Offset), &position, sizeof(Offset));
      std::memcpy(sizes + i * sizeof(Offset), &size, sizeof(Offset));
      position += size;
      ++i;
    });
    child_->Write(child_selection_, plan, buffer_index);
  }

  int node_count() const override { return 1 + child_->node_count(); }
  int buffer_count() const override { return 3 + child_->buffer_count(); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    child_->CollectDictionaries(out);
  }

 private:
  // The child range of a row of a validated source; none for a null row.
  static std::pair<int64_t, int64_t> RangeOf(const ArrayData& source, int64_t row) {
    if (source.IsNull(row)) return {0, 0};
    return ListViewRange(source, row);
  }

  // Calls visit(source, row) for every selected row, in order.
  template <typename Visit>
  static void ForEachSelected(const RowSelection& selection, Visit&& visit) {
    for (int64_t i = 0; i < selection.count; ++i) visit(selection.sources[i], selection.rows[i]);
  }
  template <typename Visit>
  static void ForEachSelected(const RunSelection& selection, Visit&& visit) {
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      for (int64_t row = start; row < start + count; ++row) visit(source, row);
    });
  }

  std::unique_ptr<ColumnGather> child_;
  std::vector<const ArrayData*> child_sources_;
  std::vector<Run> child_runs_;
  RunSelection child_selection_;
};

// ---- Run-end encoded ----------------------------------------------------------------------

// No buffers of its own: a block's run ends and the values of its runs. Consecutive selected
// rows in one run of one source make one output run, so a block keeps its sources' runs (cut
// where the selection cuts them); the values are gathered from runs of physical indexes,
// merged where they touch.
template <typename RunEnd>
class RunEndEncodedGather final : public GatherNode<RunEndEncodedGather<RunEnd>> {
 public:
  explicit RunEndEncodedGather(const DataType& type)
      : values_(ColumnGather::Make(type.child_type(1))) {}

  void BindChildren() override {
    const size_t count = this->sources_.size();
    run_ends_.resize(count);
    value_sources_.resize(count);
    for (size_t s = 0; s < count; ++s) {
      run_ends_[s] = this->sources_[s]->children[0].template values<RunEnd>();
      value_sources_[s] = &this->sources_[s]->children[1];
    }
    values_->Bind(value_sources_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    plan->nodes.push_back(PlannedNode{selection.count, 0});
    ends_.clear();
    value_runs_.clear();
    // The run the last row fell in: its source, physical index and rows [begin, end) of the
    // source's view; a row inside it needs no search.
    uint32_t run_source = std::numeric_limits<uint32_t>::max();
    int64_t physical = 0;
    int64_t run_begin = 0;
    int64_t run_end = 0;
    int64_t position = 0;
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      const ArrayData& array = *this->sources_[source];
      int64_t row = start;
      const int64_t end = start + count;
      while (row < end) {
        // A row of the last row's run continues its output run (the same value, whatever the
        // order of the rows); any other row starts one.
        if (source != run_source || row < run_begin || row >= run_end) {
          const bool next_run = source == run_source && row == run_end;
          physical = next_run ? physical + 1 : RunEndPhysicalIndex(array, row);
          run_begin = physical == 0 ? 0 : run_ends_[source][physical - 1] - array.offset;
          run_end = run_ends_[source][physical] - array.offset;
          run_source = source;
          ends_.push_back(position);
          AppendChildRun(source, physical, 1, &value_runs_);
        }
        const int64_t length = std::min(run_end, end) - row;
        position += length;
        ends_.back() = position;
        row += length;
      }
    });
    if (position > std::numeric_limits<RunEnd>::max()) plan->offsets_overflow = true;
    const auto runs = static_cast<int64_t>(ends_.size());
    plan->nodes.push_back(PlannedNode{runs, 0});  // run_ends
    plan->buffers.push_back(PlannedBuffer{});     // their validity: none
    plan->buffers.push_back(PlannedBuffer{runs * static_cast<int64_t>(sizeof(RunEnd))});
    value_selection_ = RunSelection{value_runs_.data(), value_runs_.size(), runs};
    values_->Plan(value_selection_, plan);
  }

  template <typename Selection>
  void WriteSelection(const Selection&, BlockPlan* plan, size_t* buffer_index) {
    ++*buffer_index;  // the run ends' validity
    uint8_t* out = plan->buffers[(*buffer_index)++].destination;
    for (size_t i = 0; i < ends_.size(); ++i) {
      const auto end = static_cast<RunEnd>(ends_[i]);
      std::memcpy(out + i * sizeof(RunEnd), &end, sizeof(RunEnd));
    }
    values_->Write(value_selection_, plan, buffer_index);
  }

  int node_count() const override { return 2 + values_->node_count(); }
  int buffer_count() const override { return 2 + values_->buffer_count(); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    values_->CollectDictionaries(out);
  }

 private:
  std::unique_ptr<ColumnGather> values_;
  std::vector<const RunEnd*> run_ends_;  // per source, advanced to its run ends' offset
  std::vector<const ArrayData*> value_sources_;
  std::vector<int64_t> ends_;  // the output's run ends
  std::vector<Run> value_runs_;
  RunSelection value_selection_;
};

// ---- Fixed-size list ----------------------------------------------------------------------

// No offsets: a selected row's elements are its list_size child rows, so the child is gathered
// from runs of whole rows' elements, merged where they touch.
class FixedSizeListGather final : public GatherNode<FixedSizeListGather> {
 public:
  explicit FixedSizeListGather(const DataType& type)
      : list_size_(type.list_size()), child_(ColumnGather::Make(type.child_type(0))) {}

  void BindChildren() override {
    child_sources_.resize(sources_.size());
    for (size_t s = 0; s < sources_.size(); ++s) child_sources_[s] = &sources_[s]->children[0];
    child_->Bind(child_sources_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    PlanNode(selection, plan);
    child_runs_.clear();
    int64_t child_length = 0;
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      const int64_t begin = (sources_[source]->offset + start) * list_size_;
      child_length += AppendChildRun(source, begin, count * list_size_, &child_runs_);
    });
    child_selection_ = RunSelection{child_runs_.data(), child_runs_.size(), child_length};
    child_->Plan(child_selection_, plan);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    child_->Write(child_selection_, plan, buffer_index);
  }

  int node_count() const override { return 1 + child_->node_count(); }
  int buffer_count() const override { return 1 + child_->buffer_count(); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    child_->CollectDictionaries(out);
  }

 private:
  int64_t list_size_;
  std::unique_ptr<ColumnGather> child_;
  std::vector<const ArrayData*> child_sources_;
  std::vector<Run> child_runs_;
  RunSelection child_selection_;
};

// ---- Struct -------------------------------------------------------------------------------

// One gather per field of a struct or union, bound to the sources' children of that field.
class FieldGathers {
 public:
  explicit FieldGathers(const DataType& type) {
    for (const Field& field : type.children()) gathers_.push_back(ColumnGather::Make(*field.type));
    sources_.resize(gathers_.size());
  }

  void Bind(std::span<const ArrayData* const> parents) {
    for (size_t c = 0; c < gathers_.size(); ++c) {
      sources_[c].resize(parents.size());
      for (size_t s = 0; s < parents.size(); ++s) sources_[c][s] = &parents[s]->children[c];
      gathers_[c]->Bind(sources_[c]);
    }
  }

  size_t size() const { return gathers_.size(); }
  ColumnGather& operator[](size_t c) { return *gathers_[c]; }

  // The fields' nodes and buffers after the parent's own.
  int node_count(int own) const {
    for (const auto& gather : gathers_) own += gather->node_count();
    return own;
  }
  int buffer_count(int own) const {
    for (const auto& gather : gathers_) own += gather->buffer_count();
    return own;
  }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) {
    for (const auto& gather : gathers_) gather->CollectDictionaries(out);
  }

 private:
  std::vector<std::unique_ptr<ColumnGather>> gathers_;
  std::vector<std::vector<const ArrayData*>> sources_;
};

class StructGather final : public GatherNode<StructGather> {
 public:
  explicit StructGather(const DataType& type) : fields_(type) {}

  // Children are aligned with their struct, so the same rows select them.
  void BindChildren() override { fields_.Bind(sources_); }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    PlanNode(selection, plan);
    for (size_t c = 0; c < fields_.size(); ++c) fields_[c].Plan(selection, plan);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    for (size_t c = 0; c < fields_.size(); ++c) fields_[c].Write(selection, plan, buffer_index);
  }

  int node_count() const override { return fields_.node_count(1); }
  int buffer_count() const override { return fields_.buffer_count(1); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    fields_.CollectDictionaries(out);
  }

 private:
  FieldGathers fields_;
};

// ---- Unions ---------------------------------------------------------------------------------

// The type ids of the selected rows (no validity: a union's nulls are its children's), shared by
// both modes; a single run is used as it lies.
class UnionTypeIds {
 public:
  void Bind(std::span<const ArrayData* const> sources) {
    ids_.resize(sources.size());
    for (size_t s = 0; s < sources.size(); ++s) {
      ids_[s] = sources[s]->buffers[0].data + sources[s]->offset;
    }
  }

  template <typename Selection>
  void Plan(const Selection& selection, BlockPlan* plan) const {
    plan->nodes.push_back(PlannedNode{selection.count, 0});
    PlannedBuffer ids{selection.count};
    if (const Run* run = SingleRun(selection)) ids.direct = ids_[run->source] + run->start;
    plan->buffers.push_back(ids);
  }

  template <typename Selection>
  void Write(const Selection& selection, const PlannedBuffer& buffer) const {
    if (buffer.direct != nullptr || buffer.size == 0) return;
    uint8_t* out = buffer.destination;
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      std::memcpy(out, ids_[source] + start, static_cast<size_t>(count));
      out += count;
    });
  }

  int8_t At(uint32_t source, int64_t row) const { return static_cast<int8_t>(ids_[source][row]); }

 private:
  std::vector<const uint8_t*> ids_;  // per source, advanced to its offset
};

// Every child is as long as the union and aligned with it: the same rows select them.
class SparseUnionGather final : public GatherNode<SparseUnionGather> {
 public:
  explicit SparseUnionGather(const DataType& type) : fields_(type) {}

  void BindChildren() override {
    ids_.Bind(sources_);
    fields_.Bind(sources_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    ids_.Plan(selection, plan);
    for (size_t c = 0; c < fields_.size(); ++c) fields_[c].Plan(selection, plan);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    ids_.Write(selection, plan->buffers[(*buffer_index)++]);
    for (size_t c = 0; c < fields_.size(); ++c) fields_[c].Write(selection, plan, buffer_index);
  }

  int node_count() const override { return fields_.node_count(1); }
  int buffer_count() const override { return fields_.buffer_count(1); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    fields_.CollectDictionaries(out);
  }

 private:
  UnionTypeIds ids_;
  FieldGathers fields_;
};

// Each selected row's value is gathered from the child its type id selects, in order, so a
// block's offsets count up within each child from zero.
class DenseUnionGather final : public GatherNode<DenseUnionGather> {
 public:
  explicit DenseUnionGather(const DataType& type) : type_(type), fields_(type) {
    const size_t count = fields_.size();
    picked_sources_.resize(count);
    picked_rows_.resize(count);
    child_selections_.resize(count);
  }

  void BindChildren() override {
    ids_.Bind(sources_);
    offsets_.resize(sources_.size());
    for (size_t s = 0; s < sources_.size(); ++s) {
      offsets_[s] = sources_[s]->buffers[1].data + sources_[s]->offset * 4;
    }
    fields_.Bind(sources_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    ids_.Plan(selection, plan);
    plan->buffers.push_back(PlannedBuffer{selection.count * 4});  // offsets
    for (size_t c = 0; c < fields_.size(); ++c) {
      picked_sources_[c].clear();
      picked_rows_[c].clear();
    }
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      for (int64_t row = start; row < start + count; ++row) {
        const auto child = static_cast<size_t>(type_.child_for_type_code(ids_.At(source, row)));
        picked_sources_[child].push_back(source);
        picked_rows_[child].push_back(
            static_cast<uint32_t>(bits::LoadUnaligned<int32_t>(offsets_[source] + row * 4)));
      }
    });
    for (size_t c = 0; c < fields_.size(); ++c) {
      const auto picked = static_cast<int64_t>(picked_rows_[c].size());
      child_selections_[c] =
          RowSelection{picked_sources_[c].data(), picked_rows_[c].data(), picked, picked};
      fields_[c].Plan(child_selections_[c], plan);
    }
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    ids_.Write(selection, plan->buffers[(*buffer_index)++]);
    uint8_t* offsets = plan->buffers[(*buffer_index)++].destination;
    next_offsets_.assign(fields_.size(), 0);
    int64_t i = 0;
    ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
      for (int64_t row = start; row < start + count; ++row, ++i) {
        const int child = type_.child_for_type_code(ids_.At(source, row));
        const int32_t offset = next_offsets_[static_cast<size_t>(child)]++;
        std::memcpy(offsets + i * 4, &offset, 4);
      }
    });
    for (size_t c = 0; c < fields_.size(); ++c) {
      fields_[c].Write(child_selections_[c], plan, buffer_index);
    }
  }

  int node_count() const override { return fields_.node_count(1); }
  int buffer_count() const override { return fields_.buffer_count(2); }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override {
    fields_.CollectDictionaries(out);
  }

 private:
  const DataType& type_;
  UnionTypeIds ids_;
  std::vector<const uint8_t*> offsets_;  // per source, advanced to its offset
  FieldGathers fields_;
  // Per child, the (source, child row) of the selected rows it holds, in order.
  std::vector<std::vector<uint32_t>> picked_sources_;
  std::vector<std::vector<uint32_t>> picked_rows_;
  std::vector<RowSelection> child_selections_;
  std::vector<int32_t> next_offsets_;
};

// ---- Dictionary ---------------------------------------------------------------------------

// True when two arrays view the same memory (buffers, offsets, children): the sources of one
// flush that share a dictionary (a producer's batches usually do) are told apart from those that
// do not without comparing values.
bool SameArrayMemory(const ArrayData& a, const ArrayData& b) {
  if (a.offset != b.offset || a.length != b.length || a.children.size() != b.children.size() ||
      a.variadic_buffers.size() != b.variadic_buffers.size()) {
    return false;
  }
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    if (a.buffers[i].data != b.buffers[i].data || a.buffers[i].size != b.buffers[i].size) {
      return false;
    }
  }
  for (size_t i = 0; i < a.variadic_buffers.size(); ++i) {
    if (a.variadic_buffers[i].data != b.variadic_buffers[i].data) return false;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!SameArrayMemory(a.children[i], b.children[i])) return false;
  }
  return true;
}

// The validity as any node's; the indices renumbered into the block's dictionary while the
// block is planned (kept at the column's index type), so the indices buffer is planned as
// already written. Each distinct dictionary among the sources has a numbering table, made at
// its first use and cleared after every block.
class DictionaryGather final : public GatherNode<DictionaryGather>, public DictionaryColumn {
 public:
  explicit DictionaryGather(const DataType& type)
      : value_type_(*type.value_type()),
        width_(BitWidth(*type.index_type()) / 8),
        max_index_(MaxIndex(type.index_type()->id())),
        values_(ColumnGather::Make(*type.value_type())) {}

  void BindChildren() override {
    const size_t count = sources_.size();
    dictionaries_.resize(count);
    numbering_of_.resize(count);
    numberings_.clear();
    for (size_t s = 0; s < count; ++s) {
      dictionaries_[s] = &sources_[s]->children[0];
      // Sources sharing a dictionary's memory share its numbering (and the first one's rows).
      size_t shared = s;
      for (size_t n = 0; n < numberings_.size(); ++n) {
        if (SameArrayMemory(*dictionaries_[numberings_[n].source], *dictionaries_[s])) {
          shared = n;
          break;
        }
      }
      if (shared == s) {
        shared = numberings_.size();
        numberings_.push_back(
            Numbering{static_cast<uint32_t>(s), dictionaries_[s]->length, {}, {}});
      }
      numbering_of_[s] = static_cast<uint32_t>(shared);
    }
    values_->Bind(dictionaries_);
  }

  template <typename Selection>
  void PlanSelection(const Selection& selection, BlockPlan* plan) {
    PlanNode(selection, plan);
    used_sources_.clear();
    used_rows_.clear();
    indices_.resize(static_cast<size_t>(selection.count * width_) + 8);
    uint8_t* out = indices_.data();
    int64_t position = 0;
    const auto renumber = [&](uint32_t source, int64_t row) {
      const ArrayData& array = *sources_[source];
      int64_t number = 0;
      if (array.IsValid(row)) {
        Numbering& numbering = numberings_[numbering_of_[source]];
        const int64_t index = DictionaryIndexAt(array, row);
        int32_t& assigned = numbering.NumberOf(index);
        if (assigned < 0) {
          // Past INT32_MAX values the block overflows (below), so the number is never read.
          assigned = static_cast<int32_t>(
              std::min<size_t>(used_rows_.size(), std::numeric_limits<int32_t>::max()));
          used_sources_.push_back(numbering.source);
          used_rows_.push_back(static_cast<uint32_t>(index));
        }
        number = assigned;
      }
      // Little-endian: the low bytes of the number, at the index type's width.
      std::memcpy(out + position * width_, &number, static_cast<size_t>(width_));
      ++position;
    };
    if constexpr (kIsRows<Selection>) {
      for (int64_t i = 0; i < selection.count; ++i) {
        renumber(selection.sources[i], selection.rows[i]);
      }
    } else {
      ForEachRun(selection, [&](uint32_t source, int64_t start, int64_t count) {
        for (int64_t row = start; row < start + count; ++row) renumber(source, row);
      });
    }
    if (static_cast<int64_t>(used_rows_.size()) - 1 >
        std::min<int64_t>(max_index_, std::numeric_limits<int32_t>::max() - 1)) {
      plan->dictionary_overflow = true;
    }
    // Cleared for the next block: only the entries this one set.
    for (size_t k = 0; k < used_rows_.size(); ++k) {
      numberings_[numbering_of_[used_sources_[k]]].Forget(used_rows_[k]);
    }
    const auto used = static_cast<int64_t>(used_rows_.size());
    used_ = RowSelection{used_sources_.data(), used_rows_.data(), used, used, nullptr, 0};
    PlannedBuffer indices;
    indices.size = selection.count * width_;
    indices.direct = indices_.data();
    plan->buffers.push_back(indices);
  }

  template <typename Selection>
  void WriteSelection(const Selection& selection, BlockPlan* plan, size_t* buffer_index) {
    WriteValidity(selection, plan->buffers[(*buffer_index)++]);
    ++*buffer_index;  // the indices, planned as written
  }

  int node_count() const override { return 1; }
  int buffer_count() const override { return 2; }
  void CollectDictionaries(std::vector<DictionaryColumn*>* out) override { out->push_back(this); }

  const DataType& value_type() const override { return value_type_; }
  ColumnGather& values() override { return *values_; }
  const RowSelection& used_values() const override { return used_; }

 private:
  // The largest index an index column of type `id` holds (an int64's largest, beyond).
  static int64_t MaxIndex(TypeId id) {
    constexpr int64_t kLargest = std::numeric_limits<int64_t>::max();
    return VisitIntegerType(
        id,
        [](auto index_type) {
          using Index = typename decltype(index_type)::type;
          return static_cast<int64_t>(
              std::min<uint64_t>(std::numeric_limits<Index>::max(), uint64_t{kLargest}));
        },
        [] { return kLargest; });
  }

  // A dictionary's numbering in the block being planned: a table of its rows, made at its first
  // use, or for a dictionary of more than kMaxDenseRows rows (its table would be larger than the
  // rows a flush holds, as a rule) a hash map of the rows used.
  struct Numbering {
    static constexpr int64_t kMaxDenseRows = int64_t{1} << 20;

    uint32_t source = 0;  // the first source with this dictionary
    int64_t dictionary_length = 0;
    std::vector<int32_t> dense;  // per dictionary row: its number in the block, or -1
    std::unordered_map<int64_t, int32_t> sparse;

    int32_t& NumberOf(int64_t index) {
      if (dictionary_length > kMaxDenseRows) return sparse.try_emplace(index, -1).first->second;
      if (dense.empty()) dense.assign(static_cast<size_t>(dictionary_length), -1);
      return dense[static_cast<size_t>(index)];
    }
    void Forget(int64_t index) {
      if (dictionary_length > kMaxDenseRows) {
        sparse.erase(index);
      } else {
        dense[static_cast<size_t>(index)] = -1;
      }
    }
  };

  const DataType& value_type_;
  int64_t width_;
  int64_t max_index_;
  std::unique_ptr<ColumnGather> values_;
  std::vector<const ArrayData*> dictionaries_;  // per source
  std::vector<uint32_t> numbering_of_;          // per source
  std::vector<Numbering> numberings_;
  std::vector<uint8_t> indices_;
  std::vector<uint32_t> used_sources_;
  std::vector<uint32_t> used_rows_;
  RowSelection used_;
};

}  // namespace

RowSelection SplitBySource(const uint32_t* sources, const uint32_t* rows, int64_t count,
                           int64_t readable, std::vector<SourceStretch>* out) {
  // Short stretches (many partitions: a block's rows from each batch are few) cost more to
  // enter than they save; such a selection is read entry by entry.
  const RowSelection by_entry{sources, rows, count, readable, nullptr, 0};
  const size_t max_stretches = static_cast<size_t>(count / kMinStretchRows);
  if (max_stretches < 2) return by_entry;
  if (out->size() < max_stretches) out->resize(max_stretches);
  SourceStretch* stretches = out->data();
  size_t stretch_count = 0;
  uint32_t source = sources[0];
  int64_t begin = 0;
  for (int64_t i = 1; i < count; ++i) {
    if (sources[i] != source) {
      if (stretch_count == max_stretches) return by_entry;
      stretches[stretch_count++] = SourceStretch{source, begin, i};
      source = sources[i];
      begin = i;
    }
  }
  if (stretch_count == max_stretches) return by_entry;
  stretches[stretch_count++] = SourceStretch{source, begin, count};
  return RowSelection{sources, rows, count, readable, stretches, stretch_count};
}

namespace {

// Fixed-width values are gathered by their byte width alone, whatever their type.
std::unique_ptr<ColumnGather> MakeFixedWidthGather(int64_t byte_width) {
  switch (byte_width) {
    case 1:
      return std::make_unique<FixedWidthGather<1>>(1);
    case 2:
      return std::make_unique<FixedWidthGather<2>>(2);
    case 4:
      return std::make_unique<FixedWidthGather<4>>(4);
    case 8:
      return std::make_unique<FixedWidthGather<8>>(8);
    case 16:
      return std::make_unique<FixedWidthGather<16>>(16);
    default:
      return std::make_unique<FixedWidthGather<0>>(byte_width);
  }
}

}  // namespace

std::unique_ptr<ColumnGather> ColumnGather::Make(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::make_unique<NullGather>();
    case TypeId::kBoolean:
      return std::make_unique<BooleanGather>();
    case TypeId::kInt8:
    case TypeId::kUInt8:
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kIntervalYearMonth:
    case TypeId::kIntervalDayTime:
    case TypeId::kIntervalMonthDayNano:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
    case TypeId::kFixedSizeBinary:
      return MakeFixedWidthGather(BitWidth(type) / 8);
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
    case TypeId::kListView:
      return std::make_unique<ListViewGather<int32_t>>(type);
    case TypeId::kLargeListView:
      return std::make_unique<ListViewGather<int64_t>>(type);
    case TypeId::kStruct:
      return std::make_unique<StructGather>(type);
    case TypeId::kFixedSizeList:
      return std::make_unique<FixedSizeListGather>(type);
    case TypeId::kBinaryView:
    case TypeId::kUtf8View:
      return std::make_unique<ViewGather>();
    case TypeId::kSparseUnion:
      return std::make_unique<SparseUnionGather>(type);
    case TypeId::kDenseUnion:
      return std::make_unique<DenseUnionGather>(type);
    case TypeId::kDictionary:
      return std::make_unique<DictionaryGather>(type);
    case TypeId::kRunEndEncoded:
      switch (type.child_type(0).id()) {
        case TypeId::kInt16:
          return std::make_unique<RunEndEncodedGather<int16_t>>(type);
        case TypeId::kInt32:
          return std::make_unique<RunEndEncodedGather<int32_t>>(type);
        default:
          return std::make_unique<RunEndEncodedGather<int64_t>>(type);
      }
  }
  SLUICE_CHECK(false, "unhandled type in ColumnGather::Make");
  return nullptr;
}

}  // namespace sluice::ipc
