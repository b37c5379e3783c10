// Spark's RoundRobinPartitioning: ShuffleExchangeExec starts each map task at
// XORShiftRandom(partitionId).nextInt(n), then for every row does `position += 1` (an Int, so it
// wraps after 2^31 rows) and HashPartitioner sends the row to nonNegativeMod(position, n).
#include <algorithm>
#include <climits>

#include "partition/partitioner_internal.h"
#include "sluice/partition/positive_modulo.h"
#include "sluice/partition/xor_shift_random.h"

namespace sluice::internal {

namespace {

class RoundRobinPartitioner final : public Partitioner {
 public:
  RoundRobinPartitioner(int32_t partition_count, int32_t start_position)
      : modulo_(static_cast<uint32_t>(partition_count)),
        partition_count_(partition_count),
        position_(start_position) {}

  PartitionKind kind() const override { return PartitionKind::kRoundRobin; }
  int32_t partition_count() const override { return partition_count_; }

  Status Partition(const RecordBatch& batch, uint32_t* partition_ids) override {
    const int64_t rows = batch.num_rows();
    const auto last = static_cast<uint32_t>(partition_count_ - 1);
    int64_t row = 0;
    while (row < rows) {
      if (position_ == INT32_MAX) {
        // Java's Int wraps here, and pmod of the new, negative position does not continue the
        // cycle: start it again from there.
        position_ = INT32_MIN;
        partition_ids[row++] = modulo_.Pmod(position_);
        continue;
      }
      // Rows up to the wrap continue the cycle one partition at a time.
      const int64_t run = std::min<int64_t>(rows - row, int64_t{INT32_MAX} - position_);
      uint32_t current = modulo_.Pmod(position_ + 1);
      for (int64_t i = 0; i < run; ++i) {
        partition_ids[row + i] = current;
        current = current == last ? 0 : current + 1;
      }
      position_ = static_cast<int32_t>(position_ + run);
      row += run;
    }
    return Status::OK();
  }

 private:
  PositiveModulo modulo_;
  int32_t partition_count_;
  int32_t position_;  // Spark's `position`: the last row went to pmod(position_, n)
};

}  // namespace

Result<std::unique_ptr<Partitioner>> MakeRoundRobinPartitioner(const PartitionerOptions& options,
                                                               const Schema& schema) {
  if (options.partition_count < 1) {
    return Status::Invalid("partition_count must be at least 1, got ", options.partition_count);
  }
  switch (options.round_robin_mode) {
    case RoundRobinMode::kSpark:
      if (options.map_partition_id < 0) {
        return Status::Invalid("map_partition_id must not be negative, got ",
                               options.map_partition_id);
      }
      return std::unique_ptr<Partitioner>(std::make_unique<RoundRobinPartitioner>(
          options.partition_count,
          RoundRobinStartPosition(options.map_partition_id, options.partition_count)));
    case RoundRobinMode::kRowHash:
      return MakeRowHashPartitioner(options, schema);
    case RoundRobinMode::kSparkSorted:
      return Status::NotImplemented(
          "round-robin mode spark-sorted ranks every row of the map task before placing any: "
          "it takes a SortedRoundRobinWriter, not a partitioner");
  }
  return Status::Invalid("unknown round-robin mode ", static_cast<int>(options.round_robin_mode));
}

}  // namespace sluice::internal
