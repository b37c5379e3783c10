// RecordBatch: equal-length columns with a schema, and the owners that keep their memory alive.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sluice/format/array_data.h"
#include "sluice/format/schema.h"

namespace sluice {

/// Something that keeps borrowed memory alive: an imported C Data array, a decode arena, a
/// builder's buffers. Destroying the last reference releases the memory.
using MemoryOwner = std::shared_ptr<const void>;

/// A batch of rows in columnar form. Its column views borrow from `owners()`, and their types
/// from `schema()`.
class RecordBatch {
 public:
  RecordBatch() = default;
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayData> columns,
              std::vector<MemoryOwner> owners)
      : schema_(std::move(schema)),
        num_rows_(num_rows),
        columns_(std::move(columns)),
        owners_(std::move(owners)) {}

  struct Storage;
  /// Takes the vectors of `storage` (see TakeStorage), leaving it empty.
  RecordBatch(SchemaPtr schema, int64_t num_rows, Storage&& storage);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  size_t num_columns() const { return columns_.size(); }
  const std::vector<ArrayData>& columns() const { return columns_; }
  const ArrayData& column(size_t index) const { return columns_[index]; }
  const std::vector<MemoryOwner>& owners() const { return owners_; }

  /// Returns rows [start, start + count) sharing this batch's memory.
  RecordBatch Slice(int64_t start, int64_t count) const;

  /// Returns the bytes of all buffers the columns reference (see ReferencedBytes).
  int64_t ReferencedBytes() const;

  /// The vectors a batch is built in. From TakeStorage, `columns` still holds the ended batch's
  /// columns, whose views must not be read: a producer overwrites them (or clears the vector),
  /// which costs less than destroying them and building new ones; `owners` is empty.
  struct Storage {
    std::vector<ArrayData> columns;
    std::vector<MemoryOwner> owners;
  };

  /// Ends `batch` (it is left empty, the memory it kept alive released) and returns its
  /// vectors, with their capacity, for a producer to build its next batch in.
  static Storage TakeStorage(RecordBatch&& batch);

 private:
  SchemaPtr schema_;
  int64_t num_rows_ = 0;
  std::vector<ArrayData> columns_;
  std::vector<MemoryOwner> owners_;
};

inline RecordBatch::RecordBatch(SchemaPtr schema, int64_t num_rows, Storage&& storage)
    : schema_(std::move(schema)),
      num_rows_(num_rows),
      columns_(std::move(storage.columns)),
      owners_(std::move(storage.owners)) {}

}  // namespace sluice
