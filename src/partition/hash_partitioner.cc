// Spark's HashPartitioning: pmod(Murmur3Hash(keys, 42), n), and round-robin's row-hash mode,
// which is the same computation over all columns.
#include <algorithm>

#include "partition/column_hash_internal.h"
#include "partition/partitioner_internal.h"
#include "partition/row_prefetch_internal.h"
#include "sluice/partition/positive_modulo.h"
#include "sluice/partition/spark_hash.h"

namespace sluice::internal {

namespace {

class HashPartitioner final : public Partitioner {
 public:
  HashPartitioner(PartitionKind kind, KeyColumns keys, int32_t partition_count)
      : kind_(kind),
        keys_(std::move(keys)),
        wide_(WideVectorsFor(keys_)),
        modulo_(static_cast<uint32_t>(partition_count)),
        partition_count_(partition_count) {}

  PartitionKind kind() const override { return kind_; }
  int32_t partition_count() const override { return partition_count_; }

  Status Partition(const RecordBatch& batch, uint32_t* partition_ids) override {
    SLUICE_RETURN_NOT_OK(keys_.Check(batch));
    const int64_t rows = batch.num_rows();
    // The ids array holds the hash states; a chunk at a time keeps them in cache while every key
    // column folds into them.
    for (int64_t first = 0; first < rows; first += kPartitionChunkRows) {
      const int64_t count = std::min(kPartitionChunkRows, rows - first);
      uint32_t* states = partition_ids + first;
      PrefetchAhead(batch, keys_.indices(), first, count);
      const std::vector<int>& keys = keys_.indices();
      StartColumnMurmur3(batch.column(static_cast<size_t>(keys[0])), first, count, states, wide_);
      for (size_t k = 1; k < keys.size(); ++k) {
        FoldColumnMurmur3(batch.column(static_cast<size_t>(keys[k])), first, count, states, wide_);
      }
      modulo_.PmodInPlace(states, count);
    }
    return Status::OK();
  }

 private:
  static bool WideVectorsFor(const KeyColumns& keys) {
    return std::all_of(keys.types().begin(), keys.types().end(),
                       [](const TypePtr& type) { return HashesWithWideVectors(type->id()); });
  }

  PartitionKind kind_;
  KeyColumns keys_;
  bool wide_;  // hash with 512-bit vectors (HashesWithWideVectors)
  PositiveModulo modulo_;
  int32_t partition_count_;
};

}  // namespace

Result<std::unique_ptr<Partitioner>> MakeHashPartitioner(const PartitionerOptions& options,
                                                         const Schema& schema) {
  if (options.partition_count < 1) {
    return Status::Invalid("partition_count must be at least 1, got ", options.partition_count);
  }
  if (options.key_columns.empty()) {
    return Status::Invalid("hash partitioning needs at least one key column");
  }
  SLUICE_ASSIGN_OR_RAISE(KeyColumns keys,
                         KeyColumns::Make(options.key_columns, schema, "hash key"));
  return std::unique_ptr<Partitioner>(std::make_unique<HashPartitioner>(
      PartitionKind::kHash, std::move(keys), options.partition_count));
}

Result<std::unique_ptr<Partitioner>> MakeRowHashPartitioner(const PartitionerOptions& options,
                                                            const Schema& schema) {
  std::vector<int> columns = options.key_columns;
  if (columns.empty()) {
    for (size_t i = 0; i < schema.num_fields(); ++i) columns.push_back(static_cast<int>(i));
  }
  if (columns.empty()) {
    return Status::Invalid("round-robin row-hash mode needs at least one column to hash");
  }
  SLUICE_ASSIGN_OR_RAISE(KeyColumns keys, KeyColumns::Make(std::move(columns), schema, "row-hash"));
  return std::unique_ptr<Partitioner>(std::make_unique<HashPartitioner>(
      PartitionKind::kRoundRobin, std::move(keys), options.partition_count));
}

}  // namespace sluice::internal
