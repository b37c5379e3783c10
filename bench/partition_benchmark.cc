// Partition-id throughput: the cost per row of Spark-exact partitioning, beside a plain memcpy of
// the key bytes (the least any pass over the keys can cost).
//
// Each benchmark partitions one batch per iteration: 8M rows (keys in DRAM; the partitioner works
// through the batch in cache-sized chunks, as it does for any batch) or the first 64K rows (keys
// in cache: the cost of the kernels alone). Counters:
//   ns_per_row         thread CPU time per row of the partitioning;
//   wall_ns_per_row    wall-clock time per row (includes time slices given to other processes);
//   memcpy_ns_per_row  thread CPU time per row to memcpy the same key buffers (same rows),
//                      measured in the same process right before;
//   x_memcpy           ns_per_row / memcpy_ns_per_row;
//   stream_ns_per_row  (one 8-byte key column) thread CPU time per row of a plain loop that reads
//                      each key and writes a 32-bit id: the floor for any partitioner's pass
//                      over keys in DRAM; x_stream = ns_per_row / stream_ns_per_row.
// CPU time is the fair measure on a shared machine; wall time is reported beside it.
//
// Run: partition_benchmark --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/partition/column_hash.h"
#include "sluice/partition/partitioner.h"

namespace sluice {
namespace {

constexpr int64_t kRows = int64_t{8} << 20;
constexpr int64_t kCachedRows = 65536;

// Columns: int64, utf8 (5 to 30 bytes), int32, decimal128(11, 2); built once.
const RecordBatch& Workload() {
  static const RecordBatch batch = [] {
    auto schema = std::make_shared<Schema>(std::vector<Field>{
        MakeField("id", DataType::Int64()), MakeField("name", DataType::Utf8()),
        MakeField("small", DataType::Int32()), MakeField("price", DataType::Decimal128(11, 2))});
    auto builders = MakeBuilders(*schema);
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int> length(5, 30);
    std::uniform_int_distribution<int64_t> price(-99999999999LL, 99999999999LL);
    std::string text;
    for (int64_t row = 0; row < kRows; ++row) {
      builders[0]->Append<int64_t>(static_cast<int64_t>(rng()));
      text.resize(static_cast<size_t>(length(rng)));
      for (char& c : text) c = static_cast<char>('a' + rng() % 26);
      builders[1]->AppendString(text);
      builders[2]->Append<int32_t>(static_cast<int32_t>(rng()));
      builders[3]->Append<__int128>(price(rng));
    }
    return FinishBatch(schema, builders);
  }();
  return batch;
}

RecordBatch FirstRows(int64_t rows) {
  const RecordBatch& workload = Workload();
  return rows >= workload.num_rows() ? workload : workload.Slice(0, rows);
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double CpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The bytes a pass over the first `rows` rows of these key columns must at least read: their
// values, or their offsets and data.
std::vector<std::pair<const uint8_t*, int64_t>> KeyBytes(const RecordBatch& batch,
                                                         const std::vector<int>& keys) {
  std::vector<std::pair<const uint8_t*, int64_t>> ranges;
  for (const int key : keys) {
    const ArrayData& column = batch.column(static_cast<size_t>(key));
    const int64_t rows = column.length;
    if (IsBinaryLike(column.type->id())) {
      const int32_t* offsets = column.value_offsets<int32_t>();
      ranges.emplace_back(column.buffers[1].data, (rows + 1) * 4);
      ranges.emplace_back(column.value_bytes() + offsets[0], offsets[rows] - offsets[0]);
    } else {
      const int64_t width = BitWidth(*column.type) / 8;
      ranges.emplace_back(column.buffers[1].data + column.offset * width, rows * width);
    }
  }
  return ranges;
}

// Runs `pass` (over the batch's rows) six times, `repeat` times each; returns the median CPU
// time per row of the last five (the first run faults the pages in). Small batches are passed
// over many times per measurement so the clock resolution does not show.
template <typename Pass>
double MedianNsPerRow(int64_t rows, Pass pass) {
  const int64_t repeat = std::max<int64_t>(1, kRows / rows);
  std::vector<double> times;
  for (int run = 0; run < 6; ++run) {
    const double start = CpuSeconds();
    for (int64_t r = 0; r < repeat; ++r) pass();
    if (run > 0) times.push_back(CpuSeconds() - start);
  }
  std::sort(times.begin(), times.end());
  return times[2] * 1e9 / static_cast<double>(rows * repeat);
}

// Median of five memcpy passes over the key bytes, in CPU ns per row.
double MemcpyNsPerRow(const RecordBatch& batch, const std::vector<int>& keys) {
  const auto ranges = KeyBytes(batch, keys);
  int64_t largest = 0;
  for (const auto& range : ranges) largest = std::max(largest, range.second);
  std::vector<uint8_t> destination(static_cast<size_t>(largest));
  return MedianNsPerRow(batch.num_rows(), [&] {
    for (const auto& [data, size] : ranges) {
      std::memcpy(destination.data(), data, static_cast<size_t>(size));
      benchmark::DoNotOptimize(destination.data());
      benchmark::ClobberMemory();
    }
  });
}

// Median of five passes of the least work that turns one fixed-width key column into ids: read
// each key, write a 32-bit id per row (`ids[row] = key`), in CPU ns per row. It moves the bytes
// a partitioner moves (memcpy writes 8 bytes per row, not 4), so for a batch that does not fit
// in the cache it is the floor the memory system sets. Returns 0 unless the keys are one column
// of 8-byte values.
double StreamNsPerRow(const RecordBatch& batch, const std::vector<int>& keys) {
  if (keys.size() != 1) return 0;
  const ArrayData& column = batch.column(static_cast<size_t>(keys[0]));
  if (!IsFixedWidth(column.type->id()) || BitWidth(*column.type) != 64) return 0;
  const int64_t rows = batch.num_rows();
  const int64_t* values = column.values<int64_t>();
  std::vector<uint32_t> ids(static_cast<size_t>(rows));
  return MedianNsPerRow(rows, [&] {
    for (int64_t row = 0; row < rows; ++row) ids[row] = static_cast<uint32_t>(values[row]);
    benchmark::DoNotOptimize(ids.data());
    benchmark::ClobberMemory();
  });
}

// Runs `work` once per iteration over a batch of `rows` rows and sets the counters.
template <typename Work>
void Measure(benchmark::State& state, const RecordBatch& batch, const std::vector<int>& keys,
             Work work) {
  const double memcpy_ns = MemcpyNsPerRow(batch, keys);
  const double stream_ns = StreamNsPerRow(batch, keys);
  double wall_seconds = 0;
  double cpu_seconds = 0;
  for (auto _ : state) {
    const double wall_start = WallSeconds();
    const double cpu_start = CpuSeconds();
    const Status status = work();
    benchmark::ClobberMemory();
    cpu_seconds += CpuSeconds() - cpu_start;
    wall_seconds += WallSeconds() - wall_start;
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
  const double rows =
      static_cast<double>(batch.num_rows()) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["ns_per_row"] = cpu_seconds * 1e9 / rows;
  state.counters["wall_ns_per_row"] = wall_seconds * 1e9 / rows;
  state.counters["memcpy_ns_per_row"] = memcpy_ns;
  state.counters["x_memcpy"] = cpu_seconds * 1e9 / rows / memcpy_ns;
  if (stream_ns > 0) {
    state.counters["stream_ns_per_row"] = stream_ns;
    state.counters["x_stream"] = cpu_seconds * 1e9 / rows / stream_ns;
  }
}

void RunPartitioner(benchmark::State& state, const PartitionerOptions& options,
                    const std::vector<int>& keys, int64_t rows) {
  const RecordBatch batch = FirstRows(rows);
  auto made = MakePartitioner(options, *batch.schema());
  if (!made.ok()) {
    state.SkipWithError(made.status().ToString().c_str());
    return;
  }
  std::unique_ptr<Partitioner> partitioner = std::move(made).ValueOrDie();
  std::vector<uint32_t> ids(static_cast<size_t>(batch.num_rows()));
  Measure(state, batch, keys, [&] {
    Status status = partitioner->Partition(batch, ids.data());
    benchmark::DoNotOptimize(ids.data());
    return status;
  });
}

void RunHash(benchmark::State& state, const std::vector<int>& keys) {
  PartitionerOptions options;
  options.kind = PartitionKind::kHash;
  options.partition_count = static_cast<int32_t>(state.range(0));
  options.key_columns = keys;
  RunPartitioner(state, options, keys, state.range(1));
}

void BM_HashInt64(benchmark::State& state) {
  RunHash(state, {0});
}
void BM_HashUtf8(benchmark::State& state) {
  RunHash(state, {1});
}
void BM_HashInt32Utf8Decimal(benchmark::State& state) {
  RunHash(state, {2, 1, 3});
}

// Bounds at evenly spaced quantiles of the keys. 199 bounds (200 partitions) are more than
// Spark's linear-scan threshold, so Spark binary-searches too.
void BM_RangeInt64(benchmark::State& state) {
  const RecordBatch& workload = Workload();
  const auto bound_count = state.range(0);
  std::vector<int64_t> sorted(workload.column(0).values<int64_t>(),
                              workload.column(0).values<int64_t>() + workload.num_rows());
  std::sort(sorted.begin(), sorted.end());
  auto bounds_schema =
      std::make_shared<Schema>(std::vector<Field>{MakeField("id", DataType::Int64())});
  auto builders = MakeBuilders(*bounds_schema);
  for (int64_t b = 1; b <= bound_count; ++b) {
    builders[0]->Append<int64_t>(sorted[static_cast<size_t>(b * kRows / (bound_count + 1))]);
  }
  PartitionerOptions options;
  options.kind = PartitionKind::kRange;
  options.partition_count = 0;
  options.key_columns = {0};
  options.range_bounds = FinishBatch(bounds_schema, builders);
  RunPartitioner(state, options, {0}, state.range(1));
}

void BM_RoundRobin(benchmark::State& state) {
  PartitionerOptions options;
  options.kind = PartitionKind::kRoundRobin;
  options.partition_count = static_cast<int32_t>(state.range(0));
  options.map_partition_id = 3;
  RunPartitioner(state, options, {0}, state.range(1));
}

// Spark's xxhash64 over the int64 key, as the engine offers it (no pmod).
void BM_XxHash64Int64(benchmark::State& state) {
  const RecordBatch batch = FirstRows(state.range(0));
  const std::vector<int> keys = {0};
  std::vector<int64_t> hashes(static_cast<size_t>(batch.num_rows()));
  Measure(state, batch, keys, [&] {
    Status status = XxHash64Columns(batch, keys, hashes.data());
    benchmark::DoNotOptimize(hashes.data());
    return status;
  });
}

void PartitionsAndRows(benchmark::internal::Benchmark* benchmark) {
  for (const int64_t rows : {kRows, kCachedRows}) {
    for (const int64_t partitions : {200, 8000}) benchmark->Args({partitions, rows});
  }
  benchmark->ArgNames({"partitions", "rows"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_HashInt64)->Apply(PartitionsAndRows);
BENCHMARK(BM_HashUtf8)->Apply(PartitionsAndRows);
BENCHMARK(BM_HashInt32Utf8Decimal)->Apply(PartitionsAndRows);
BENCHMARK(BM_RangeInt64)
    ->Args({199, kRows})
    ->Args({199, kCachedRows})
    ->ArgNames({"bounds", "rows"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_RoundRobin)
    ->Args({200, kRows})
    ->ArgNames({"partitions", "rows"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_XxHash64Int64)
    ->Arg(kRows)
    ->Arg(kCachedRows)
    ->ArgName("rows")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
