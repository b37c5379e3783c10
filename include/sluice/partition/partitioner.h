// Partitioner: the partition id of every row of a batch, as Spark would assign it.
//
// The map side of a shuffle splits each input batch by partition. The partitioner is the first
// step: the writer calls Partition() once per input batch with an output array of num_rows
// entries, then groups rows by the ids it got back. Sluice replaces Spark's own shuffle, so its
// ids must be Spark's, bit for bit: a reducer that reads partition 7 expects exactly the rows
// Spark would have sent there (co-partitioned joins and bucketed tables depend on it).
//
// The kinds (PartitionKind):
//   hash         pmod(Murmur3Hash(keys, seed 42), n), Spark's HashPartitioning (column_hash.h
//                lists how each type is hashed).
//   range        the number of bounds strictly below the key, Spark's RangePartitioner: a key
//                equal to a bound goes to that bound's partition. n = bounds + 1.
//   round-robin  Spark's RoundRobinPartitioning: the map task starts at
//                XORShiftRandom(map partition id).nextInt(n) and each row goes to the next
//                partition. Or, in the row-hash mode, a placement that depends only on the row.
//   single       every row to partition 0 (Spark's SinglePartition).
//   given        the host computed the ids: an Int32 column, checked to lie in [0, n).
//
// Each kind works a column at a time with loops specialised per type; see column_hash.h for the
// hash kernels and positive_modulo.h for the division-free pmod.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/base/status.h"
#include "sluice/format/record_batch.h"
#include "sluice/format/schema.h"

namespace sluice {

/// How rows are assigned to partitions.
enum class PartitionKind : uint8_t {
  kHash,        ///< "hash": Spark's HashPartitioning (Murmur3, seed 42, pmod).
  kRange,       ///< "range": Spark's RangePartitioner over sorted bounds.
  kRoundRobin,  ///< "round-robin": Spark's RoundRobinPartitioning, or its row-hash mode.
  kSingle,      ///< "single": everything to partition 0.
  kGiven,       ///< "given": partition ids precomputed by the host in an Int32 column.
};

/// How round-robin partitioning places rows.
enum class RoundRobinMode : uint8_t {
  /// "spark": exactly Spark's placement of rows in their arrival order. Depends on row order, so
  /// a retried map task whose input arrives in another order places rows differently (Spark
  /// sorts rows first when spark.sql.execution.sortBeforeRepartition is on: kSparkSorted).
  kSpark,
  /// "row-hash": pmod(Murmur3Hash(all columns, seed 42), n). Deterministic: placement depends
  /// only on a row's values, never on its position, so retries reproduce it. Rows that are equal
  /// go to the same partition (unlike Spark's mode, duplicates do not spread).
  kRowHash,
  /// "spark-sorted": Spark's placement after its sort before repartition: the map task's rows
  /// ranked by the Murmur3 hash (seed 42) of their UnsafeRow bytes, the row of rank r placed as
  /// kSpark places the r-th row. Placement depends only on the task's set of rows. Every row
  /// must be seen before the first is placed, and the rows' UnsafeRow form is the row layer's:
  /// SortedRoundRobinWriter (sluice/row) does it; a Partitioner refuses it.
  kSparkSorted,
};

/// The direction of one range key.
enum class SortDirection : uint8_t { kAscending, kDescending };

/// Where nulls sort for one range key, independent of the direction (as in Spark's SortOrder).
enum class NullOrdering : uint8_t { kNullsFirst, kNullsLast };

/// The order of one range key, as Spark's SortOrder. Spark's defaults are ascending with nulls
/// first, and descending with nulls last; set both fields to match the query.
struct SortOrder {
  SortDirection direction = SortDirection::kAscending;
  NullOrdering null_ordering = NullOrdering::kNullsFirst;
};

/// Everything a partitioner needs, for every kind; fields a kind does not use are ignored.
struct PartitionerOptions {
  /// The kind of partitioning. Default hash: Spark's default shuffle partitioning.
  PartitionKind kind = PartitionKind::kHash;

  /// The number of partitions n, at least 1. Range: may be left 0 to mean bounds + 1, and must
  /// equal bounds + 1 otherwise. Single: must be 1 (or 0, meaning 1). Default 1.
  int32_t partition_count = 1;

  /// Column indices of the keys, in order. Hash: one or more columns, any types. Range: one per
  /// bounds column, of the same types. Given: exactly one Int32 column holding the ids.
  /// Round-robin row-hash mode: the columns to hash, empty meaning all columns. Default empty.
  std::vector<int> key_columns;

  /// The map task's partition id, which seeds round-robin's start position as in Spark. Default 0.
  int32_t map_partition_id = 0;

  /// Round-robin placement. Default Spark's, the only one that agrees with Spark.
  RoundRobinMode round_robin_mode = RoundRobinMode::kSpark;

  /// Range: the bounds, one column per key (same types as the keys), one row per bound, sorted
  /// by `sort_orders` (Spark's RangePartitioner.rangeBounds). Bound i is the upper end, inclusive,
  /// of partition i. Zero rows mean a single partition. Default empty.
  RecordBatch range_bounds;

  /// Range: the order of each key; empty means every key ascending with nulls first (Spark's
  /// default). Otherwise one entry per key. Default empty.
  std::vector<SortOrder> sort_orders;

  /// Range: the most bounds searched by a linear scan; more bounds use binary search. Both give
  /// the same partition for sorted bounds (Spark's RangePartitioner switches at 128), so this is
  /// a speed choice only. Default 8: the scan is faster up to about 8 bounds and much slower at
  /// 128 (DEVELOPING.md, "Figures behind the constants").
  int32_t range_linear_scan_max_bounds = 8;
};

/// Assigns a partition id to every row of a batch. Not thread-safe: one per map task (round-robin
/// keeps its position across batches).
class Partitioner {
 public:
  virtual ~Partitioner() = default;

  /// Returns the kind this partitioner was made for.
  virtual PartitionKind kind() const = 0;

  /// Returns the number of partitions n; every id is in [0, n).
  virtual int32_t partition_count() const = 0;

  /// Computes the partition of each row of `batch` into `partition_ids` (batch.num_rows()
  /// entries). Fails when the batch does not match the schema the partitioner was made for, or
  /// (given) when an id is null or out of range.
  virtual Status Partition(const RecordBatch& batch, uint32_t* partition_ids) = 0;
};

/// Makes a partitioner for batches of `schema`. Fails with a message naming the option at fault
/// when the options do not fit the kind or the schema.
Result<std::unique_ptr<Partitioner>> MakePartitioner(const PartitionerOptions& options,
                                                     const Schema& schema);

/// Parses a partitioning name: "hash", "range", "round-robin", "single" or "given".
Result<PartitionKind> ParsePartitionKind(std::string_view name);

/// Returns the name ParsePartitionKind accepts for `kind`.
std::string_view PartitionKindName(PartitionKind kind);

/// Parses a round-robin mode name: "spark", "row-hash" or "spark-sorted".
Result<RoundRobinMode> ParseRoundRobinMode(std::string_view name);

/// Returns the name ParseRoundRobinMode accepts for `mode`.
std::string_view RoundRobinModeName(RoundRobinMode mode);

/// Parses a sort order as SQL writes it: "asc" or "desc", optionally followed by "nulls first" or
/// "nulls last" (case-insensitive, single spaces). Without a null ordering, Spark's default for
/// the direction applies: nulls first for asc, nulls last for desc.
Result<SortOrder> ParseSortOrder(std::string_view text);

}  // namespace sluice
