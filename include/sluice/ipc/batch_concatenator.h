// BatchConcatenator: joins small batches of one schema into one batch, copying each value once
// into a single arena. The reader's coalescing uses it; it shares the map side's gather, so every
// type is handled the same way in both directions.
#pragma once

#include <memory>
#include <span>

#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"

namespace sluice {

class BatchConcatenator {
 public:
  /// Makes a concatenator for batches of `schema`; build once, reuse for every group.
  static Result<std::unique_ptr<BatchConcatenator>> Make(SchemaPtr schema);
  ~BatchConcatenator();

  /// Returns the rows of `batches`, in order, as one batch that owns its memory. A dictionary
  /// column's dictionary holds the values its rows use, each batch's once (batches sharing a
  /// dictionary share its values).
  Result<RecordBatch> Concatenate(std::span<const RecordBatch* const> batches);

  /// True when the last Concatenate failed only because a dictionary column would need more
  /// values than its index type numbers (batches with different dictionaries): fewer batches
  /// at a time fit.
  bool dictionary_overflow() const;

 private:
  class Impl;
  explicit BatchConcatenator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
