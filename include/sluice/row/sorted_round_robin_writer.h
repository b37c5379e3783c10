// SortedRoundRobinWriter: Spark's round-robin repartition with its sort before it
// (spark.sql.execution.sortBeforeRepartition, on by default), for column batches.
//
// Spark sorts a map task's rows before it deals them out round-robin, so that where a row goes
// depends on the set of rows the task sees, not on the order they arrive in: a retried task
// whose input comes in another order (after a shuffle fetch, say) places every row where the
// first attempt did, and a partial retry of the next stage neither loses nor repeats rows. The
// sort key is the Murmur3 hash (seed 42) of the row's UnsafeRow bytes (UnsafeRow.hashCode),
// compared as a signed int; the row of rank r goes where round-robin sends the r-th row of the
// task (pmod(start + 1 + r, n), start drawn from the map partition id; RoundRobinMode::kSpark).
//
// Spark sorts with radix sort off here (SPARK-28699): rows of equal hash are ordered by
// RecordBinaryComparator (the shorter row first, then the bytes compared unsigned), so the
// order is total and placement depends only on the set of rows, spilled or not.
//
// This writer gives every row the same partition without sorting the data:
// - Write() converts each batch's rows to UnsafeRows a chunk at a time (ColumnarToRowConverter),
//   only to hash them, keeps 8 bytes per row (the hash and the row's number) and holds the batch
//   by reference;
// - Finish() sorts the keys, orders the rare runs of equal hash by the rows' bytes (converting
//   those rows again), gives each row its partition from its rank, and hands the batches, in
//   arrival order, with their partition ids to a MapWriter (which gathers, encodes, spills and
//   commits as for any partitioning);
// - Spill() writes the held batches to a spill file as Arrow IPC messages (the writer's codec)
//   and releases them; Finish() reads them back a batch at a time.
// Within a partition, rows keep their arrival order (Spark's are in rank order); neither shuffle
// promises an order there.
//
// Memory: the held batches and the keys are charged to the writer's budget. The keys (8 bytes a
// row, and 4 more for the partitions while Finish() writes) stay in memory until Finish(): a
// task whose keys the budget cannot hold fails with OutOfMemory (Spark's sort spills its 16-byte
// pointers with the rows instead). The conversion scratch (one chunk of rows) is outside it.
#pragma once

#include <cstdint>
#include <memory>

#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"
#include "sluice/write/map_writer.h"

namespace sluice {

class SortedRoundRobinWriter {
 public:
  /// `options.partitioning` must be round-robin with mode kSparkSorted (its partition count and
  /// map partition id are used); every column's type must have a Spark equivalent
  /// (spark_type.h). Everything else is as for MapWriter, which is made here (creating the data
  /// file).
  static Result<std::unique_ptr<SortedRoundRobinWriter>> Make(MapWriterOptions options);
  /// Aborts unless Finish() succeeded.
  ~SortedRoundRobinWriter();
  SortedRoundRobinWriter(const SortedRoundRobinWriter&) = delete;
  SortedRoundRobinWriter& operator=(const SortedRoundRobinWriter&) = delete;

  /// Hashes the rows of `batch` and holds it until Finish(). Spills first when the budget cannot
  /// take it. Refuses a task of more than 2^32 - 1 rows.
  Status Write(const RecordBatch& batch);
  /// Writes the held batches to a spill file and releases their memory (the keys stay).
  Status Spill();
  /// Places every row, writes the data file (and Spark's files when asked) and commits. The
  /// metrics are the MapWriter's, with this writer's spills added and its hashing and ranking
  /// counted as partitioning time.
  Result<MapOutput> Finish();
  /// Removes every file of the task and releases its memory. Idempotent.
  void Abort();

  /// Bytes charged to the budget now: the held batches, the keys and the MapWriter's.
  int64_t held_bytes() const;

 private:
  class Impl;
  explicit SortedRoundRobinWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
