#include "end_to_end_suite.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "rss_sampler.h"
#include "sluice/codec/compression.h"
#include "sluice/io/output_file.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/read/partition_reader.h"
#include "sluice/write/map_writer.h"
#include "workload/lineitem.h"

namespace sluice::cli {

namespace {

namespace fs = std::filesystem;

// The batch size engines hand a shuffle (Spark's columnar batch size).
constexpr int64_t kBatchRows = 8192;
// The partition count of the codec and read measurements: Spark's default shuffle partitions.
constexpr int32_t kCodecPartitions = 200;

struct Measurement {
  double real_seconds = 0;
  double cpu_seconds = 0;
};

double CpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Times `body` (which returns a Status) once.
template <typename Body>
Result<Measurement> Measure(Body&& body) {
  const double cpu_start = CpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  SLUICE_RETURN_NOT_OK(body());
  Measurement measurement;
  measurement.real_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  measurement.cpu_seconds = CpuSeconds() - cpu_start;
  return measurement;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Collects Google Benchmark entries.
class EntryWriter {
 public:
  // Adds the runs of benchmark `name` with `counters` (an object) on every entry, and returns
  // the median real time in seconds. `bytes` and `items` per run give the rates.
  double Add(const std::string& name, const std::vector<Measurement>& runs, double bytes,
             double items, const JsonValue& counters) {
    const int family = family_++;
    std::vector<double> real;
    std::vector<double> cpu;
    for (const Measurement& run : runs) {
      real.push_back(run.real_seconds);
      cpu.push_back(run.cpu_seconds);
    }
    auto entry = [&](const std::string& entry_name, const char* run_type, double real_seconds,
                     double cpu_seconds) {
      JsonValue json = JsonValue::Object();
      json.Set("name", entry_name)
          .Set("family_index", family)
          .Set("per_family_instance_index", 0)
          .Set("run_name", name)
          .Set("run_type", run_type)
          .Set("repetitions", static_cast<int64_t>(runs.size()))
          .Set("threads", 1)
          .Set("iterations", 1)
          .Set("real_time", real_seconds * 1e3)
          .Set("cpu_time", cpu_seconds * 1e3)
          .Set("time_unit", "ms");
      if (bytes > 0 && real_seconds > 0) json.Set("bytes_per_second", bytes / real_seconds);
      if (items > 0 && real_seconds > 0) json.Set("items_per_second", items / real_seconds);
      for (const auto& [key, value] : counters.members()) json.Set(key, value);
      return json;
    };
    for (size_t i = 0; i < runs.size(); ++i) {
      JsonValue json = entry(name, "iteration", real[i], cpu[i]);
      json.Set("repetition_index", static_cast<int64_t>(i));
      entries_.push_back(std::move(json));
    }
    const double n = static_cast<double>(runs.size());
    double real_mean = 0;
    double cpu_mean = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      real_mean += real[i] / n;
      cpu_mean += cpu[i] / n;
    }
    double real_variance = 0;
    double cpu_variance = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      real_variance += (real[i] - real_mean) * (real[i] - real_mean);
      cpu_variance += (cpu[i] - cpu_mean) * (cpu[i] - cpu_mean);
    }
    const double denominator = runs.size() > 1 ? n - 1 : 1;
    const double real_median = Median(real);
    const double cpu_median = Median(cpu);
    for (const auto& [suffix, real_value, cpu_value] :
         std::vector<std::tuple<std::string, double, double>>{
             {"mean", real_mean, cpu_mean},
             {"median", real_median, cpu_median},
             {"stddev", std::sqrt(real_variance / denominator),
              std::sqrt(cpu_variance / denominator)}}) {
      JsonValue json = entry(name + "_" + suffix, "aggregate", real_value, cpu_value);
      json.Set("aggregate_name", suffix).Set("aggregate_unit", "time");
      if (suffix == "stddev") {
        // Rates of a standard deviation mean nothing.
        JsonValue trimmed = JsonValue::Object();
        for (const auto& [key, value] : json.members()) {
          if (key != "bytes_per_second" && key != "items_per_second") trimmed.Set(key, value);
        }
        json = std::move(trimmed);
      }
      entries_.push_back(std::move(json));
    }
    return real_median;
  }

  std::vector<JsonValue>& entries() { return entries_; }

 private:
  int family_ = 0;
  std::vector<JsonValue> entries_;
};

// Every buffer of `array` and its children, in order.
void CollectBuffers(const ArrayData& array, std::vector<BufferView>* buffers) {
  for (int i = 0; i < BufferCount(array.type->id()); ++i) {
    if (array.buffers[static_cast<size_t>(i)].size > 0) {
      buffers->push_back(array.buffers[static_cast<size_t>(i)]);
    }
  }
  for (const ArrayData& child : array.children) CollectBuffers(child, buffers);
}

struct CompressedBuffer {
  std::vector<uint8_t> bytes;
  int64_t uncompressed_size = 0;
};

struct WriteRun {
  Measurement measurement;
  MapOutput output;
};

class Suite {
 public:
  Suite(const EndToEndOptions& options, std::function<void(const std::string&)> on_step)
      : options_(options), on_step_(std::move(on_step)) {}

  Result<EndToEndResult> Run() {
    std::error_code error;
    fs::create_directories(options_.work_directory, error);
    if (error) {
      return Status::IOError("cannot create '", options_.work_directory, "': ", error.message());
    }
    Generate();
    SLUICE_RETURN_NOT_OK(RunIpcWrite());
    SLUICE_RETURN_NOT_OK(RunPartitionSweep());
    SLUICE_RETURN_NOT_OK(RunCodecs());
    SLUICE_RETURN_NOT_OK(RunBudgetedWrite());
    EndToEndResult result;
    result.benchmarks = std::move(entries_.entries());
    result.memory_timelines = std::move(memory_timelines_);
    return result;
  }

 private:
  void Generate() {
    on_step_("generating " + std::to_string(options_.rows) + " lineitem rows");
    workload::LineitemGenerator generator(1);
    for (int64_t done = 0; done < options_.rows; done += kBatchRows) {
      batches_.push_back(generator.Next(std::min(kBatchRows, options_.rows - done)));
      input_bytes_ += batches_.back().ReferencedBytes();
    }
  }

  std::string Path(const std::string& name) const {
    return (fs::path(options_.work_directory) / name).string();
  }

  // Where the write of `codec` at `partitions` partitions puts its map output.
  std::string OutputDirectory(CompressionCodec codec, int32_t partitions) const {
    return Path(std::string(CompressionCodecName(codec)) + "-p" + std::to_string(partitions));
  }

  JsonValue BaseCounters() const {
    return JsonValue::Object().Set("rows", options_.rows).Set("input_bytes", input_bytes_);
  }

  Status RunIpcWrite() {
    const std::string name = "end_to_end/ipc_write";
    on_step_(name);
    SLUICE_ASSIGN_OR_RAISE(auto encoder, SegmentEncoder::Make(batches_[0].schema()));
    std::vector<Measurement> runs;
    int64_t bytes = 0;
    for (int i = 0; i < options_.repetitions; ++i) {
      const std::string path = Path("stream.arrow");
      std::error_code error;
      fs::remove(path, error);
      SLUICE_ASSIGN_OR_RAISE(
          Measurement run, Measure([&]() -> Status {
            SLUICE_ASSIGN_OR_RAISE(auto file, OutputFile::Create(path));
            const auto schema = encoder->schema_message();
            file->Append(schema.data(), static_cast<int64_t>(schema.size()));
            for (const RecordBatch& batch : batches_) {
              SLUICE_RETURN_NOT_OK(encoder->AppendRecordBatch(batch, file->pending()));
              SLUICE_RETURN_NOT_OK(file->MaybeFlush());
            }
            file->Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
            bytes = file->position();
            SLUICE_RETURN_NOT_OK(file->Close());
            file->Keep();
            return Status::OK();
          }));
      runs.push_back(run);
    }
    std::error_code error;
    fs::remove(Path("stream.arrow"), error);
    JsonValue counters = BaseCounters().Set("output_bytes", bytes);
    ipc_write_seconds_ = entries_.Add(name, runs, static_cast<double>(input_bytes_),
                                      static_cast<double>(options_.rows), counters);
    return Status::OK();
  }

  // Writes all batches into a map output of `partitions` partitions, `repetitions` times. Keeps
  // the last run's files when `keep` is set (for the reads), removes them otherwise.
  Result<std::vector<WriteRun>> Write(int32_t partitions, CompressionCodec codec,
                                      int64_t memory_limit, const std::string& directory, bool keep,
                                      int repetitions) {
    std::vector<WriteRun> runs;
    for (int i = 0; i < repetitions; ++i) {
      std::error_code error;
      fs::remove_all(directory, error);
      fs::create_directories(directory, error);
      if (error) return Status::IOError("cannot create '", directory, "': ", error.message());
      MapWriterOptions options;
      options.schema = batches_[0].schema();
      options.partitioning.kind = PartitionKind::kHash;
      options.partitioning.partition_count = partitions;
      options.partitioning.key_columns = {0};  // l_orderkey
      options.encoding.codec = codec;
      options.memory_limit = memory_limit;
      options.data_path = (fs::path(directory) / "shuffle_0_0_0.data").string();
      options.write_spark_files = true;
      WriteRun run;
      SLUICE_ASSIGN_OR_RAISE(run.measurement, Measure([&]() -> Status {
                               SLUICE_ASSIGN_OR_RAISE(auto writer, MapWriter::Make(options));
                               for (const RecordBatch& batch : batches_) {
                                 SLUICE_RETURN_NOT_OK(writer->Write(batch));
                               }
                               SLUICE_ASSIGN_OR_RAISE(run.output, writer->Finish());
                               return Status::OK();
                             }));
      runs.push_back(std::move(run));
    }
    std::error_code error;
    if (!keep) fs::remove_all(directory, error);
    return runs;
  }

  // Adds a write's entries: ratio to ipc_write, and the phase split of the median run.
  double AddWrite(const std::string& name, const std::vector<WriteRun>& runs, JsonValue counters) {
    std::vector<Measurement> measurements;
    for (const WriteRun& run : runs) measurements.push_back(run.measurement);
    std::vector<double> real;
    for (const WriteRun& run : runs) real.push_back(run.measurement.real_seconds);
    const double median = Median(real);
    // The run nearest the median describes where the time went.
    const WriteRun* typical = &runs[0];
    for (const WriteRun& run : runs) {
      if (std::abs(run.measurement.real_seconds - median) <
          std::abs(typical->measurement.real_seconds - median)) {
        typical = &run;
      }
    }
    const MapWriterMetrics& metrics = typical->output.metrics;
    const double total = static_cast<double>(std::max<int64_t>(1, metrics.total_nanos));
    counters.Set("partitions", static_cast<int64_t>(typical->output.lengths.size()))
        .Set("output_bytes", metrics.output_bytes)
        .Set("blocks", metrics.blocks)
        .Set("spills", metrics.spills)
        .Set("partition_share", static_cast<double>(metrics.partition_nanos) / total)
        .Set("gather_share", static_cast<double>(metrics.gather_nanos) / total)
        .Set("compress_share", static_cast<double>(metrics.compress_nanos) / total)
        .Set("write_share", static_cast<double>(metrics.write_nanos) / total)
        .Set("vs_ipc_write", median / ipc_write_seconds_);
    return entries_.Add(name, measurements, static_cast<double>(input_bytes_),
                        static_cast<double>(options_.rows), counters);
  }

  Status RunPartitionSweep() {
    for (int32_t partitions : options_.partition_counts) {
      const std::string name =
          "end_to_end/write/partitions:" + std::to_string(partitions) + "/codec:none";
      on_step_(name);
      const bool keep = partitions == kCodecPartitions;
      SLUICE_ASSIGN_OR_RAISE(
          std::vector<WriteRun> runs,
          Write(partitions, CompressionCodec::kNone, /*memory_limit=*/-1,
                OutputDirectory(CompressionCodec::kNone, partitions), keep, options_.repetitions));
      const double median = AddWrite(name, runs, BaseCounters().Set("codec", "none"));
      if (keep) write_seconds_[CompressionCodec::kNone] = median;
    }
    return Status::OK();
  }

  Status RunCodecs() {
    std::vector<CompressionCodec> codecs = {CompressionCodec::kLz4Frame, CompressionCodec::kZstd};
    for (CompressionCodec codec : codecs) {
      const std::string codec_name(CompressionCodecName(codec));
      const std::string name = "end_to_end/write/partitions:" + std::to_string(kCodecPartitions) +
                               "/codec:" + codec_name;
      on_step_(name);
      SLUICE_ASSIGN_OR_RAISE(
          std::vector<WriteRun> runs,
          Write(kCodecPartitions, codec, -1, OutputDirectory(codec, kCodecPartitions), true,
                options_.repetitions));
      const int64_t output_bytes = runs.back().output.metrics.output_bytes;
      write_seconds_[codec] = AddWrite(name, runs, BaseCounters().Set("codec", codec_name));
      SLUICE_RETURN_NOT_OK(RunRawCompress(codec, output_bytes));
    }
    for (CompressionCodec codec :
         {CompressionCodec::kNone, CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
      SLUICE_RETURN_NOT_OK(RunRead(codec));
    }
    return Status::OK();
  }

  Status RunRawCompress(CompressionCodec codec, int64_t writer_output_bytes) {
    const std::string codec_name(CompressionCodecName(codec));
    const std::string name = "end_to_end/raw_compress/codec:" + codec_name;
    on_step_(name);
    std::vector<BufferView> buffers;
    for (const RecordBatch& batch : batches_) {
      for (const ArrayData& column : batch.columns()) CollectBuffers(column, &buffers);
    }
    SLUICE_ASSIGN_OR_RAISE(auto compressor, Compressor::Make(codec));
    int64_t largest = 0;
    for (const BufferView& buffer : buffers) largest = std::max(largest, buffer.size);
    std::vector<uint8_t> scratch(static_cast<size_t>(compressor->MaxCompressedSize(largest)));
    std::vector<Measurement> runs;
    int64_t compressed_bytes = 0;
    for (int i = 0; i < options_.repetitions; ++i) {
      compressed_bytes = 0;
      SLUICE_ASSIGN_OR_RAISE(Measurement run, Measure([&]() -> Status {
                               for (const BufferView& buffer : buffers) {
                                 SLUICE_ASSIGN_OR_RAISE(
                                     int64_t size,
                                     compressor->Compress(buffer.data, buffer.size, scratch.data(),
                                                          static_cast<int64_t>(scratch.size())));
                                 compressed_bytes += size;
                               }
                               return Status::OK();
                             }));
      runs.push_back(run);
    }
    // Keeps the compressed buffers for the decompression baseline.
    std::vector<CompressedBuffer>& kept = compressed_[codec];
    kept.clear();
    for (const BufferView& buffer : buffers) {
      SLUICE_ASSIGN_OR_RAISE(int64_t size,
                             compressor->Compress(buffer.data, buffer.size, scratch.data(),
                                                  static_cast<int64_t>(scratch.size())));
      kept.push_back({std::vector<uint8_t>(scratch.begin(), scratch.begin() + size), buffer.size});
    }
    std::vector<double> real;
    for (const Measurement& run : runs) real.push_back(run.real_seconds);
    const double raw_seconds = Median(real);
    JsonValue counters =
        BaseCounters()
            .Set("codec", codec_name)
            .Set("buffers", static_cast<int64_t>(buffers.size()))
            .Set("compressed_bytes", compressed_bytes)
            .Set("writer_output_bytes", writer_output_bytes)
            .Set("writer_vs_raw", write_seconds_[codec] / raw_seconds)
            .Set("codec_cost_vs_raw",
                 (write_seconds_[codec] - write_seconds_[CompressionCodec::kNone]) / raw_seconds);
    entries_.Add(name, runs, static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
                 counters);
    return Status::OK();
  }

  Status RunRead(CompressionCodec codec) {
    const std::string codec_name(CompressionCodecName(codec));
    const std::string directory = OutputDirectory(codec, kCodecPartitions);
    const std::string data_path = (fs::path(directory) / "shuffle_0_0_0.data").string();
    std::error_code error;
    const int64_t file_bytes = static_cast<int64_t>(fs::file_size(data_path, error));
    if (error) return Status::IOError("cannot stat '", data_path, "': ", error.message());

    // The baseline: the codec alone over the same buffers, or a memcpy of the file's bytes.
    std::string baseline_name;
    std::vector<Measurement> baseline_runs;
    if (codec == CompressionCodec::kNone) {
      baseline_name = "end_to_end/raw_copy";
      on_step_(baseline_name);
      std::vector<uint8_t> source(static_cast<size_t>(file_bytes), 1);
      std::vector<uint8_t> target(static_cast<size_t>(file_bytes));
      for (int i = 0; i < options_.repetitions; ++i) {
        SLUICE_ASSIGN_OR_RAISE(Measurement run, Measure([&]() -> Status {
                                 std::memcpy(target.data(), source.data(), source.size());
                                 return Status::OK();
                               }));
        baseline_runs.push_back(run);
      }
    } else {
      baseline_name = "end_to_end/raw_decompress/codec:" + codec_name;
      on_step_(baseline_name);
      SLUICE_ASSIGN_OR_RAISE(auto decompressor, Decompressor::Make(codec));
      const std::vector<CompressedBuffer>& buffers = compressed_[codec];
      int64_t largest = 0;
      for (const CompressedBuffer& buffer : buffers) {
        largest = std::max(largest, buffer.uncompressed_size);
      }
      std::vector<uint8_t> target(static_cast<size_t>(largest));
      for (int i = 0; i < options_.repetitions; ++i) {
        SLUICE_ASSIGN_OR_RAISE(
            Measurement run, Measure([&]() -> Status {
              for (const CompressedBuffer& buffer : buffers) {
                SLUICE_RETURN_NOT_OK(decompressor->Decompress(
                    buffer.bytes.data(), static_cast<int64_t>(buffer.bytes.size()), target.data(),
                    buffer.uncompressed_size));
              }
              return Status::OK();
            }));
        baseline_runs.push_back(run);
      }
    }
    std::vector<double> baseline_real;
    for (const Measurement& run : baseline_runs) baseline_real.push_back(run.real_seconds);
    const double baseline_seconds = Median(baseline_real);
    entries_.Add(baseline_name, baseline_runs, static_cast<double>(input_bytes_),
                 static_cast<double>(options_.rows),
                 BaseCounters().Set("codec", codec_name).Set("file_bytes", file_bytes));

    const std::string name =
        "end_to_end/read/partitions:" + std::to_string(kCodecPartitions) + "/codec:" + codec_name;
    on_step_(name);
    std::vector<Measurement> runs;
    PartitionReaderMetrics metrics;
    for (int i = 0; i < options_.repetitions; ++i) {
      SLUICE_ASSIGN_OR_RAISE(
          Measurement run, Measure([&]() -> Status {
            std::vector<SegmentSource> sources;
            sources.push_back(MapOutputFile::Spark(data_path, 0, kCodecPartitions));
            SLUICE_ASSIGN_OR_RAISE(auto reader, PartitionReader::Open(std::move(sources)));
            int64_t rows = 0;
            while (true) {
              SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, reader->Next());
              if (!batch) break;
              rows += batch->num_rows();
            }
            if (rows != options_.rows) {
              return Status::Invalid("read ", rows, " rows from ", data_path, ", expected ",
                                     options_.rows);
            }
            metrics = reader->metrics();
            return Status::OK();
          }));
      runs.push_back(run);
    }
    std::vector<double> real;
    for (const Measurement& run : runs) real.push_back(run.real_seconds);
    const double ratio = Median(real) / baseline_seconds;
    entries_.Add(
        name, runs, static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
        BaseCounters()
            .Set("codec", codec_name)
            .Set("file_bytes", file_bytes)
            .Set("batches", metrics.batches)
            .Set("read_nanos", metrics.read_nanos)
            .Set("decompress_nanos", metrics.decompress_nanos)
            .Set("coalesce_nanos", metrics.coalesce_nanos)
            .Set(codec == CompressionCodec::kNone ? "vs_raw_copy" : "vs_raw_decompress", ratio));
    fs::remove_all(directory, error);
    return Status::OK();
  }

  Status RunBudgetedWrite() {
    const int64_t budget_mib = options_.small_budget_bytes >> 20;
    const std::string name =
        "end_to_end/write_budget/partitions:" + std::to_string(kCodecPartitions) +
        "/codec:lz4/budget_mib:" + std::to_string(budget_mib);
    on_step_(name);
    const int64_t baseline_rss = RssSampler::CurrentRss();
    // 5 ms: fine enough to see each spill, coarse enough to cost nothing.
    RssSampler sampler(std::chrono::milliseconds(5));
    SLUICE_ASSIGN_OR_RAISE(std::vector<WriteRun> runs,
                           Write(kCodecPartitions, CompressionCodec::kLz4Frame,
                                 options_.small_budget_bytes, Path("budget"), false, 1));
    sampler.Stop();
    int64_t peak = 0;
    JsonValue samples = JsonValue::Array();
    for (const RssSampler::Sample& sample : sampler.samples()) {
      peak = std::max(peak, sample.rss_bytes);
      samples.Append(JsonValue::Array().Append(sample.seconds).Append(sample.rss_bytes));
    }
    const MapWriterMetrics& metrics = runs[0].output.metrics;
    AddWrite(name, runs,
             BaseCounters()
                 .Set("codec", "lz4")
                 .Set("budget_bytes", options_.small_budget_bytes)
                 .Set("peak_reserved_bytes", metrics.peak_reserved_bytes)
                 .Set("peak_rss_above_start_bytes", peak - baseline_rss));
    memory_timelines_.Append(JsonValue::Object()
                                 .Set("name", name)
                                 .Set("budget_bytes", options_.small_budget_bytes)
                                 .Set("baseline_rss_bytes", baseline_rss)
                                 .Set("peak_reserved_bytes", metrics.peak_reserved_bytes)
                                 .Set("spills", metrics.spills)
                                 .Set("samples", std::move(samples)));
    return Status::OK();
  }

  const EndToEndOptions& options_;
  std::function<void(const std::string&)> on_step_;
  EntryWriter entries_;
  std::vector<RecordBatch> batches_;
  int64_t input_bytes_ = 0;
  double ipc_write_seconds_ = 0;
  std::map<CompressionCodec, double> write_seconds_;
  std::map<CompressionCodec, std::vector<CompressedBuffer>> compressed_;
  JsonValue memory_timelines_ = JsonValue::Array();
};

}  // namespace

Result<EndToEndResult> RunEndToEndSuite(const EndToEndOptions& options,
                                        const std::function<void(const std::string&)>& on_step) {
  return Suite(options, on_step).Run();
}

}  // namespace sluice::cli
