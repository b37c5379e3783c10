// EndToEndSuite: `sluice bench`'s own suite, the writer and the reader on lineitem data as the
// tool runs them, each against a baseline measured in the same run:
//
//   ipc_write              the rows written as one unpartitioned Arrow IPC stream: the floor of
//                          any writer (encode and write, no partitioning)
//   write/partitions:P     MapWriter (hash on l_orderkey, Spark files, no spill), P from 1 to
//                          10,000; ratio to ipc_write
//   write/.../codec:C      the same at 200 partitions with lz4 and zstd
//   raw_compress/codec:C   the codec alone over the same buffers; the writer's throughput is
//                          stated against it
//   read/.../codec:C       PartitionReader over all 200 partitions of that output
//   raw_decompress/codec:C the codec alone decompressing those buffers (raw_copy, a memcpy of the
//                          data file, for codec none); the read is stated against it
//   write_budget/...       the lz4 write under a small memory budget, resident memory sampled
//                          every 5 ms (the memory-over-time figure)
//   write_bytes/...        output bytes against the partition count (lz4: 200, 8,000, and
//                          100,000 under a 64 MiB budget), with compact segments and without;
//                          bytes and time stated against 200 partitions
//
// Results are Google Benchmark entries (one per repetition, then mean, median and stddev), so
// they merge with the benchmark programs' output.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "json_value.h"
#include "sluice/base/result.h"

namespace sluice::cli {

struct EndToEndOptions {
  /// Rows of lineitem. The full run uses 2,000,000 (about 320 MiB), enough that per-run fixed
  /// costs vanish; --quick uses 100,000.
  int64_t rows = 2000000;
  /// Partition counts of the writer sweep.
  std::vector<int32_t> partition_counts = {1, 16, 200, 2000, 10000};
  /// Runs of each measurement.
  int repetitions = 3;
  /// The write_budget run's memory budget.
  int64_t small_budget_bytes = int64_t{64} << 20;
  /// Where map outputs are written (removed afterwards).
  std::string work_directory;
};

struct EndToEndResult {
  /// Google Benchmark entries.
  std::vector<JsonValue> benchmarks;
  /// [{"name", "budget_bytes", "baseline_rss_bytes", "samples": [[seconds, rss_bytes], ...]}]
  JsonValue memory_timelines = JsonValue::Array();
};

/// Runs the suite; `on_step` is told the name of each measurement as it starts.
Result<EndToEndResult> RunEndToEndSuite(const EndToEndOptions& options,
                                        const std::function<void(const std::string&)>& on_step);

}  // namespace sluice::cli
