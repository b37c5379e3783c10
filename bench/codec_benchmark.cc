// Codec and checksum throughput on shuffle-like buffers, beside memcpy of the same bytes.
//
// Every result is bytes per second of uncompressed data, so compress, decompress and checksum
// rates compare directly with the memcpy baseline of the same buffer in the same run. Buffers
// are those of an 8192-row batch (Spark's default columnar batch size): an Int32 column holding
// the row number, the values buffer of a Utf8 column holding "this is string number {i}", and a
// 1 KiB validity bitmap with 1% of rows null at random, where the fixed cost per call shows; plus
// random bytes, which no codec can shrink. Each compressor and decompressor is made once
// per benchmark and reused, as a map or reduce task does.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/codec/checksum.h"
#include "sluice/codec/compression.h"

namespace sluice {
namespace {

constexpr int kBatchRows = 8192;
// Random bytes: about the size of the Utf8 values buffer, so rates are comparable.
constexpr size_t kRandomBytes = 256 << 10;

enum class Workload { kInt32Column, kUtf8Values, kValidityBitmap, kRandom };

struct WorkloadInfo {
  Workload workload;
  const char* name;
};

constexpr WorkloadInfo kWorkloads[] = {{Workload::kInt32Column, "int32_column"},
                                       {Workload::kUtf8Values, "utf8_values"},
                                       {Workload::kValidityBitmap, "validity_bitmap"},
                                       {Workload::kRandom, "random"}};

std::vector<uint8_t> MakeWorkload(Workload workload) {
  std::vector<uint8_t> bytes;
  switch (workload) {
    case Workload::kInt32Column:
      bytes.resize(kBatchRows * sizeof(int32_t));
      for (int32_t row = 0; row < kBatchRows; ++row) {
        std::memcpy(bytes.data() + row * sizeof(int32_t), &row, sizeof(row));
      }
      break;
    case Workload::kUtf8Values:
      for (int row = 0; row < kBatchRows; ++row) {
        const std::string value = "this is string number " + std::to_string(row);
        bytes.insert(bytes.end(), value.begin(), value.end());
      }
      break;
    case Workload::kValidityBitmap: {
      std::mt19937_64 generator(1);
      bytes.assign(kBatchRows / 8, 0xFF);
      for (int row = 0; row < kBatchRows; ++row) {
        if (generator() % 100 == 0) bytes[row / 8] &= static_cast<uint8_t>(~(1u << (row % 8)));
      }
      break;
    }
    case Workload::kRandom: {
      std::mt19937_64 generator(42);
      bytes.resize(kRandomBytes);
      for (auto& byte : bytes) byte = static_cast<uint8_t>(generator());
      break;
    }
  }
  return bytes;
}

const std::vector<uint8_t>& WorkloadBytes(Workload workload) {
  static const std::vector<uint8_t> workloads[] = {
      MakeWorkload(Workload::kInt32Column), MakeWorkload(Workload::kUtf8Values),
      MakeWorkload(Workload::kValidityBitmap), MakeWorkload(Workload::kRandom)};
  return workloads[static_cast<int>(workload)];
}

struct CodecConfig {
  const char* name;
  CompressionCodec codec;
  int level;
};

constexpr CodecConfig kCodecs[] = {{"lz4", CompressionCodec::kLz4Frame, 1},
                                   {"zstd1", CompressionCodec::kZstd, 1},
                                   {"zstd6", CompressionCodec::kZstd, 6}};

void SetRate(benchmark::State& state, size_t bytes_per_iteration) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes_per_iteration));
}

void BM_Memcpy(benchmark::State& state, Workload workload) {
  const std::vector<uint8_t>& input = WorkloadBytes(workload);
  std::vector<uint8_t> output(input.size());
  for (auto _ : state) {
    std::memcpy(output.data(), input.data(), input.size());
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  SetRate(state, input.size());
}

void BM_Compress(benchmark::State& state, CodecConfig config, Workload workload) {
  const std::vector<uint8_t>& input = WorkloadBytes(workload);
  auto compressor = Compressor::Make(config.codec, config.level).ValueOrDie();
  std::vector<uint8_t> output(
      static_cast<size_t>(compressor->MaxCompressedSize(static_cast<int64_t>(input.size()))));
  int64_t compressed_size = 0;
  for (auto _ : state) {
    auto size = compressor->Compress(input.data(), static_cast<int64_t>(input.size()),
                                     output.data(), static_cast<int64_t>(output.size()));
    if (!size.ok()) {
      state.SkipWithError(size.status().ToString().c_str());
      break;
    }
    compressed_size = *size;
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  SetRate(state, input.size());
  state.counters["ratio"] =
      static_cast<double>(input.size()) / static_cast<double>(compressed_size);
}

void BM_Decompress(benchmark::State& state, CodecConfig config, Workload workload) {
  const std::vector<uint8_t>& input = WorkloadBytes(workload);
  auto compressor = Compressor::Make(config.codec, config.level).ValueOrDie();
  auto decompressor = Decompressor::Make(config.codec).ValueOrDie();
  std::vector<uint8_t> compressed(
      static_cast<size_t>(compressor->MaxCompressedSize(static_cast<int64_t>(input.size()))));
  const int64_t compressed_size =
      compressor
          ->Compress(input.data(), static_cast<int64_t>(input.size()), compressed.data(),
                     static_cast<int64_t>(compressed.size()))
          .ValueOrDie();
  std::vector<uint8_t> output(input.size());
  for (auto _ : state) {
    const Status status = decompressor->Decompress(
        compressed.data(), compressed_size, output.data(), static_cast<int64_t>(output.size()));
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  SetRate(state, input.size());
}

// Checksums run over a whole partition's bytes; 1 MiB of random bytes stands for one.
constexpr size_t kChecksumBytes = 1 << 20;

const std::vector<uint8_t>& ChecksumInput() {
  static const std::vector<uint8_t> bytes = [] {
    std::mt19937_64 generator(7);
    std::vector<uint8_t> random(kChecksumBytes);
    for (auto& byte : random) byte = static_cast<uint8_t>(generator());
    return random;
  }();
  return bytes;
}

void BM_ChecksumMemcpy(benchmark::State& state) {
  const std::vector<uint8_t>& input = ChecksumInput();
  std::vector<uint8_t> output(input.size());
  for (auto _ : state) {
    std::memcpy(output.data(), input.data(), input.size());
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  SetRate(state, input.size());
}

void BM_Checksum(benchmark::State& state, ChecksumAlgorithm algorithm) {
  const std::vector<uint8_t>& input = ChecksumInput();
  for (auto _ : state) {
    uint32_t value = UpdateChecksum(algorithm, EmptyChecksum(algorithm), input.data(),
                                    static_cast<int64_t>(input.size()));
    benchmark::DoNotOptimize(value);
  }
  SetRate(state, input.size());
}

void BM_ChecksumCombine(benchmark::State& state, ChecksumAlgorithm algorithm) {
  // Combining is per partition, not per byte: its cost is per call, for a length of 1 GiB + 1.
  uint32_t value = EmptyChecksum(algorithm);
  for (auto _ : state) {
    value = CombineChecksums(algorithm, value, 0x12345678, (int64_t{1} << 30) + 1);
    benchmark::DoNotOptimize(value);
  }
}

void RegisterBenchmarks() {
  for (const WorkloadInfo& workload : kWorkloads) {
    benchmark::RegisterBenchmark((std::string("Memcpy/") + workload.name).c_str(), BM_Memcpy,
                                 workload.workload);
    for (const CodecConfig& codec : kCodecs) {
      benchmark::RegisterBenchmark(
          (std::string("Compress/") + codec.name + "/" + workload.name).c_str(), BM_Compress, codec,
          workload.workload);
      benchmark::RegisterBenchmark(
          (std::string("Decompress/") + codec.name + "/" + workload.name).c_str(), BM_Decompress,
          codec, workload.workload);
    }
  }
  benchmark::RegisterBenchmark("Checksum/memcpy", BM_ChecksumMemcpy);
  for (ChecksumAlgorithm algorithm :
       {ChecksumAlgorithm::kAdler32, ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c}) {
    const std::string name(ChecksumAlgorithmName(algorithm));
    benchmark::RegisterBenchmark(("Checksum/" + name).c_str(), BM_Checksum, algorithm);
    benchmark::RegisterBenchmark(("ChecksumCombine/" + name).c_str(), BM_ChecksumCombine,
                                 algorithm);
  }
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::RegisterBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
