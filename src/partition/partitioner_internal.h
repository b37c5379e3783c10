// The factories of each partitioning kind behind MakePartitioner, and the key-column check they
// share.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/format/data_type.h"
#include "sluice/partition/partitioner.h"

namespace sluice::internal {

/// Rows are partitioned in chunks of this many rows so that per-row scratch (hash states, search
/// ranges) stays in the L1 cache however large the batch: 1024 uint32 states are 4 KiB.
inline constexpr int64_t kPartitionChunkRows = 1024;

/// The key columns of a partitioner: their indices and the types the schema gave them, checked
/// against every batch (once per batch, not per row).
class KeyColumns {
 public:
  KeyColumns() = default;

  /// Checks `indices` against `schema`; `role` names the keys in messages ("hash key").
  static Result<KeyColumns> Make(std::vector<int> indices, const Schema& schema,
                                 std::string_view role);

  const std::vector<int>& indices() const { return indices_; }
  const std::vector<TypePtr>& types() const { return types_; }

  /// Fails when `batch` lacks a key column, gives it another type, or has a column shorter than
  /// the batch.
  Status Check(const RecordBatch& batch) const;

 private:
  std::vector<int> indices_;
  std::vector<TypePtr> types_;
  std::string role_;
};

Result<std::unique_ptr<Partitioner>> MakeHashPartitioner(const PartitionerOptions& options,
                                                         const Schema& schema);
Result<std::unique_ptr<Partitioner>> MakeRangePartitioner(const PartitionerOptions& options,
                                                          const Schema& schema);
Result<std::unique_ptr<Partitioner>> MakeRoundRobinPartitioner(const PartitionerOptions& options,
                                                               const Schema& schema);
/// Round-robin's row-hash mode: a hash partitioner over the key columns, or all columns.
Result<std::unique_ptr<Partitioner>> MakeRowHashPartitioner(const PartitionerOptions& options,
                                                            const Schema& schema);
Result<std::unique_ptr<Partitioner>> MakeSinglePartitioner(const PartitionerOptions& options);
Result<std::unique_ptr<Partitioner>> MakeGivenPartitioner(const PartitionerOptions& options,
                                                          const Schema& schema);

}  // namespace sluice::internal
