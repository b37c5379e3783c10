// Partition-id throughput: the cost per row of Spark-exact partitioning, beside a plain memcpy of
// the key bytes (the least any pass over the keys can cost).
//
// Each benchmark partitions one batch of 8M rows per iteration (the partitioner works through it
// in cache-sized chunks, as it does for any batch). Counters:
//   ns_per_row       time per row of the partitioning itself;
//   memcpy_ns_per_row time per row to memcpy the same key buffers, measured in the same process
//                    right before;
//   x_memcpy         the ratio of the two.
//
// Run: partition_benchmark --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/partition/column_hash.h"
#include "sluice/partition/partitioner.h"

namespace sluice {
namespace {

constexpr int64_t kRows = int64_t{8} << 20;

// The key columns of every workload, built once.
struct Workload {
  RecordBatch batch;  // int64, utf8 (5..30 bytes), int32, decimal128(11, 2)
};

const Workload& GetWorkload() {
  static const Workload workload = [] {
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
    return Workload{FinishBatch(schema, builders)};
  }();
  return workload;
}

// The bytes a pass over these key columns must at least read: their value, offset and data
// buffers over the batch's rows.
std::vector<std::pair<const uint8_t*, int64_t>> KeyBuffers(const RecordBatch& batch,
                                                           const std::vector<int>& keys) {
  std::vector<std::pair<const uint8_t*, int64_t>> buffers;
  for (const int key : keys) {
    const ArrayData& column = batch.column(static_cast<size_t>(key));
    for (int b = 1; b < 3; ++b) {
      if (column.buffers[b].data != nullptr) {
        buffers.emplace_back(column.buffers[b].data, column.buffers[b].size);
      }
    }
  }
  return buffers;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Median of five memcpy passes over the key buffers, in ns per row.
double MemcpyNsPerRow(const RecordBatch& batch, const std::vector<int>& keys) {
  const auto buffers = KeyBuffers(batch, keys);
  int64_t total = 0;
  for (const auto& [data, size] : buffers) total = std::max(total, size);
  std::vector<uint8_t> destination(static_cast<size_t>(total));
  std::vector<double> times;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (const auto& [data, size] : buffers) {
      std::memcpy(destination.data(), data, static_cast<size_t>(size));
      benchmark::DoNotOptimize(destination.data());
      benchmark::ClobberMemory();
    }
    times.push_back(SecondsSince(start));
  }
  std::sort(times.begin(), times.end());
  return times[2] * 1e9 / static_cast<double>(batch.num_rows());
}

void RunPartitioner(benchmark::State& state, const PartitionerOptions& options,
                    const std::vector<int>& keys) {
  const RecordBatch& batch = GetWorkload().batch;
  auto made = MakePartitioner(options, *batch.schema());
  if (!made.ok()) {
    state.SkipWithError(made.status().ToString().c_str());
    return;
  }
  std::unique_ptr<Partitioner> partitioner = std::move(made).ValueOrDie();
  std::vector<uint32_t> ids(static_cast<size_t>(batch.num_rows()));
  const double memcpy_ns = MemcpyNsPerRow(batch, keys);
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const Status status = partitioner->Partition(batch, ids.data());
    benchmark::DoNotOptimize(ids.data());
    benchmark::ClobberMemory();
    seconds += SecondsSince(start);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
  }
  const double rows =
      static_cast<double>(batch.num_rows()) * static_cast<double>(state.iterations());
  const double ns_per_row = seconds * 1e9 / rows;
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["ns_per_row"] = ns_per_row;
  state.counters["memcpy_ns_per_row"] = memcpy_ns;
  state.counters["x_memcpy"] = ns_per_row / memcpy_ns;
}

PartitionerOptions HashOptions(std::vector<int> keys, int32_t partitions) {
  PartitionerOptions options;
  options.kind = PartitionKind::kHash;
  options.partition_count = partitions;
  options.key_columns = std::move(keys);
  return options;
}

void BM_HashInt64(benchmark::State& state) {
  const std::vector<int> keys = {0};
  RunPartitioner(state, HashOptions(keys, static_cast<int32_t>(state.range(0))), keys);
}

void BM_HashUtf8(benchmark::State& state) {
  const std::vector<int> keys = {1};
  RunPartitioner(state, HashOptions(keys, static_cast<int32_t>(state.range(0))), keys);
}

void BM_HashInt32Utf8Decimal(benchmark::State& state) {
  const std::vector<int> keys = {2, 1, 3};
  RunPartitioner(state, HashOptions(keys, static_cast<int32_t>(state.range(0))), keys);
}

// 199 bounds (200 partitions) taken from evenly spaced quantiles of the keys: more than Spark's
// linear-scan threshold of 128, so binary search.
void BM_RangeInt64(benchmark::State& state) {
  const RecordBatch& batch = GetWorkload().batch;
  const auto bound_count = static_cast<int64_t>(state.range(0));
  std::vector<int64_t> sorted(batch.column(0).values<int64_t>(),
                              batch.column(0).values<int64_t>() + batch.num_rows());
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
  RunPartitioner(state, options, {0});
}

void BM_RoundRobin(benchmark::State& state) {
  PartitionerOptions options;
  options.kind = PartitionKind::kRoundRobin;
  options.partition_count = static_cast<int32_t>(state.range(0));
  options.map_partition_id = 3;
  RunPartitioner(state, options, {0});
}

// Spark's xxhash64 over the int64 key, as the engine offers it (no pmod).
void BM_XxHash64Int64(benchmark::State& state) {
  const RecordBatch& batch = GetWorkload().batch;
  const std::vector<int> keys = {0};
  std::vector<int64_t> hashes(static_cast<size_t>(batch.num_rows()));
  const double memcpy_ns = MemcpyNsPerRow(batch, keys);
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const Status status = XxHash64Columns(batch, keys, hashes.data());
    benchmark::DoNotOptimize(hashes.data());
    benchmark::ClobberMemory();
    seconds += SecondsSince(start);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  const double rows =
      static_cast<double>(batch.num_rows()) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["ns_per_row"] = seconds * 1e9 / rows;
  state.counters["memcpy_ns_per_row"] = memcpy_ns;
  state.counters["x_memcpy"] = seconds * 1e9 / rows / memcpy_ns;
}

BENCHMARK(BM_HashInt64)->Arg(200)->Arg(8000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HashUtf8)->Arg(200)->Arg(8000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HashInt32Utf8Decimal)
    ->Arg(200)
    ->Arg(8000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_RangeInt64)->Arg(199)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RoundRobin)->Arg(200)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_XxHash64Int64)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
