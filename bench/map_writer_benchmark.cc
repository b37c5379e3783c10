// The map-side writer end to end, each figure beside its baseline in the same run:
// - BM_WriteMixed: 81,920 rows of the mixed schema (10 batches of 8192) hash-partitioned on c0,
//   at 16 to 8000 partitions: the time at 8000 over the time at 200 is the partition-count cost;
//   BM_WriteMixedOver200 measures that ratio in pairs (200 and P partitions each iteration);
// - BM_WriteMixed with lz4 / zstd(1) at 200 partitions beside BM_RawCodecSameBytes, the codec
//   alone over exactly the buffers the writer compresses;
// - BM_WriteMixedBesideRaw: the same writes, inline (compression_threads 0) or with a
//   compression thread (1), each iteration paired with the raw codec over the same bytes (run
//   before or after it in turn), so raw_over_wall (raw codec time / writer wall time, summed)
//   is the throughput ratio, and raw_over_wall_median the median of the pairs' ratios
//   (a slow spell of a shared machine lands in one pair, and moves a sum but not the median);
//   cpu_ms is the process CPU time (both threads) of the write;
// - BM_WriteLineitem: 10 million lineitem rows at 200 partitions with lz4: an unlimited budget
//   holding everything (window 0: no spill, the baseline), a 64 MiB budget (spilling), and the
//   unlimited budget with the default held-bytes window (window 1: spills every 64 MiB held);
// - BM_WriteManyPartitions: 100,000 partitions over 10 million rows with a 256 MiB budget;
//   counter peak_rss_over_budget_mib is the peak resident memory above the budget.
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "sluice/codec/compression.h"
#include "sluice/io/input_file.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/write/map_writer.h"
#include "workload/lineitem.h"
#include "workload/reference_batches.h"
#include "workload/scratch_directory.h"

namespace sluice {
namespace {

using workload::ScratchDirectory;

const std::vector<RecordBatch>& MixedInput() {
  static const std::vector<RecordBatch> batches = [] {
    std::vector<RecordBatch> result;
    for (int b = 0; b < 10; ++b) result.push_back(workload::MixedBatch(8192, b * 8192));
    return result;
  }();
  return batches;
}

MapWriterOptions HashOptions(SchemaPtr schema, int32_t partitions, CompressionCodec codec,
                             int level = 1) {
  MapWriterOptions options;
  options.schema = std::move(schema);
  options.partitioning.kind = PartitionKind::kHash;
  options.partitioning.partition_count = partitions;
  options.partitioning.key_columns = {0};
  options.encoding.codec = codec;
  options.encoding.compression_level = level;
  // Each run writes a new file, as map tasks do (replacing a file through rename makes ext4
  // flush it first, a cost a real task never pays); the file is removed outside the timing.
  options.data_path = ScratchDirectory() + "/bench.data";
  options.checksum = ChecksumAlgorithm::kNone;
  options.memory_limit = -1;
  return options;
}

MapOutput WriteUntimed(const MapWriterOptions& options, const std::vector<RecordBatch>& batches,
                       benchmark::State& state) {
  auto writer = MapWriter::Make(options);
  if (!writer.ok()) {
    state.SkipWithError(writer.status().ToString().c_str());
    return {};
  }
  for (const auto& batch : batches) {
    Status status = (*writer)->Write(batch);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  auto output = (*writer)->Finish();
  if (!output.ok()) {
    state.SkipWithError(output.status().ToString().c_str());
    return {};
  }
  return std::move(output).ValueUnsafe();
}

// Writes `batches` once and returns the seconds from opening the writer to its commit. The
// committed file is removed afterwards, untimed.
double WriteTimed(const MapWriterOptions& options, const std::vector<RecordBatch>& batches,
                  benchmark::State& state, MapOutput* output = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  MapOutput written = WriteUntimed(options, batches, state);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::remove(options.data_path.c_str());
  if (output != nullptr) *output = std::move(written);
  return seconds;
}

// WriteTimed, with the time as the iteration's manual time.
MapOutput WriteOnce(const MapWriterOptions& options, const std::vector<RecordBatch>& batches,
                    benchmark::State& state) {
  MapOutput output;
  state.SetIterationTime(WriteTimed(options, batches, state, &output));
  return output;
}

int64_t InputBytes(const std::vector<RecordBatch>& batches) {
  int64_t bytes = 0;
  for (const auto& batch : batches) bytes += batch.ReferencedBytes();
  return bytes;
}

// The last run's own account of its time, in milliseconds, beside the blocks and bytes.
void ReportMetrics(benchmark::State& state, const MapOutput& output) {
  const MapWriterMetrics& metrics = output.metrics;
  state.counters["blocks"] = static_cast<double>(metrics.blocks);
  state.counters["output_bytes"] = static_cast<double>(metrics.output_bytes);
  state.counters["spills"] = static_cast<double>(metrics.spills);
  state.counters["partition_ms"] = static_cast<double>(metrics.partition_nanos) / 1e6;
  state.counters["gather_ms"] = static_cast<double>(metrics.gather_nanos) / 1e6;
  state.counters["compress_ms"] = static_cast<double>(metrics.compress_nanos) / 1e6;
  state.counters["write_ms"] = static_cast<double>(metrics.write_nanos) / 1e6;
}

CompressionCodec CodecOf(int64_t index) {
  return index == 0   ? CompressionCodec::kNone
         : index == 1 ? CompressionCodec::kLz4Frame
                      : CompressionCodec::kZstd;
}

void BM_WriteMixed(benchmark::State& state) {
  const auto& batches = MixedInput();
  const auto options = HashOptions(batches[0].schema(), static_cast<int32_t>(state.range(0)),
                                   CodecOf(state.range(1)));
  MapOutput output;
  for (auto _ : state) output = WriteOnce(options, batches, state);
  ReportMetrics(state, output);
  state.SetBytesProcessed(state.iterations() * InputBytes(batches));
  state.SetItemsProcessed(state.iterations() * 81920);
}
BENCHMARK(BM_WriteMixed)
    ->ArgNames({"partitions", "codec"})
    ->Args({16, 0})
    ->Args({200, 0})
    ->Args({2000, 0})
    ->Args({8000, 0})
    ->Args({200, 1})
    ->Args({200, 2})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The median of `values` (0 when empty).
double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// BM_WriteMixed's partition-count cost measured in pairs: each iteration writes the input at
// 200 partitions and at state.range(0), in turn (the order alternating), so that a slow spell
// of a shared machine lands in one pair rather than in one of two separate benchmarks.
// Counter `over_200_median` is the median over the iterations of time(P) / time(200).
void BM_WriteMixedOver200(benchmark::State& state) {
  const auto& batches = MixedInput();
  const auto options = HashOptions(batches[0].schema(), static_cast<int32_t>(state.range(0)),
                                   CompressionCodec::kNone);
  const auto base_options = HashOptions(batches[0].schema(), 200, CompressionCodec::kNone);
  std::vector<double> ratios;
  bool base_first = true;
  for (auto _ : state) {
    double base_seconds = 0;
    if (base_first) base_seconds = WriteTimed(base_options, batches, state);
    const double seconds = WriteTimed(options, batches, state);
    if (!base_first) base_seconds = WriteTimed(base_options, batches, state);
    state.SetIterationTime(seconds);
    ratios.push_back(seconds / base_seconds);
    base_first = !base_first;
  }
  state.counters["over_200_median"] = Median(std::move(ratios));
}
BENCHMARK(BM_WriteMixedOver200)
    ->ArgName("partitions")
    ->Arg(16)
    ->Arg(2000)
    ->Arg(8000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The buffers the writer compresses for MixedInput at 200 partitions (read back from an
// uncompressed output of the same input).
const std::vector<AlignedBuffer>& RawCodecBuffers() {
  static const std::vector<AlignedBuffer> buffers = [] {
    const auto& batches = MixedInput();
    std::vector<AlignedBuffer> result;
    auto options = HashOptions(batches[0].schema(), 200, CompressionCodec::kNone);
    auto writer = MapWriter::Make(options).ValueOrDie();
    for (const auto& batch : batches) (void)writer->Write(batch);
    MapOutput output = writer->Finish().ValueOrDie();
    auto file = InputFile::Open(output.data_path).ValueOrDie();
    AlignedBuffer bytes;
    (void)file->ReadAt(0, file->size(), &bytes);
    std::remove(output.data_path.c_str());
    SegmentDecoder decoder;
    for (size_t p = 0; p + 1 < output.offsets.size(); ++p) {
      if (output.lengths[p] == 0) continue;
      (void)decoder.Begin(bytes.data() + output.offsets[p], output.lengths[p], nullptr, "p");
      while (true) {
        auto batch = decoder.Next().ValueOrDie();
        if (!batch.has_value()) break;
        std::function<void(const ArrayData&)> collect = [&](const ArrayData& array) {
          for (int b = 0; b < BufferCount(array.type->id()); ++b) {
            if (b == 0 && array.null_count == 0) continue;
            if (array.buffers[b].size == 0) continue;
            AlignedBuffer copy;
            copy.Append(array.buffers[b].data, array.buffers[b].size);
            result.push_back(std::move(copy));
          }
          for (const auto& child : array.children) collect(child);
        };
        for (const auto& column : batch->columns()) collect(column);
      }
    }
    return result;
  }();
  return buffers;
}

// Compresses every buffer the writer compresses once, with one reused context.
void CompressRawBuffers(Compressor* compressor, AlignedBuffer* out) {
  for (const auto& buffer : RawCodecBuffers()) {
    const int64_t capacity = compressor->MaxCompressedSize(buffer.size());
    out->Resize(capacity);
    benchmark::DoNotOptimize(
        compressor->Compress(buffer.data(), buffer.size(), out->data(), capacity));
  }
}

// The baseline of the compressed cases: the codec alone, with one reused context, over the
// buffers the writer compressed.
void BM_RawCodecSameBytes(benchmark::State& state) {
  const auto& batches = MixedInput();
  RawCodecBuffers();
  auto compressor = Compressor::Make(CodecOf(state.range(0)), 1).ValueOrDie();
  AlignedBuffer out;
  for (auto _ : state) CompressRawBuffers(compressor.get(), &out);
  state.SetBytesProcessed(state.iterations() * InputBytes(batches));
}
BENCHMARK(BM_RawCodecSameBytes)->ArgName("codec")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

double ProcessCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

void BM_WriteMixedBesideRaw(benchmark::State& state) {
  const auto& batches = MixedInput();
  auto options = HashOptions(batches[0].schema(), static_cast<int32_t>(state.range(0)),
                             CodecOf(state.range(1)));
  options.compression_threads = static_cast<int32_t>(state.range(2));
  RawCodecBuffers();
  auto compressor = Compressor::Make(CodecOf(state.range(1)), 1).ValueOrDie();
  AlignedBuffer raw_out;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double raw_seconds = 0;
  MapOutput output;
  std::vector<double> ratios;
  bool raw_first = false;
  for (auto _ : state) {
    auto time_raw = [&] {
      const auto raw_start = std::chrono::steady_clock::now();
      CompressRawBuffers(compressor.get(), &raw_out);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - raw_start).count();
    };
    double raw = raw_first ? time_raw() : 0;
    const double cpu_start = ProcessCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    output = WriteUntimed(options, batches, state);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cpu_seconds += ProcessCpuSeconds() - cpu_start;
    state.SetIterationTime(wall);
    wall_seconds += wall;
    std::remove(options.data_path.c_str());
    if (!raw_first) raw = time_raw();
    raw_seconds += raw;
    ratios.push_back(raw / wall);
    raw_first = !raw_first;
  }
  ReportMetrics(state, output);
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["cpu_ms"] = cpu_seconds * 1e3 / iterations;
  state.counters["raw_ms"] = raw_seconds * 1e3 / iterations;
  state.counters["raw_over_wall"] = raw_seconds / wall_seconds;
  state.counters["raw_over_wall_median"] = Median(std::move(ratios));
  state.SetBytesProcessed(state.iterations() * InputBytes(batches));
}
BENCHMARK(BM_WriteMixedBesideRaw)
    ->ArgNames({"partitions", "codec", "compression_threads"})
    ->Args({200, 1, 0})
    ->Args({200, 1, 1})
    ->Args({200, 2, 0})
    ->Args({200, 2, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_WriteLineitem(benchmark::State& state) {
  const int64_t rows = 10'000'000;
  static const std::vector<RecordBatch> batches = [] {
    workload::LineitemGenerator generator(1);
    std::vector<RecordBatch> result;
    for (int64_t done = 0; done < rows; done += 65536) {
      result.push_back(generator.Next(std::min<int64_t>(65536, rows - done)));
    }
    return result;
  }();
  auto options = HashOptions(batches[0].schema(), 200, CompressionCodec::kLz4Frame);
  options.memory_limit = state.range(0) == 0 ? -1 : state.range(0) << 20;
  options.max_held_bytes = state.range(1) == 0 ? 0 : MapWriterOptions::kAutoMaxHeldBytes;
  MapOutput output;
  for (auto _ : state) output = WriteOnce(options, batches, state);
  ReportMetrics(state, output);
  state.SetBytesProcessed(state.iterations() * InputBytes(batches));
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_WriteLineitem)
    ->ArgNames({"budget_mib", "window"})
    ->Args({0, 0})
    ->Args({64, 0})
    ->Args({0, 1})
    ->Iterations(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

int64_t ReadStatusKilobytes(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
  }
  return -1;
}

void BM_WriteManyPartitions(benchmark::State& state) {
  const int64_t rows = 10'000'000;
  const int64_t budget = int64_t{256} << 20;
  double over_budget_mib = 0;
  MapOutput output;
  for (auto _ : state) {
    auto options =
        HashOptions(workload::MixedBatch(1).schema(), 100000, CompressionCodec::kLz4Frame);
    options.memory_limit = budget;
    auto writer = MapWriter::Make(options).ValueOrDie();
    // Peak resident memory is measured from here: reset the high-water mark.
    { std::ofstream("/proc/self/clear_refs") << "5"; }
    const int64_t baseline_kib = ReadStatusKilobytes("VmRSS:");
    for (int64_t done = 0; done < rows; done += 65536) {
      Status status =
          writer->Write(workload::MixedBatch(std::min<int64_t>(65536, rows - done), done));
      if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    }
    output = writer->Finish().ValueOrDie();
    const int64_t peak_kib = ReadStatusKilobytes("VmHWM:");
    std::remove(output.data_path.c_str());
    over_budget_mib = static_cast<double>((peak_kib - baseline_kib) * 1024 - budget) / (1 << 20);
  }
  ReportMetrics(state, output);
  state.counters["peak_rss_over_budget_mib"] = over_budget_mib;
  state.counters["peak_reserved_mib"] =
      static_cast<double>(output.metrics.peak_reserved_bytes) / (1 << 20);
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_WriteManyPartitions)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
