// Segment encoding and decoding, each beside its baseline on the same bytes:
// - encode: the raw codec over the batch's buffers (memcpy for codec none), timed in the same
//   iteration; counter `vs_raw` is encode time / raw time, `above_raw_ns` the difference per
//   block;
// - decode: a cached schema against a fresh decoder per block (schema parsed every time);
//   counter `schema_share` is the part of an uncached decode spent on the schema.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>

#include "sluice/codec/compression.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "workload/reference_batches.h"

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

// The buffers the encoder compresses: every non-empty buffer, validity only when there are
// nulls.
void CollectBuffers(const ArrayData& array, std::vector<BufferView>* out) {
  const int count = BufferCount(array.type->id());
  for (int b = 0; b < count; ++b) {
    if (b == 0 && array.null_count == 0) continue;
    if (array.buffers[b].size > 0) out->push_back(array.buffers[b]);
  }
  for (const auto& child : array.children) CollectBuffers(child, out);
}

RecordBatch BatchFor(int shape, int64_t rows) {
  switch (shape) {
    case 0:
      return workload::MixedBatch(rows);
    case 1:
      return workload::Flat50Batch(rows);
    default:
      return workload::NestedBatch(rows);
  }
}

const char* ShapeName(int shape) {
  return shape == 0 ? "mixed" : shape == 1 ? "flat50" : "nested";
}

struct CodecChoice {
  CompressionCodec codec;
  int level;
  const char* name;
};
constexpr CodecChoice kCodecs[] = {{CompressionCodec::kNone, 0, "none"},
                                   {CompressionCodec::kLz4Frame, 0, "lz4"},
                                   {CompressionCodec::kZstd, 1, "zstd1"},
                                   {CompressionCodec::kZstd, 6, "zstd6"}};

void BM_EncodeBlock(benchmark::State& state) {
  const int shape = static_cast<int>(state.range(0));
  const CodecChoice choice = kCodecs[state.range(1)];
  const int64_t rows = state.range(2);
  RecordBatch batch = BatchFor(shape, rows);
  SegmentEncoderOptions options;
  options.codec = choice.codec;
  options.compression_level = choice.level;
  auto encoder = SegmentEncoder::Make(batch.schema(), options).ValueOrDie();
  std::unique_ptr<Compressor> raw;
  if (choice.codec != CompressionCodec::kNone) {
    raw = Compressor::Make(choice.codec, choice.level).ValueOrDie();
  }
  std::vector<BufferView> buffers;
  for (const auto& column : batch.columns()) CollectBuffers(column, &buffers);
  int64_t raw_bytes = 0;
  for (const auto& buffer : buffers) raw_bytes += buffer.size;
  AlignedBuffer out;
  AlignedBuffer raw_out;
  double encode_seconds = 0;
  double raw_seconds = 0;
  int64_t encoded_size = 0;
  for (auto _ : state) {
    out.Clear();
    const auto start = Clock::now();
    Status status = encoder->AppendRecordBatch(batch, &out);
    const auto middle = Clock::now();
    // The baseline: the codec (or memcpy) over the same buffers, with a reused context.
    raw_out.Clear();
    for (const auto& buffer : buffers) {
      if (raw != nullptr) {
        const int64_t capacity = raw->MaxCompressedSize(buffer.size);
        raw_out.Reserve(raw_out.size() + capacity);
        auto written =
            raw->Compress(buffer.data, buffer.size, raw_out.data() + raw_out.size(), capacity);
        raw_out.Resize(raw_out.size() + *written);
      } else {
        raw_out.Append(buffer.data, buffer.size);
      }
    }
    const auto end = Clock::now();
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    encode_seconds += Seconds(start, middle);
    raw_seconds += Seconds(middle, end);
    state.SetIterationTime(Seconds(start, middle));
    encoded_size = out.size();
    benchmark::DoNotOptimize(raw_out.data());
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["vs_raw"] = encode_seconds / raw_seconds;
  state.counters["above_raw_ns"] = (encode_seconds - raw_seconds) / iterations * 1e9;
  state.counters["raw_ns"] = raw_seconds / iterations * 1e9;
  state.counters["encoded_bytes"] = static_cast<double>(encoded_size);
  state.SetBytesProcessed(state.iterations() * raw_bytes);
  state.SetLabel(std::string(ShapeName(shape)) + "/" + choice.name + "/" + std::to_string(rows));
}

void EncodeArguments(benchmark::internal::Benchmark* benchmark) {
  for (int shape = 0; shape < 3; ++shape) {
    for (int codec = 0; codec < 4; ++codec) benchmark->Args({shape, codec, 8192});
  }
  // Fixed cost per block: the mixed schema at 128 rows.
  for (int codec = 0; codec < 4; ++codec) benchmark->Args({0, codec, 128});
}
BENCHMARK(BM_EncodeBlock)
    ->Apply(EncodeArguments)
    ->UseManualTime()
    ->ArgNames({"shape", "codec", "rows"});

// One segment holding `batch`, for the decode cases; empty when encoding failed.
AlignedBuffer EncodedSegment(const RecordBatch& batch, const SegmentEncoderOptions& options) {
  AlignedBuffer segment;
  auto encoder = SegmentEncoder::Make(batch.schema(), options).ValueOrDie();
  if (!encoder->AppendSegment(std::span<const RecordBatch>(&batch, 1), &segment).ok()) {
    segment.Clear();
  }
  return segment;
}

// The decoder an iteration uses: the long-lived one, whose schema cache is warm, or a new one
// held in `fresh`, which parses the schema again.
SegmentDecoder* DecoderFor(bool cached, SegmentDecoder* shared,
                           std::unique_ptr<SegmentDecoder>* fresh) {
  if (cached) return shared;
  *fresh = std::make_unique<SegmentDecoder>();
  return fresh->get();
}

void BM_DecodeBlock(benchmark::State& state) {
  const int columns = static_cast<int>(state.range(0));
  const int64_t rows = state.range(1);
  const bool cached = state.range(2) != 0;
  const CodecChoice choice = kCodecs[state.range(3)];
  RecordBatch batch = workload::AlternatingBatch(columns, rows);
  SegmentEncoderOptions options;
  options.codec = choice.codec;
  options.compression_level = choice.level;
  const AlignedBuffer segment = EncodedSegment(batch, options);
  if (segment.size() == 0) {
    state.SkipWithError("encode failed");
    return;
  }
  SegmentDecoder shared_decoder;
  for (auto _ : state) {
    std::unique_ptr<SegmentDecoder> fresh;
    SegmentDecoder* decoder = DecoderFor(cached, &shared_decoder, &fresh);
    Status status = decoder->Begin(segment.data(), segment.size(), nullptr, "bench");
    auto decoded = decoder->Next();
    if (!status.ok() || !decoded.ok() || !decoded->has_value()) {
      state.SkipWithError("decode failed");
      break;
    }
    benchmark::DoNotOptimize(decoded->value().num_rows());
  }
  state.SetBytesProcessed(state.iterations() * segment.size());
  state.SetLabel(std::to_string(columns) + " columns/" + std::to_string(rows) + " rows/" +
                 (cached ? "cached" : "uncached") + "/" + choice.name);
}

void DecodeArguments(benchmark::internal::Benchmark* benchmark) {
  for (int columns : {5, 50}) {
    for (int rows : {64, 512, 8192}) {
      for (int cached : {1, 0}) {
        for (int codec : {0, 1}) benchmark->Args({columns, rows, cached, codec});
      }
    }
  }
}
BENCHMARK(BM_DecodeBlock)->Apply(DecodeArguments)->ArgNames({"columns", "rows", "cached", "codec"});

// The schema step alone, to size it against BM_DecodeBlock: a cache hit (the bytes compared
// with the cached schema's) or a miss (verified and parsed).
void BM_DecodeSchemaOnly(benchmark::State& state) {
  const int columns = static_cast<int>(state.range(0));
  const bool cached = state.range(1) != 0;
  RecordBatch batch = workload::AlternatingBatch(columns, 64);
  const AlignedBuffer segment = EncodedSegment(batch, SegmentEncoderOptions{});
  if (segment.size() == 0) {
    state.SkipWithError("encode failed");
    return;
  }
  SegmentDecoder shared_decoder;
  for (auto _ : state) {
    std::unique_ptr<SegmentDecoder> fresh;
    SegmentDecoder* decoder = DecoderFor(cached, &shared_decoder, &fresh);
    Status status = decoder->Begin(segment.data(), segment.size(), nullptr, "bench");
    if (status.ok()) status = decoder->ReadSchema();
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(decoder->schema());
  }
  state.SetLabel(std::to_string(columns) + " columns/" + (cached ? "cached" : "uncached"));
}
BENCHMARK(BM_DecodeSchemaOnly)
    ->ArgNames({"columns", "cached"})
    ->Args({5, 1})
    ->Args({5, 0})
    ->Args({50, 1})
    ->Args({50, 0});

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
