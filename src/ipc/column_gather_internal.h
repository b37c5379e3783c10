// ColumnGather: collects selected rows of one column, from any number of source batches, into
// the Arrow IPC body layout (a FieldNode per node and the buffers in pre-order).
//
// This is the map side's only copy of the data. A gather tree is built once per schema. The
// writer binds it to the batches it holds (once per spill or finish: a table of source arrays
// per node, with base pointers resolved), then asks for one block per partition with the rows
// given as two parallel arrays, source batch and row, straight from its counting sort. Each block
// is planned in one pass (lengths, null counts, buffer sizes) and written in a second, every
// buffer straight to its final place: the output when there is no codec, the codec's input
// otherwise. The per-row loops index the bound tables, so a block of ten rows from ten batches
// costs ten rows, not ten chunks of setup. When one contiguous range of one source is selected,
// a buffer whose offsets line up is used as it is and nothing is gathered.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sluice/format/array_data.h"

namespace sluice::ipc {

/// Entries [begin, end) of a RowSelection, all of one source.
struct SourceStretch {
  uint32_t source = 0;
  int64_t begin = 0;
  int64_t end = 0;
};

/// Rows `rows[i]` of source `sources[i]`, for i in [0, count). Entries [count, readable) may
/// be read too, and name rows of the bound sources (those of the blocks that come next): a
/// gather asks for their memory ahead, so that the cache misses of a short block overlap with
/// those of the next ones.
struct RowSelection {
  const uint32_t* sources = nullptr;
  const uint32_t* rows = nullptr;
  int64_t count = 0;
  int64_t readable = 0;  // >= count
  /// The entries [0, count) split where the source changes, in order, or null (see
  /// SplitBySource): the per-row loops run stretch by stretch, with the source's tables looked
  /// up once a stretch, or else entry by entry.
  const SourceStretch* stretches = nullptr;
  size_t stretch_count = 0;
};

/// Returns the selection of rows `rows[i]` of source `sources[i]`, split by source into `out`
/// when its stretches are long enough to pay for themselves.
RowSelection SplitBySource(const uint32_t* sources, const uint32_t* rows, int64_t count,
                           int64_t readable, std::vector<SourceStretch>* out);

/// A contiguous range of one source.
struct Run {
  uint32_t source = 0;
  int64_t start = 0;
  int64_t count = 0;
};

/// Ranges of sources, in order; `count` is the total number of rows.
struct RunSelection {
  const Run* runs = nullptr;
  size_t size = 0;
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
  /// The data buffer of a view column (a variadic buffer). An empty one is still written with
  /// the 8-byte length prefix when compressed: polars reads a variadic buffer's prefix
  /// whatever its length (and panics on an empty one), as it does not for other buffers.
  bool variadic = false;
};

/// The nodes and buffers of one block, reused from block to block.
struct BlockPlan {
  std::vector<PlannedNode> nodes;
  std::vector<PlannedBuffer> buffers;
  /// Set when a column with 32-bit offsets would span more than INT32_MAX values or bytes, or a
  /// run-end encoded column more rows than its run end type holds (32,767 for int16).
  bool offsets_overflow = false;
  /// Set when a block's dictionary of a dictionary-encoded column holds more values than the
  /// column's index type can number (batches with different dictionaries in one block).
  bool dictionary_overflow = false;

  void Clear() {
    nodes.clear();
    buffers.clear();
    offsets_overflow = false;
    dictionary_overflow = false;
  }
};

class ColumnGather;

/// A dictionary-encoded column of a gather tree. A block's indices are renumbered into a
/// dictionary of the values the block's rows use, each once, in order of first use: the values
/// that the DictionaryBatch message written before the block holds. (Sources that share one
/// dictionary share its numbering, so a value is in a block's dictionary once.)
class DictionaryColumn {
 public:
  virtual ~DictionaryColumn() = default;
  /// The type of the dictionary's values, and their gather, bound to the sources' dictionaries.
  virtual const DataType& value_type() const = 0;
  virtual ColumnGather& values() = 0;
  /// The values the last planned block uses: rows of the bound sources' dictionaries.
  virtual const RowSelection& used_values() const = 0;
};

class ColumnGather {
 public:
  virtual ~ColumnGather() = default;

  /// Makes the gather tree for `type`.
  static std::unique_ptr<ColumnGather> Make(const DataType& type);

  /// Binds the source arrays (one per source batch, all of this column's type). They must stay
  /// alive and unchanged while blocks are gathered from them.
  virtual void Bind(std::span<const ArrayData* const> sources) = 0;

  /// Appends this column's nodes and buffers for the selected rows to `plan`.
  virtual void Plan(const RowSelection& selection, BlockPlan* plan) = 0;
  virtual void Plan(const RunSelection& selection, BlockPlan* plan) = 0;
  /// Writes the buffers planned by the last Plan call with the same selection, reading their
  /// destinations from `plan` starting at `*buffer_index`, which it advances past this column's
  /// buffers.
  virtual void Write(const RowSelection& selection, BlockPlan* plan, size_t* buffer_index) = 0;
  virtual void Write(const RunSelection& selection, BlockPlan* plan, size_t* buffer_index) = 0;

  /// Returns how many nodes and buffers this column contributes (fixed by the type).
  virtual int node_count() const = 0;
  virtual int buffer_count() const = 0;

  /// Appends the dictionary-encoded columns of this tree to `out`, in pre-order (the order of
  /// their dictionary ids).
  virtual void CollectDictionaries(std::vector<DictionaryColumn*>* /*out*/) {}
};

}  // namespace sluice::ipc
