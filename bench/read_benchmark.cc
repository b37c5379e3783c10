// The reduce-side reader, each case beside a baseline measured in the same run:
// - DecodeThroughput: 8192-row "mixed" blocks through a PartitionReader (warm: one reader fed
//   by a queue, so the schema is cached and the contexts are made), against decompressing the
//   same buffers with a Decompressor directly. Counter `vs_raw` is the reader's throughput as a
//   fraction of the raw decompression throughput (target >= 0.85).
// - PerBlock: 64-row AlternatingBatch blocks of 5 and 50 columns, coalescing off, against the
//   same raw decompression per block. Counter `above_raw_ns` is the reader's fixed cost per
//   block above the decompression itself (target < 1000; `above_raw_median_ns` is the median of
//   the per-iteration differences); `outside_decompress_ns` is that cost taken within the
//   reader's own pass (its time less its decoder's decompression loop). For a compressed body
//   that loop also checks each buffer entry as it decompresses it, so `outside_decompress_ns`
//   leaves those checks out: compare builds on `above_raw_median_ns` there.
//   `block_paired_above_raw_median_ns` (and `_mean_ns`) pair the two block by block instead:
//   each block's read beside the raw decompression of that block alone, on the wall clock, so
//   no drift between two passes of the segment enters. The two then share the cache: each one's
//   output pushes the other's out of L1, which a pass of either alone does not, so with a codec
//   this figure can read higher than the pass-level ones; quote it beside them.
// - ManyMapOutputs: partition 0 of 1000 map outputs written at 200 partitions (Spark files, lz4,
//   written once per run into a temporary directory), coalescing and read-ahead on and off, with
//   a consumer that does nothing or one that stands in for downstream operators (busy for 250 ns
//   a row, about as long as the read takes), whose time read-ahead can hide.
//
// The raw baseline decompresses exactly the buffers the encoder compressed, from the segment
// itself, so that it reads the same bytes at the same addresses as the reader; the two take
// turns going first.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "arrow_message_generated.h"
#include "sluice/base/bit_ops.h"
#include "sluice/codec/compression.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/read/partition_reader.h"
#include "sluice/read/pushed_block_queue.h"
#include "sluice/write/map_writer.h"
#include "workload/reference_batches.h"

namespace sluice {
namespace {

// The decode cases run the reader and their baseline on this thread only, so they are timed in
// this thread's CPU time: on a shared machine, wall time also counts the time others ran.
struct ThreadCpuClock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<ThreadCpuClock, duration>;
  static time_point now() {
    timespec spec;
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec);
    return time_point(duration(int64_t{spec.tv_sec} * 1000000000 + spec.tv_nsec));
  }
};
using Clock = ThreadCpuClock;

double Seconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

// Returns the median of `values` (the upper one of an even count), or 0 when there are none.
double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Returns the seconds `work` takes.
template <typename Work>
double TimeOf(Work&& work) {
  const auto start = Clock::now();
  work();
  return Seconds(start, Clock::now());
}

struct CodecChoice {
  CompressionCodec codec;
  int level;
  const char* name;
};
constexpr CodecChoice kCodecs[] = {{CompressionCodec::kNone, 0, "none"},
                                   {CompressionCodec::kLz4Frame, 0, "lz4"},
                                   {CompressionCodec::kZstd, 1, "zstd1"}};

// The compressed buffers of a segment, decompressed in place from the segment's own bytes (the
// very bytes, at the very addresses, the reader decodes) into one block-sized output: the
// baseline every decode case is measured against. Buffers stored raw are left out, as the
// reader only views them.
class RawDecompression {
 public:
  RawDecompression(const AlignedBuffer& segment, const CodecChoice& choice) : segment_(segment) {
    if (choice.codec == CompressionCodec::kNone) return;
    decompressor_ = Decompressor::Make(choice.codec).ValueOrDie();
    // The encoder frames every message with the continuation marker and a 4-byte length.
    int64_t position = 0;
    int64_t block_output = 0;
    while (position + 8 <= segment.size()) {
      const int32_t metadata_size = bits::LoadUnaligned<int32_t>(segment.data() + position + 4);
      if (metadata_size == 0) break;  // end of stream
      const fb::Message* message = fb::GetMessage(segment.data() + position + 8);
      const int64_t body = position + 8 + metadata_size;
      position = body + message->body_length();
      const fb::RecordBatch* batch = message->header_as_RecordBatch();
      if (batch == nullptr) continue;
      block_starts_.push_back(pieces_.size());
      int64_t output = 0;
      for (const fb::Buffer* buffer : *batch->buffers()) {
        if (buffer->length() < ipc::kCompressedLengthPrefixSize) continue;
        const uint8_t* bytes = segment.data() + body + buffer->offset();
        const int64_t declared = bits::LoadUnaligned<int64_t>(bytes);
        if (declared <= 0) continue;  // stored raw (-1) or empty
        pieces_.push_back(Piece{body + buffer->offset() + ipc::kCompressedLengthPrefixSize,
                                buffer->length() - ipc::kCompressedLengthPrefixSize, output,
                                declared});
        output += bits::RoundUp(declared, ipc::kBufferAlignment);
      }
      block_output = std::max(block_output, output);
    }
    block_starts_.push_back(pieces_.size());
    output_.Resize(block_output + kRoom);
  }

  // Decompresses every compressed buffer of the segment.
  void Run() { RunPieces(0, pieces_.size()); }

  // Decompresses the compressed buffers of block `block` only (none past the last block).
  void RunBlock(int64_t block) {
    if (block < 0 || block + 1 >= static_cast<int64_t>(block_starts_.size())) return;
    RunPieces(block_starts_[static_cast<size_t>(block)],
              block_starts_[static_cast<size_t>(block) + 1]);
  }

  // Returns the bytes one block decompresses to, on average.
  int64_t decompressed_bytes() const {
    int64_t total = 0;
    for (const Piece& piece : pieces_) total += piece.size;
    const auto blocks = static_cast<int64_t>(block_starts_.size()) - 1;
    return blocks > 0 ? total / blocks : 0;
  }

 private:
  // The decoder's arenas end with this much room (see SegmentDecoder).
  static constexpr int64_t kRoom = 64;
  struct Piece {
    int64_t input;  // offset of the compressed bytes in the segment
    int64_t input_size;
    int64_t output;  // offset in the block-sized output, as in the decoder's arena
    int64_t size;
  };
  void RunPieces(size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const Piece& piece = pieces_[i];
      // With the room to the end of the output, as the decoder gives the codec its arena's.
      Status status = decompressor_->DecompressWithRoom(
          segment_.data() + piece.input, piece.input_size, output_.data() + piece.output,
          piece.size, output_.size() - piece.output);
      benchmark::DoNotOptimize(status.ok());
    }
  }

  const AlignedBuffer& segment_;
  std::unique_ptr<Decompressor> decompressor_;
  std::vector<Piece> pieces_;
  // Block b's pieces are [block_starts_[b], block_starts_[b + 1]); one entry more than blocks.
  std::vector<size_t> block_starts_;
  AlignedBuffer output_;
};

// One segment holding `blocks` copies of `batch`.
std::shared_ptr<AlignedBuffer> SegmentOf(const RecordBatch& batch, int64_t blocks,
                                         const CodecChoice& choice) {
  SegmentEncoderOptions options;
  options.codec = choice.codec;
  options.compression_level = choice.level;
  auto encoder = SegmentEncoder::Make(batch.schema(), options).ValueOrDie();
  std::vector<RecordBatch> copies(static_cast<size_t>(blocks), batch);
  auto segment = std::make_shared<AlignedBuffer>();
  Status status = encoder->AppendSegment(copies, segment.get());
  if (!status.ok()) std::abort();
  return segment;
}

// A long-lived reader fed one segment per iteration through a queue: the steady state of a
// reduce task (schema cached, contexts warm).
class WarmReader {
 public:
  WarmReader(const SchemaPtr& schema, bool coalesce) : queue_(PushedBlockQueue::Make()) {
    PartitionReaderOptions options;
    options.schema = schema;
    options.coalesce = coalesce;
    reader_ = PartitionReader::Open({queue_}, options).ValueOrDie();
  }

  // Reads every batch of `segment`; returns the batches. Never inlined: the callgrind script
  // (bench/report/instructions_per_block.py) zeroes its counts on entry to this function.
  [[gnu::noinline]] int64_t Read(const std::shared_ptr<AlignedBuffer>& segment) {
    Push(segment);
    int64_t batches = 0;
    while (NextBatch()) batches += 1;
    return batches;
  }

  // Reads every batch of `segment` as Read does, and after each batch (before it, every other
  // batch) decompresses the same block's buffers raw; appends each block's (reader - raw)
  // seconds, wall time on the steady clock (a thread CPU clock read is a system call, longer
  // than the difference measured), to `*differences`. (Not named Read*: see Read.)
  void PairEachBlock(const std::shared_ptr<AlignedBuffer>& segment, RawDecompression& raw,
                     std::vector<double>* differences) {
    using Wall = std::chrono::steady_clock;
    Push(segment);
    for (int64_t batch = 0;; ++batch) {
      const bool raw_first = batch % 2 == 1;
      Wall::duration raw_time{};
      auto run_raw = [&] {
        const Wall::time_point start = Wall::now();
        raw.RunBlock(batch);
        raw_time = Wall::now() - start;
      };
      if (raw_first) run_raw();
      const Wall::time_point read_start = Wall::now();
      const bool got = NextBatch();
      const Wall::duration read_time = Wall::now() - read_start;
      if (!got) break;
      if (!raw_first) run_raw();
      differences->push_back(std::chrono::duration<double>(read_time - raw_time).count());
    }
  }

  PartitionReaderMetrics metrics() const { return reader_->metrics(); }

 private:
  void Push(const std::shared_ptr<AlignedBuffer>& segment) {
    SegmentBlock block;
    block.data = segment->data();
    block.size = segment->size();
    block.partition_lengths = {segment->size()};
    if (!queue_->Push(std::move(block)).ok()) std::abort();
  }

  // Takes the next batch into batch_, handing the one it held back; false at the end.
  bool NextBatch() {
    auto polled = reader_->TryNext(&batch_);
    if (!polled.ok()) {
      std::fprintf(stderr, "%s\n", polled.status().ToString().c_str());
      std::abort();
    }
    if (*polled != PartitionReader::Poll::kBatch) return false;
    benchmark::DoNotOptimize(batch_.num_rows());
    return true;
  }

  std::shared_ptr<PushedBlockQueue> queue_;
  std::unique_ptr<PartitionReader> reader_;
  // The consumer's batch, kept from read to read as a reduce task's loop keeps it from segment
  // to segment: the reader builds each batch in the vectors of the one handed back.
  RecordBatch batch_;
};

// Times the reader over `segment` and the raw decompression of the same bytes, each iteration,
// in turn: the reader first in even iterations, the baseline first in odd ones, so that neither
// always finds the segment in the cache the other left.
struct PairedTimes {
  double read_seconds = 0;  // summed over the iterations
  double raw_seconds = 0;
  // The median over the iterations of (reader - raw) seconds: a preemption or a frequency step
  // lands in one iteration's pair and moves a sum, but not the median.
  double median_difference = 0;
};

PairedTimes TimePaired(benchmark::State& state, WarmReader& reader,
                       const std::shared_ptr<AlignedBuffer>& segment, RawDecompression& raw,
                       int64_t blocks) {
  PairedTimes times;
  std::vector<double> differences;
  bool reader_first = true;
  for (auto _ : state) {
    double raw_time = 0;
    if (!reader_first) raw_time = TimeOf([&] { raw.Run(); });
    int64_t batches = 0;
    const double read_time = TimeOf([&] { batches = reader.Read(segment); });
    if (reader_first) raw_time = TimeOf([&] { raw.Run(); });
    if (batches != blocks) state.SkipWithError("wrong batch count");
    times.read_seconds += read_time;
    times.raw_seconds += raw_time;
    differences.push_back(read_time - raw_time);
    state.SetIterationTime(read_time);
    reader_first = !reader_first;
  }
  times.median_difference = MedianOf(std::move(differences));
  return times;
}

void BM_DecodeThroughput(benchmark::State& state) {
  const CodecChoice choice = kCodecs[state.range(0)];
  constexpr int64_t kBlocks = 8;
  const RecordBatch batch = workload::MixedBatch(8192);
  const auto segment = SegmentOf(batch, kBlocks, choice);
  RawDecompression raw(*segment, choice);
  WarmReader reader(batch.schema(), /*coalesce=*/true);
  reader.Read(segment);  // warm up: schema parsed, contexts made
  const auto [read_seconds, raw_seconds, median_difference] =
      TimePaired(state, reader, segment, raw, kBlocks);
  state.counters["vs_raw"] = raw_seconds / read_seconds;
  state.counters["raw_GBps"] = static_cast<double>(raw.decompressed_bytes() * kBlocks) *
                               state.iterations() / raw_seconds / 1e9;
  state.counters["coalesced"] = static_cast<double>(reader.metrics().coalesced_batches);
  state.SetBytesProcessed(state.iterations() * raw.decompressed_bytes() * kBlocks);
  state.SetLabel(std::string("mixed/8192 rows/") + choice.name);
}
BENCHMARK(BM_DecodeThroughput)->Arg(1)->Arg(2)->UseManualTime()->ArgName("codec");

void BM_PerBlock(benchmark::State& state) {
  const int columns = static_cast<int>(state.range(0));
  const CodecChoice choice = kCodecs[state.range(1)];
  // 32 blocks: one small partition's segment, which sits in the cache after its read as it
  // does here (50 columns x 32 blocks is about 1 MiB).
  constexpr int64_t kBlocks = 32;
  const RecordBatch batch = workload::AlternatingBatch(columns, 64);
  const auto segment = SegmentOf(batch, kBlocks, choice);
  RawDecompression raw(*segment, choice);
  WarmReader reader(batch.schema(), /*coalesce=*/false);
  reader.Read(segment);
  const auto [read_seconds, raw_seconds, median_difference] =
      TimePaired(state, reader, segment, raw, kBlocks);
  const double blocks = static_cast<double>(state.iterations() * kBlocks);
  // The same cost paired block by block: each block's read beside the raw decompression of that
  // block's buffers, microseconds apart, so a drift of the machine between two passes of the
  // whole segment (which moves a difference of 134 us zstd blocks by a microsecond) does not
  // enter. The median over the blocks is a typical block's cost; the mean also spreads the
  // segment's own start (its schema message, its first block's set-up) over its blocks.
  std::vector<double> block_differences;
  for (int read = 0; read < 64; ++read) reader.PairEachBlock(segment, raw, &block_differences);
  double sum = 0;
  for (double difference : block_differences) sum += difference;
  state.counters["block_paired_above_raw_mean_ns"] =
      sum / static_cast<double>(block_differences.size()) * 1e9;
  state.counters["block_paired_above_raw_median_ns"] = MedianOf(std::move(block_differences)) * 1e9;
  state.counters["above_raw_median_ns"] = median_difference / kBlocks * 1e9;
  state.counters["block_ns"] = read_seconds / blocks * 1e9;
  state.counters["raw_ns"] = raw_seconds / blocks * 1e9;
  state.counters["above_raw_ns"] = (read_seconds - raw_seconds) / blocks * 1e9;
  // The same fixed cost measured inside the reader's own pass: its time per block less the time
  // its decoder spent in the decompression loop (warm-up included on both sides; the loop's
  // buffer-entry checks count as decompression). It has none of the run-to-run drift between
  // two separate decompression passes, which for 50 compressed columns (17-140 us of
  // decompression per block) is larger than the cost measured.
  const PartitionReaderMetrics metrics = reader.metrics();
  state.counters["schemas_parsed"] = static_cast<double>(metrics.schemas_parsed);
  state.counters["blocks_per_iteration"] = static_cast<double>(kBlocks);
  const double decompress_ns =
      static_cast<double>(metrics.decompress_nanos) / static_cast<double>(metrics.blocks);
  state.counters["reader_decompress_ns"] = decompress_ns;
  state.counters["outside_decompress_ns"] = read_seconds / blocks * 1e9 - decompress_ns;
  state.SetLabel(std::to_string(columns) + " columns/64 rows/" + choice.name);
}
BENCHMARK(BM_PerBlock)
    ->ArgsProduct({{5, 50}, {0, 1, 2}})
    ->UseManualTime()
    ->ArgNames({"columns", "codec"});

// 1000 map outputs of one 8192-row "mixed" batch each, hash-partitioned 200 ways on c0, lz4,
// with Spark's index files; written on first use, removed at exit.
class ManyMapOutputs {
 public:
  static constexpr int kMaps = 1000;
  static constexpr int32_t kPartitions = 200;

  static const ManyMapOutputs& Get() {
    static ManyMapOutputs outputs;
    return outputs;
  }

  ~ManyMapOutputs() {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }

  std::vector<SegmentSource> Sources(int32_t partition) const {
    std::vector<SegmentSource> sources;
    for (const auto& path : data_paths_) {
      sources.push_back(MapOutputFile::Spark(path, partition, partition + 1));
    }
    return sources;
  }

 private:
  ManyMapOutputs() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "sluice-read-benchmark-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    directory_ = pattern;
    for (int m = 0; m < kMaps; ++m) {
      MapWriterOptions options;
      options.schema = workload::MixedBatch(1).schema();
      options.partitioning.kind = PartitionKind::kHash;
      options.partitioning.partition_count = kPartitions;
      options.partitioning.key_columns = {0};
      options.encoding.codec = CompressionCodec::kLz4Frame;
      options.write_spark_files = true;
      options.data_path = directory_ + "/shuffle_0_" + std::to_string(m) + "_0.data";
      auto writer = MapWriter::Make(options).ValueOrDie();
      if (!writer->Write(workload::MixedBatch(8192, int64_t{m} * 8192)).ok()) std::abort();
      if (!writer->Finish().ok()) std::abort();
      data_paths_.push_back(options.data_path);
    }
  }

  std::string directory_;
  std::vector<std::string> data_paths_;
};

// Stands in for the operators after a shuffle read: keeps the core busy for `nanos`.
void ConsumeFor(int64_t nanos) {
  const auto until = Clock::now() + std::chrono::nanoseconds(nanos);
  while (Clock::now() < until) {
  }
}

void BM_ManyMapOutputs(benchmark::State& state) {
  const bool coalesce = state.range(0) != 0;
  const int32_t read_ahead = static_cast<int32_t>(state.range(1));
  const int64_t consumer_ns_per_row = state.range(2);
  const ManyMapOutputs& outputs = ManyMapOutputs::Get();
  PartitionReaderOptions options;
  options.coalesce = coalesce;
  options.read_ahead_batches = read_ahead;
  PartitionReaderMetrics metrics;
  for (auto _ : state) {
    auto reader = PartitionReader::Open(outputs.Sources(0), options).ValueOrDie();
    while (true) {
      auto batch = reader->Next();
      if (!batch.ok() || !batch->has_value()) break;
      benchmark::DoNotOptimize(batch->value().num_rows());
      if (consumer_ns_per_row > 0) ConsumeFor(batch->value().num_rows() * consumer_ns_per_row);
    }
    metrics = reader->metrics();
  }
  state.counters["rows"] = static_cast<double>(metrics.rows);
  state.counters["batches"] = static_cast<double>(metrics.batches);
  state.counters["blocks"] = static_cast<double>(metrics.blocks);
  state.counters["per_map_us"] = benchmark::Counter(
      static_cast<double>(ManyMapOutputs::kMaps),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["bytes_read_per_map"] =
      static_cast<double>(metrics.bytes_read) / ManyMapOutputs::kMaps;
  state.counters["reads_per_map"] = static_cast<double>(metrics.file_reads) / ManyMapOutputs::kMaps;
  state.counters["read_ms"] = static_cast<double>(metrics.read_nanos) / 1e6;
  state.counters["wait_ms"] = static_cast<double>(metrics.wait_nanos) / 1e6;
  state.SetItemsProcessed(state.iterations() * metrics.rows);
  state.SetLabel(std::string(coalesce ? "coalesce" : "as-decoded") +
                 (read_ahead > 0 ? "/read-ahead " + std::to_string(read_ahead) : "/inline") +
                 (consumer_ns_per_row > 0
                      ? "/consumer " + std::to_string(consumer_ns_per_row) + " ns a row"
                      : ""));
}
BENCHMARK(BM_ManyMapOutputs)
    ->ArgsProduct({{1, 0}, {0, 4}, {0, 250}})
    ->ArgNames({"coalesce", "read_ahead", "consumer_ns_per_row"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace sluice

BENCHMARK_MAIN();
