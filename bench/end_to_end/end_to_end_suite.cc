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

std::vector<Measurement> MeasurementsOf(const std::vector<WriteRun>& runs) {
  std::vector<Measurement> measurements;
  for (const WriteRun& run : runs) measurements.push_back(run.measurement);
  return measurements;
}

// The median over repetitions of run[i] / baseline[i]. Each repetition measures a benchmark and
// its baseline seconds apart, so on a shared machine both see the same load and the paired
// ratio is far steadier than a ratio of medians taken minutes apart.
double PairedRatio(const std::vector<Measurement>& runs, const std::vector<Measurement>& baseline) {
  std::vector<double> ratios;
  for (size_t i = 0; i < runs.size() && i < baseline.size(); ++i) {
    ratios.push_back(runs[i].real_seconds / baseline[i].real_seconds);
  }
  return ratios.empty() ? 0.0 : Median(ratios);
}

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
    SLUICE_RETURN_NOT_OK(RunWrites());
    SLUICE_RETURN_NOT_OK(RunReads());
    SLUICE_RETURN_NOT_OK(RunBudgetedWrite());
    SLUICE_RETURN_NOT_OK(RunBytesSweep());
    fs::remove_all(options_.work_directory, error);
    EndToEndResult result;
    result.benchmarks = std::move(entries_.entries());
    result.memory_timelines = std::move(memory_timelines_);
    return result;
  }

 private:
  static constexpr CompressionCodec kCodecs[] = {CompressionCodec::kLz4Frame,
                                                 CompressionCodec::kZstd};

  void Generate() {
    on_step_("generating " + std::to_string(options_.rows) + " lineitem rows");
    workload::LineitemGenerator generator(1);
    for (int64_t done = 0; done < options_.rows; done += kBatchRows) {
      batches_.push_back(generator.Next(std::min(kBatchRows, options_.rows - done)));
      input_bytes_ += batches_.back().ReferencedBytes();
    }
    for (const RecordBatch& batch : batches_) {
      for (const ArrayData& column : batch.columns()) CollectBuffers(column, &buffers_);
    }
  }

  void Step(const std::string& name, int repetition) {
    on_step_(name + " (" + std::to_string(repetition + 1) + "/" +
             std::to_string(options_.repetitions) + ")");
  }

  std::string Path(const std::string& name) const {
    return (fs::path(options_.work_directory) / name).string();
  }

  // Where the write of `codec` at `partitions` partitions puts its map output.
  std::string OutputDirectory(CompressionCodec codec, int32_t partitions) const {
    return Path(std::string(CompressionCodecName(codec)) + "-p" + std::to_string(partitions));
  }

  std::string DataPath(CompressionCodec codec) const {
    return (fs::path(OutputDirectory(codec, kCodecPartitions)) / "shuffle_0_0_0.data").string();
  }

  JsonValue BaseCounters() const {
    return JsonValue::Object().Set("rows", options_.rows).Set("input_bytes", input_bytes_);
  }

  // The baseline of every write: the same batches as one unpartitioned Arrow IPC stream, encoded
  // and written to a file, which is removed afterwards.
  Result<Measurement> IpcWriteOnce() {
    const std::string path = Path("stream.arrow");
    std::error_code error;
    fs::remove(path, error);
    SLUICE_ASSIGN_OR_RAISE(auto encoder, SegmentEncoder::Make(batches_[0].schema()));
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
          ipc_bytes_ = file->position();
          SLUICE_RETURN_NOT_OK(file->Close());
          file->Keep();
          return Status::OK();
        }));
    fs::remove(path, error);
    return run;
  }

  // Writes all batches into a map output of `partitions` partitions in `directory` (made anew).
  // Keeps the files when `keep` is set (for the reads), removes them otherwise.
  Result<WriteRun> WriteOnce(int32_t partitions, CompressionCodec codec, bool keep) {
    const std::string directory = OutputDirectory(codec, partitions);
    std::error_code error;
    fs::remove_all(directory, error);
    fs::create_directories(directory, error);
    if (error) return Status::IOError("cannot create '", directory, "': ", error.message());
    return MeasureWrite(WriterOptions(partitions, codec, /*memory_limit=*/-1, directory), keep);
  }

  // Writes all batches with `options` (into a directory made anew); keeps the files when `keep`.
  Result<WriteRun> MeasureWrite(const MapWriterOptions& options, bool keep) {
    WriteRun run;
    SLUICE_ASSIGN_OR_RAISE(run.measurement, Measure([&]() -> Status {
                             SLUICE_ASSIGN_OR_RAISE(auto writer, MapWriter::Make(options));
                             for (const RecordBatch& batch : batches_) {
                               SLUICE_RETURN_NOT_OK(writer->Write(batch));
                             }
                             SLUICE_ASSIGN_OR_RAISE(run.output, writer->Finish());
                             return Status::OK();
                           }));
    if (!keep) {
      std::error_code error;
      fs::remove_all(DirectoryOf(options.data_path), error);
    }
    return run;
  }

  // How the bytes sweep lays out small partitions.
  enum class SegmentForm { kCompactDictionary, kCompact, kStreams };
  static const char* SegmentFormName(SegmentForm form) {
    switch (form) {
      case SegmentForm::kCompactDictionary:
        return "compact_dictionary";
      case SegmentForm::kCompact:
        return "compact";
      case SegmentForm::kStreams:
        return "streams";
    }
    return "";
  }

  // Reads every partition of the map output in `directory`, one PartitionReader per partition
  // given the schema, as one reduce task per partition reads it.
  Result<Measurement> ReadEachPartitionOnce(const std::string& data_path, int32_t partitions) {
    return Measure([&]() -> Status {
      PartitionReaderOptions options;
      options.schema = batches_[0].schema();
      int64_t rows = 0;
      for (int32_t p = 0; p < partitions; ++p) {
        std::vector<SegmentSource> sources;
        sources.emplace_back(std::in_place_type<MapOutputFile>,
                             MapOutputFile::Spark(data_path, p, p + 1));
        SLUICE_ASSIGN_OR_RAISE(auto reader, PartitionReader::Open(std::move(sources), options));
        while (true) {
          SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, reader->Next());
          if (!batch) break;
          rows += batch->num_rows();
        }
      }
      if (rows != options_.rows) {
        return Status::Invalid("read ", rows, " rows from ", data_path, ", expected ",
                               options_.rows);
      }
      return Status::OK();
    });
  }

  // Output bytes against the partition count (lz4, hash on l_orderkey): 200 and 8,000
  // partitions under the CLI's default 256 MiB budget, 100,000 under 64 MiB (five spills at 2M
  // rows), each in the default form (compact segments compressed against the Schema message),
  // compact segments without it, and streams only. Each write's bytes and paired time are
  // stated against the 200-partition write of the same form; every output is then read
  // partition by partition, and that read's time is stated against the streams' read.
  Status RunBytesSweep() {
    struct Case {
      int32_t partitions;
      int64_t budget_bytes;
      SegmentForm form;
    };
    const std::vector<int32_t> counts = {kCodecPartitions, 8000, 100000};
    const std::vector<SegmentForm> forms = {SegmentForm::kCompactDictionary, SegmentForm::kCompact,
                                            SegmentForm::kStreams};
    std::vector<Case> cases;
    for (SegmentForm form : forms) {
      for (int32_t partitions : counts) {
        cases.push_back({partitions, int64_t{partitions > 8000 ? 64 : 256} << 20, form});
      }
    }
    auto case_index = [&](int32_t partitions, SegmentForm form) {
      for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].partitions == partitions && cases[i].form == form) return i;
      }
      return size_t{0};
    };
    auto name_of = [](const std::string& what, const Case& c) {
      return "end_to_end/" + what + "/partitions:" + std::to_string(c.partitions) +
             "/codec:lz4/budget_mib:" + std::to_string(c.budget_bytes >> 20) +
             "/segments:" + SegmentFormName(c.form);
    };
    std::vector<std::vector<WriteRun>> runs(cases.size());
    std::vector<std::vector<Measurement>> reads(cases.size());
    for (int rep = 0; rep < options_.repetitions; ++rep) {
      for (size_t i = 0; i < cases.size(); ++i) {
        Step(name_of("write_bytes", cases[i]), rep);
        const std::string directory = Path("bytes-" + std::to_string(i));
        std::error_code error;
        fs::remove_all(directory, error);
        fs::create_directories(directory, error);
        if (error) return Status::IOError("cannot create '", directory, "': ", error.message());
        MapWriterOptions options = WriterOptions(cases[i].partitions, CompressionCodec::kLz4Frame,
                                                 cases[i].budget_bytes, directory);
        options.compact_schema_dictionary = cases[i].form == SegmentForm::kCompactDictionary;
        if (cases[i].form == SegmentForm::kStreams) options.compact_segment_bytes = 0;
        SLUICE_ASSIGN_OR_RAISE(WriteRun run, MeasureWrite(options, /*keep=*/true));
        runs[i].push_back(std::move(run));
        Step(name_of("read_each_partition", cases[i]), rep);
        SLUICE_ASSIGN_OR_RAISE(Measurement read,
                               ReadEachPartitionOnce(options.data_path, cases[i].partitions));
        reads[i].push_back(read);
        fs::remove_all(directory, error);
      }
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      const size_t base = case_index(kCodecPartitions, cases[i].form);
      const size_t streams = case_index(cases[i].partitions, SegmentForm::kStreams);
      const auto bytes = [&](size_t c) {
        return static_cast<double>(runs[c].back().output.metrics.output_bytes);
      };
      const MapWriterMetrics& metrics = runs[i].back().output.metrics;
      const JsonValue counters = BaseCounters()
                                     .Set("codec", "lz4")
                                     .Set("partitions", static_cast<int64_t>(cases[i].partitions))
                                     .Set("budget_bytes", cases[i].budget_bytes)
                                     .Set("segments", SegmentFormName(cases[i].form))
                                     .Set("output_bytes", metrics.output_bytes);
      entries_.Add(name_of("write_bytes", cases[i]), MeasurementsOf(runs[i]),
                   static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
                   JsonValue(counters)
                       .Set("blocks", metrics.blocks)
                       .Set("spills", metrics.spills)
                       .Set("bytes_vs_200", bytes(i) / bytes(base))
                       .Set("bytes_vs_streams", bytes(i) / bytes(streams))
                       .Set("time_vs_200",
                            PairedRatio(MeasurementsOf(runs[i]), MeasurementsOf(runs[base]))));
      entries_.Add(name_of("read_each_partition", cases[i]), reads[i],
                   static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
                   JsonValue(counters).Set("vs_streams", PairedRatio(reads[i], reads[streams])));
    }
    return Status::OK();
  }

  MapWriterOptions WriterOptions(int32_t partitions, CompressionCodec codec, int64_t memory_limit,
                                 const std::string& directory) const {
    MapWriterOptions options;
    options.schema = batches_[0].schema();
    options.partitioning.kind = PartitionKind::kHash;
    options.partitioning.partition_count = partitions;
    options.partitioning.key_columns = {0};  // l_orderkey
    options.encoding.codec = codec;
    options.memory_limit = memory_limit;
    options.data_path = (fs::path(directory) / "shuffle_0_0_0.data").string();
    options.write_spark_files = true;
    return options;
  }

  // The codec alone over every buffer of the input batches, one call per buffer as the writer
  // makes (the writer's blocks hold about as many rows as an input batch).
  Result<Measurement> RawCompressOnce(CompressionCodec codec, int64_t* compressed_bytes) {
    SLUICE_ASSIGN_OR_RAISE(auto compressor, Compressor::Make(codec));
    int64_t largest = 0;
    for (const BufferView& buffer : buffers_) largest = std::max(largest, buffer.size);
    std::vector<uint8_t> scratch(static_cast<size_t>(compressor->MaxCompressedSize(largest)));
    *compressed_bytes = 0;
    return Measure([&]() -> Status {
      for (const BufferView& buffer : buffers_) {
        SLUICE_ASSIGN_OR_RAISE(int64_t size,
                               compressor->Compress(buffer.data, buffer.size, scratch.data(),
                                                    static_cast<int64_t>(scratch.size())));
        *compressed_bytes += size;
      }
      return Status::OK();
    });
  }

  Status KeepCompressedBuffers(CompressionCodec codec) {
    SLUICE_ASSIGN_OR_RAISE(auto compressor, Compressor::Make(codec));
    std::vector<CompressedBuffer>& kept = compressed_[codec];
    kept.clear();
    std::vector<uint8_t> scratch;
    for (const BufferView& buffer : buffers_) {
      scratch.resize(static_cast<size_t>(compressor->MaxCompressedSize(buffer.size)));
      SLUICE_ASSIGN_OR_RAISE(int64_t size,
                             compressor->Compress(buffer.data, buffer.size, scratch.data(),
                                                  static_cast<int64_t>(scratch.size())));
      kept.push_back({std::vector<uint8_t>(scratch.begin(), scratch.begin() + size), buffer.size});
    }
    return Status::OK();
  }

  Status RunWrites() {
    // One untimed run first: the first write of a process pays page faults no later one does.
    SLUICE_RETURN_NOT_OK(IpcWriteOnce().status());
    std::vector<Measurement> ipc;
    std::map<int32_t, std::vector<WriteRun>> sweep;
    std::map<CompressionCodec, std::vector<WriteRun>> codec_writes;
    std::map<CompressionCodec, std::vector<Measurement>> raw_compress;
    std::map<CompressionCodec, int64_t> compressed_bytes;
    const int last = options_.repetitions - 1;
    // Each repetition runs every write and its baselines back to back (see PairedRatio).
    for (int rep = 0; rep < options_.repetitions; ++rep) {
      Step("end_to_end/ipc_write", rep);
      SLUICE_ASSIGN_OR_RAISE(Measurement baseline, IpcWriteOnce());
      ipc.push_back(baseline);
      for (int32_t partitions : options_.partition_counts) {
        Step("end_to_end/write/partitions:" + std::to_string(partitions), rep);
        SLUICE_ASSIGN_OR_RAISE(WriteRun run,
                               WriteOnce(partitions, CompressionCodec::kNone,
                                         /*keep=*/rep == last && partitions == kCodecPartitions));
        sweep[partitions].push_back(std::move(run));
      }
      for (CompressionCodec codec : kCodecs) {
        const std::string codec_name(CompressionCodecName(codec));
        Step("end_to_end/write/codec:" + codec_name, rep);
        SLUICE_ASSIGN_OR_RAISE(WriteRun run, WriteOnce(kCodecPartitions, codec, rep == last));
        codec_writes[codec].push_back(std::move(run));
        Step("end_to_end/raw_compress/codec:" + codec_name, rep);
        SLUICE_ASSIGN_OR_RAISE(Measurement raw, RawCompressOnce(codec, &compressed_bytes[codec]));
        raw_compress[codec].push_back(raw);
      }
    }

    entries_.Add("end_to_end/ipc_write", ipc, static_cast<double>(input_bytes_),
                 static_cast<double>(options_.rows),
                 BaseCounters().Set("output_bytes", ipc_bytes_));
    for (int32_t partitions : options_.partition_counts) {
      AddWrite("end_to_end/write/partitions:" + std::to_string(partitions) + "/codec:none",
               sweep[partitions], ipc, BaseCounters().Set("codec", "none"));
    }
    const std::vector<WriteRun>& none = sweep[kCodecPartitions];
    for (CompressionCodec codec : kCodecs) {
      const std::string codec_name(CompressionCodecName(codec));
      const std::vector<WriteRun>& writes = codec_writes[codec];
      AddWrite("end_to_end/write/partitions:" + std::to_string(kCodecPartitions) +
                   "/codec:" + codec_name,
               writes, ipc, BaseCounters().Set("codec", codec_name));
      const std::vector<Measurement>& raw = raw_compress[codec];
      std::vector<double> codec_costs;
      for (size_t i = 0; i < raw.size() && i < none.size(); ++i) {
        codec_costs.push_back(
            (writes[i].measurement.real_seconds - none[i].measurement.real_seconds) /
            raw[i].real_seconds);
      }
      entries_.Add("end_to_end/raw_compress/codec:" + codec_name, raw,
                   static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
                   BaseCounters()
                       .Set("codec", codec_name)
                       .Set("buffers", static_cast<int64_t>(buffers_.size()))
                       .Set("compressed_bytes", compressed_bytes[codec])
                       .Set("writer_output_bytes", writes.back().output.metrics.output_bytes)
                       .Set("writer_vs_raw", PairedRatio(MeasurementsOf(writes), raw))
                       .Set("codec_cost_vs_raw", codec_costs.empty() ? 0.0 : Median(codec_costs)));
      SLUICE_RETURN_NOT_OK(KeepCompressedBuffers(codec));
    }
    return Status::OK();
  }

  // Adds a write's entries: its paired ratio to the unpartitioned IPC write, and the phase split
  // of the run nearest the median.
  void AddWrite(const std::string& name, const std::vector<WriteRun>& runs,
                const std::vector<Measurement>& ipc, JsonValue counters) {
    std::vector<double> real;
    for (const WriteRun& run : runs) real.push_back(run.measurement.real_seconds);
    const double median = Median(real);
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
        .Set("vs_ipc_write", PairedRatio(MeasurementsOf(runs), ipc));
    entries_.Add(name, MeasurementsOf(runs), static_cast<double>(input_bytes_),
                 static_cast<double>(options_.rows), counters);
  }

  Result<Measurement> CopyOnce(const std::vector<uint8_t>& source, std::vector<uint8_t>* target) {
    return Measure([&]() -> Status {
      std::memcpy(target->data(), source.data(), source.size());
      return Status::OK();
    });
  }

  Result<Measurement> RawDecompressOnce(CompressionCodec codec, std::vector<uint8_t>* target) {
    SLUICE_ASSIGN_OR_RAISE(auto decompressor, Decompressor::Make(codec));
    const std::vector<CompressedBuffer>& buffers = compressed_[codec];
    return Measure([&]() -> Status {
      for (const CompressedBuffer& buffer : buffers) {
        SLUICE_RETURN_NOT_OK(decompressor->Decompress(buffer.bytes.data(),
                                                      static_cast<int64_t>(buffer.bytes.size()),
                                                      target->data(), buffer.uncompressed_size));
      }
      return Status::OK();
    });
  }

  // Reads all partitions of the 200-partition output through one PartitionReader, as a reduce
  // task of the whole range would (checksums not verified: the decode is what is measured).
  Result<Measurement> ReadOnce(CompressionCodec codec, PartitionReaderMetrics* metrics) {
    const std::string data_path = DataPath(codec);
    return Measure([&]() -> Status {
      std::vector<SegmentSource> sources;
      sources.emplace_back(std::in_place_type<MapOutputFile>,
                           MapOutputFile::Spark(data_path, 0, kCodecPartitions));
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
      *metrics = reader->metrics();
      return Status::OK();
    });
  }

  Status RunReads() {
    const std::vector<CompressionCodec> codecs = {CompressionCodec::kNone, kCodecs[0], kCodecs[1]};
    std::error_code error;
    const int64_t none_bytes = static_cast<int64_t>(fs::file_size(DataPath(codecs[0]), error));
    if (error) return Status::IOError("cannot stat '", DataPath(codecs[0]), "': ", error.message());
    std::vector<uint8_t> source(static_cast<size_t>(none_bytes), 1);
    int64_t largest = none_bytes;
    for (const BufferView& buffer : buffers_) largest = std::max(largest, buffer.size);
    std::vector<uint8_t> target(static_cast<size_t>(largest), 0);

    std::map<CompressionCodec, std::vector<Measurement>> baselines;
    std::map<CompressionCodec, std::vector<Measurement>> reads;
    std::map<CompressionCodec, PartitionReaderMetrics> metrics;
    for (int rep = 0; rep < options_.repetitions; ++rep) {
      for (CompressionCodec codec : codecs) {
        const std::string codec_name(CompressionCodecName(codec));
        if (codec == CompressionCodec::kNone) {
          Step("end_to_end/raw_copy", rep);
          SLUICE_ASSIGN_OR_RAISE(Measurement copy, CopyOnce(source, &target));
          baselines[codec].push_back(copy);
        } else {
          Step("end_to_end/raw_decompress/codec:" + codec_name, rep);
          SLUICE_ASSIGN_OR_RAISE(Measurement raw, RawDecompressOnce(codec, &target));
          baselines[codec].push_back(raw);
        }
        Step("end_to_end/read/codec:" + codec_name, rep);
        SLUICE_ASSIGN_OR_RAISE(Measurement read, ReadOnce(codec, &metrics[codec]));
        reads[codec].push_back(read);
      }
    }
    for (CompressionCodec codec : codecs) {
      const std::string codec_name(CompressionCodecName(codec));
      const bool none = codec == CompressionCodec::kNone;
      const int64_t file_bytes = static_cast<int64_t>(fs::file_size(DataPath(codec), error));
      entries_.Add(none ? "end_to_end/raw_copy" : "end_to_end/raw_decompress/codec:" + codec_name,
                   baselines[codec], static_cast<double>(input_bytes_),
                   static_cast<double>(options_.rows),
                   BaseCounters().Set("codec", codec_name).Set("file_bytes", file_bytes));
      const PartitionReaderMetrics& read_metrics = metrics[codec];
      entries_.Add(
          "end_to_end/read/partitions:" + std::to_string(kCodecPartitions) + "/codec:" + codec_name,
          reads[codec], static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
          BaseCounters()
              .Set("codec", codec_name)
              .Set("file_bytes", file_bytes)
              .Set("batches", read_metrics.batches)
              .Set("read_nanos", read_metrics.read_nanos)
              .Set("decompress_nanos", read_metrics.decompress_nanos)
              .Set("coalesce_nanos", read_metrics.coalesce_nanos)
              .Set(none ? "vs_raw_copy" : "vs_raw_decompress",
                   PairedRatio(reads[codec], baselines[codec])));
      fs::remove_all(OutputDirectory(codec, kCodecPartitions), error);
    }
    return Status::OK();
  }

  // A write under a small budget with the batches made as it goes (as `sluice write` reads
  // them), so memory shows what the writer holds: resident memory sampled every 5 ms, and the
  // bytes the writer has charged to the budget after each batch.
  Status RunBudgetedWrite() {
    const int64_t budget_mib = options_.small_budget_bytes >> 20;
    const std::string name =
        "end_to_end/write_budget/partitions:" + std::to_string(kCodecPartitions) +
        "/codec:lz4/budget_mib:" + std::to_string(budget_mib);
    on_step_(name);
    const std::string directory = Path("budget");
    std::error_code error;
    fs::remove_all(directory, error);
    fs::create_directories(directory, error);
    if (error) return Status::IOError("cannot create '", directory, "': ", error.message());
    MapWriterOptions options = WriterOptions(kCodecPartitions, CompressionCodec::kLz4Frame,
                                             options_.small_budget_bytes, directory);
    workload::LineitemGenerator generator(1);
    JsonValue held = JsonValue::Array();
    int64_t peak_held = 0;
    MapOutput output;
    const int64_t baseline_rss = RssSampler::CurrentRss();
    // 5 ms: fine enough to see each spill, coarse enough to cost nothing.
    RssSampler sampler(std::chrono::milliseconds(5));
    const auto start = std::chrono::steady_clock::now();
    SLUICE_ASSIGN_OR_RAISE(
        Measurement run, Measure([&]() -> Status {
          SLUICE_ASSIGN_OR_RAISE(auto writer, MapWriter::Make(options));
          for (int64_t done = 0; done < options_.rows; done += kBatchRows) {
            RecordBatch batch = generator.Next(std::min(kBatchRows, options_.rows - done));
            SLUICE_RETURN_NOT_OK(writer->Write(batch));
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            peak_held = std::max(peak_held, writer->held_bytes());
            held.Append(JsonValue::Array().Append(seconds).Append(writer->held_bytes()));
          }
          SLUICE_ASSIGN_OR_RAISE(output, writer->Finish());
          return Status::OK();
        }));
    sampler.Stop();
    fs::remove_all(directory, error);
    int64_t peak = 0;
    JsonValue samples = JsonValue::Array();
    for (const RssSampler::Sample& sample : sampler.samples()) {
      peak = std::max(peak, sample.rss_bytes);
      samples.Append(JsonValue::Array().Append(sample.seconds).Append(sample.rss_bytes));
    }
    const MapWriterMetrics& metrics = output.metrics;
    const double budget = static_cast<double>(options_.small_budget_bytes);
    entries_.Add(name, {run}, static_cast<double>(input_bytes_), static_cast<double>(options_.rows),
                 BaseCounters()
                     .Set("codec", "lz4")
                     .Set("budget_bytes", options_.small_budget_bytes)
                     .Set("spills", metrics.spills)
                     .Set("peak_reserved_bytes", metrics.peak_reserved_bytes)
                     .Set("peak_rss_above_start_bytes", peak - baseline_rss)
                     .Set("peak_rss_above_start_vs_budget",
                          static_cast<double>(peak - baseline_rss) / budget)
                     .Set("peak_held_vs_budget", static_cast<double>(peak_held) / budget));
    memory_timelines_.Append(JsonValue::Object()
                                 .Set("name", name)
                                 .Set("budget_bytes", options_.small_budget_bytes)
                                 .Set("baseline_rss_bytes", baseline_rss)
                                 .Set("peak_reserved_bytes", metrics.peak_reserved_bytes)
                                 .Set("spills", metrics.spills)
                                 .Set("samples", std::move(samples))
                                 .Set("held", std::move(held)));
    return Status::OK();
  }

  const EndToEndOptions& options_;
  std::function<void(const std::string&)> on_step_;
  EntryWriter entries_;
  std::vector<RecordBatch> batches_;
  std::vector<BufferView> buffers_;
  int64_t input_bytes_ = 0;
  int64_t ipc_bytes_ = 0;
  std::map<CompressionCodec, std::vector<CompressedBuffer>> compressed_;
  JsonValue memory_timelines_ = JsonValue::Array();
};

}  // namespace

Result<EndToEndResult> RunEndToEndSuite(const EndToEndOptions& options,
                                        const std::function<void(const std::string&)>& on_step) {
  return Suite(options, on_step).Run();
}

}  // namespace sluice::cli
