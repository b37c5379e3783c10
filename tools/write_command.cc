// sluice write: shuffles an Arrow IPC input into one map output in Spark's layout.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "argument_parser.h"
#include "commands.h"
#include "exit_status.h"
#include "interruption.h"
#include "ipc_input.h"
#include "json_value.h"
#include "progress_bar.h"
#include "sluice/base/byte_size.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/ipc/batch_concatenator.h"
#include "sluice/write/map_writer.h"
#include "sluice/write/map_writer_metrics_json.h"
#include "sluice/write/map_writer_settings.h"
#include "table_printer.h"

namespace sluice::cli {

namespace {

constexpr const char* kCommand = "write";

// Applies one writer setting given as flag --`flag`; errors name the flag.
Status ApplySetting(MapWriterOptions* options, const std::string& flag, const std::string& key,
                    const std::string& value) {
  Status status = ApplyMapWriterSetting(options, key, value);
  if (status.ok()) return status;
  std::string message = status.message();
  const std::string prefix = "setting '" + key + "': ";
  if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
  return Status::Invalid("--", flag, ": ", message);
}

// Reads the range bounds file as one batch.
Result<RecordBatch> ReadBounds(const std::string& path) {
  SchemaPtr schema;
  Result<std::vector<RecordBatch>> batches = ReadAllBatches(path, &schema);
  if (!batches.ok()) return batches.status().WithContext("--bounds");
  if (schema->num_fields() == 0) {
    return Status::Invalid("--bounds: '", path, "' has no columns; expected one per range key");
  }
  if (batches->size() == 1) return std::move((*batches)[0]);
  SLUICE_ASSIGN_OR_RAISE(auto concatenator, BatchConcatenator::Make(schema));
  std::vector<const RecordBatch*> pointers;
  for (const RecordBatch& batch : *batches) pointers.push_back(&batch);
  if (pointers.empty()) {
    return RecordBatch(schema, 0, {}, {});
  }
  return concatenator->Concatenate(pointers);
}

std::string Seconds(int64_t nanos) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f s", static_cast<double>(nanos) / 1e9);
  return text;
}

std::string Share(int64_t part, int64_t total) {
  char text[16];
  std::snprintf(text, sizeof(text), "%.0f%%",
                total > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(total) : 0.0);
  return text;
}

// What the command line asks for, checked before any input is read.
struct WriteRequest {
  std::string input;
  std::string directory;
  int64_t shuffle_id = 0;
  int64_t map_id = 0;
  bool json = false;
  MapWriterOptions options;  // all but what depends on the input's schema
  std::optional<std::string> keys;
  std::optional<std::string> bounds_path;
  bool partitions_given = false;
};

// What the write did, for the report.
struct WriteOutcome {
  MapOutput output;
  int64_t wall_nanos = 0;
  int64_t read_nanos = 0;
};

int Usage(const Status& status) {
  return ReportError(kCommand, status, kExitUsage);
}

ArgumentParser MakeParser() {
  ArgumentParser parser(
      "sluice write", "INPUT.arrow --output-dir DIR --partitions N [options]",
      "Shuffles an Arrow IPC stream or file (INPUT, or '-' for stdin) into one map output in\n"
      "Spark's layout: DIR/shuffle_S_M_0.data, .index and .checksum.<ALGO>. Prints what it did:\n"
      "rows, bytes in and out, compression ratio, spills, and where the time went. Columns are\n"
      "named as in the schema or as c<index>. Every option maps to the writer setting of the\n"
      "same name (the C API and the Spark plugin take the same settings).",
      {"sluice write lineitem.arrow --output-dir out --partitions 200 --keys l_orderkey "
       "--codec lz4",
       "sluice write in.arrow --output-dir out --partitions 64 --keys c0,c3 --codec zstd:3 "
       "--memory-budget 64MiB --map-id 3 --json",
       "sluice write in.arrow --output-dir out --partitioning range --keys l_shipdate "
       "--bounds bounds.arrow",
       "sluice generate mixed --rows 1000 --output - | sluice write - --output-dir out "
       "--partitioning round-robin --partitions 8"});
  parser.AddPositional("INPUT", "Arrow IPC stream or file; '-' reads a stream from stdin");
  parser.AddOption("output-dir", "DIR", "directory of the map output (created if missing)");
  parser.AddOption("partitions", "N", "number of partitions (range: bounds + 1, the default)");
  parser.AddOption("partitioning", "KIND", "hash (default), range, round-robin or single");
  parser.AddOption("keys", "COLUMNS", "key columns, comma-separated (hash: one or more)");
  parser.AddOption("bounds", "FILE.arrow", "range bounds: one column per key, sorted rows");
  parser.AddOption("sort-order", "ORDERS",
                   "range key orders, comma-separated: asc, desc, 'asc nulls last'...");
  parser.AddOption("codec", "CODEC", "none (default), lz4, zstd or zstd:LEVEL");
  parser.AddOption("memory-budget", "SIZE", "memory for buffered input before spilling (256MiB)");
  parser.AddOption("checksum", "ALGO", "adler32 (default), crc32, crc32c or none");
  parser.AddOption("compression-threads", "N",
                   "0 (default) or 1: compress on a second thread while gathering (uses a "
                   "second core)");
  parser.AddOption("shuffle-id", "S", "shuffle id in the file names (default 0)");
  parser.AddOption("map-id", "M", "map id in the file names; seeds round-robin (default 0)");
  parser.AddOption("set", "KEY=VALUE",
                   "any other writer setting: block-rows, block-bytes, max-held-bytes, "
                   "compact-segment-bytes, spill-dirs, sync, round-robin-mode, flush-bytes",
                   /*repeatable=*/true);
  parser.AddFlag("overwrite", "replace an existing map output");
  parser.AddFlag("json", "print the summary as JSON");
  return parser;
}

// Applies the settings of the command's own flags that need no input.
Status ApplyFlagSettings(const ArgumentParser& parser, MapWriterOptions* options) {
  for (const char* flag : {"partitioning", "codec", "memory-budget", "checksum",
                           "compression-threads", "partitions"}) {
    if (const auto value = parser.Value(flag)) {
      SLUICE_RETURN_NOT_OK(ApplySetting(options, flag, flag, *value));
    }
  }
  for (const std::string& setting : parser.Values("set")) {
    const size_t equals = setting.find('=');
    if (equals == std::string::npos) {
      return Status::Invalid("--set: '", setting, "' is not KEY=VALUE");
    }
    const std::string key = setting.substr(0, equals);
    if (key == "data-path" || key == "index-path" || key == "checksum-path" ||
        key == "spark-files" || key == "keys" || key == "partitions") {
      return Status::Invalid("--set: '", key, "' is set by the command's own flags");
    }
    SLUICE_RETURN_NOT_OK(ApplySetting(options, "set", key, setting.substr(equals + 1)));
  }
  if (parser.Has("sort-order")) {
    Status orders = ApplyMapWriterSetting(options, "sort-orders", *parser.Value("sort-order"));
    if (!orders.ok()) return Status::Invalid("--sort-order: ", orders.message());
  }
  return Status::OK();
}

// Checks that the flags fit the partitioning they ask for.
Status CheckPartitioningFlags(const ArgumentParser& parser, PartitionKind kind) {
  const std::string kind_name = parser.ValueOr("partitioning", "hash");
  if (kind == PartitionKind::kGiven) {
    return Status::Invalid(
        "--partitioning: 'given' needs ids from a host; use hash, range, round-robin or single");
  }
  if (!parser.Has("partitions") && kind != PartitionKind::kRange &&
      kind != PartitionKind::kSingle) {
    return Status::Invalid("--partitions is required for ", kind_name, " partitioning");
  }
  if (kind == PartitionKind::kHash && !parser.Has("keys")) {
    return Status::Invalid("--keys is required for hash partitioning (e.g. --keys c0)");
  }
  if (kind == PartitionKind::kRange && !parser.Has("bounds")) {
    return Status::Invalid("--bounds is required for range partitioning");
  }
  if (kind != PartitionKind::kRange && (parser.Has("bounds") || parser.Has("sort-order"))) {
    return Status::Invalid("--bounds and --sort-order apply to range partitioning only");
  }
  return Status::OK();
}

// The request the parsed command line makes; the settings that need no input are checked
// here, so a typo fails before any reading.
Result<WriteRequest> MakeRequest(const ArgumentParser& parser) {
  if (parser.positionals().size() != 1) {
    return Status::Invalid("expected one INPUT (a file or '-'), got ", parser.positionals().size(),
                           " arguments; ", parser.HelpHint());
  }
  if (!parser.Has("output-dir")) return Status::Invalid("--output-dir is required");
  WriteRequest request;
  request.input = parser.positionals()[0];
  request.directory = *parser.Value("output-dir");
  request.json = parser.Has("json");
  SLUICE_ASSIGN_OR_RAISE(request.shuffle_id, parser.IntegerOr("shuffle-id", 0, 0, INT32_MAX));
  SLUICE_ASSIGN_OR_RAISE(request.map_id, parser.IntegerOr("map-id", 0, 0, INT32_MAX));
  SLUICE_RETURN_NOT_OK(ApplyFlagSettings(parser, &request.options));
  SLUICE_RETURN_NOT_OK(CheckPartitioningFlags(parser, request.options.partitioning.kind));
  request.keys = parser.Value("keys");
  request.bounds_path = parser.Value("bounds");
  request.partitions_given = parser.Has("partitions");
  request.options.overwrite = parser.Has("overwrite");
  return request;
}

// Completes the options with what depends on the input's `schema` and the range `bounds`:
// the key columns (named by --keys, or for range partitioning by the bounds' columns).
Status ApplyInputSettings(const WriteRequest& request, const SchemaPtr& schema,
                          const RecordBatch& bounds, MapWriterOptions* options) {
  options->schema = schema;
  PartitionerOptions& partitioning = options->partitioning;
  if (request.keys.has_value()) {
    SLUICE_RETURN_NOT_OK(ApplySetting(options, "keys", "keys", *request.keys));
  } else if (partitioning.kind == PartitionKind::kRange) {
    for (const Field& field : bounds.schema()->fields()) {
      Result<int> column = ResolveColumn(*schema, field.name);
      if (!column.ok()) {
        return Status::Invalid("--bounds: column '", field.name,
                               "' is not in the input; name the keys with --keys");
      }
      partitioning.key_columns.push_back(*column);
    }
  }
  if (partitioning.kind == PartitionKind::kRange) {
    partitioning.range_bounds = bounds;
    // Zero means bounds + 1 partitions; a given --partitions must equal that.
    if (!request.partitions_given) partitioning.partition_count = 0;
  }
  partitioning.map_partition_id = static_cast<int32_t>(request.map_id);
  return Status::OK();
}

// Points the options at the map output's files in the request's directory (created if
// missing); refuses to replace an existing output unless asked to.
Status PlaceOutput(const WriteRequest& request, MapWriterOptions* options) {
  std::error_code directory_error;
  std::filesystem::create_directories(request.directory, directory_error);
  if (directory_error) {
    return Status::IOError("cannot create directory '", request.directory,
                           "': ", directory_error.message());
  }
  const SparkShuffleFileNames names =
      SparkShuffleFileNames::For(request.directory, request.shuffle_id, request.map_id);
  options->data_path = names.data;
  options->write_spark_files = true;
  options->count_partition_rows = true;  // the summary's rows per partition
  if (!options->overwrite && std::filesystem::exists(names.data)) {
    return Status::IOError("map output '", names.data,
                           "' already exists (--overwrite replaces it)");
  }
  return Status::OK();
}

// Writes every batch of `input` through a writer made with `options`.
Result<WriteOutcome> Write(const MapWriterOptions& options, IpcInput* input) {
  const auto start = std::chrono::steady_clock::now();
  SLUICE_ASSIGN_OR_RAISE(std::unique_ptr<MapWriter> writer, MapWriter::Make(options));
  ProgressBar progress("write", input->total_rows, "rows");
  WriteOutcome outcome;
  int64_t rows = 0;
  while (true) {
    SLUICE_RETURN_NOT_OK(CheckInterrupted());
    const auto before_read = std::chrono::steady_clock::now();
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, input->reader->Next());
    outcome.read_nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - before_read)
                              .count();
    if (!batch.has_value()) break;
    Status written = writer->Write(*batch);
    if (!written.ok()) return written.WithContext("input '" + input->name + "'");
    rows += batch->num_rows();
    progress.Update(rows);
  }
  SLUICE_ASSIGN_OR_RAISE(outcome.output, writer->Finish());
  progress.Finish();
  outcome.wall_nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  return outcome;
}

// What the report says of the options: the codec as given, and the key columns' names.
std::string CodecText(const MapWriterOptions& options) {
  std::string codec(CompressionCodecName(options.encoding.codec));
  if (options.encoding.codec == CompressionCodec::kZstd) {
    codec += ":" + std::to_string(options.encoding.compression_level);
  }
  return codec;
}

std::vector<std::string> KeyNames(const MapWriterOptions& options) {
  std::vector<std::string> names;
  for (int column : options.partitioning.key_columns) {
    names.push_back(options.schema->field(static_cast<size_t>(column)).name);
  }
  return names;
}

double CompressionRatio(const MapWriterMetrics& metrics) {
  return metrics.output_bytes > 0
             ? static_cast<double>(metrics.input_bytes) / static_cast<double>(metrics.output_bytes)
             : 0.0;
}

void PrintJson(const WriteRequest& request, const MapWriterOptions& options,
               const WriteOutcome& outcome) {
  const MapOutput& output = outcome.output;
  const MapWriterMetrics& metrics = output.metrics;
  JsonValue json = JsonValue::Object();
  json.Set("input", request.input);
  json.Set("data_path", output.data_path);
  json.Set("index_path", output.index_path);
  json.Set("checksum_path", output.checksum_path);
  json.Set("checksum_algorithm", std::string(ChecksumAlgorithmName(output.checksum_algorithm)));
  json.Set("shuffle_id", request.shuffle_id);
  json.Set("map_id", request.map_id);
  json.Set("partitioning", std::string(PartitionKindName(options.partitioning.kind)));
  json.Set("partitions", static_cast<int64_t>(output.lengths.size()));
  JsonValue keys = JsonValue::Array();
  for (const std::string& name : KeyNames(options)) keys.Append(name);
  json.Set("keys", std::move(keys));
  json.Set("codec", CodecText(options));
  json.Set("memory_budget_bytes", options.memory_limit);
  json.Set("rows", metrics.rows);
  json.Set("input_bytes", metrics.input_bytes);
  json.Set("output_bytes", metrics.output_bytes);
  json.Set("compression_ratio", CompressionRatio(metrics));
  json.Set("spills", metrics.spills);
  json.Set("wall_nanos", outcome.wall_nanos);
  json.Set("read_input_nanos", outcome.read_nanos);
  Result<JsonValue> metrics_json =
      JsonValue::Parse(MapWriterMetricsToJson(metrics), "writer metrics");
  if (metrics_json.ok()) json.Set("metrics", std::move(*metrics_json));
  JsonValue rows_json = JsonValue::Array();
  JsonValue bytes_json = JsonValue::Array();
  JsonValue checksums_json = JsonValue::Array();
  for (size_t p = 0; p < output.lengths.size(); ++p) {
    rows_json.Append(output.partition_rows[p]);
    bytes_json.Append(output.lengths[p]);
    if (!output.checksums.empty()) checksums_json.Append(output.checksums[p]);
  }
  json.Set("partition_rows", std::move(rows_json));
  json.Set("partition_bytes", std::move(bytes_json));
  json.Set("partition_checksums", std::move(checksums_json));
  std::cout << json.Dump(2) << "\n";
}

// The summary's first lines: the output, its partitions, rows, bytes, memory and checksums.
void PrintOutputLines(const MapWriterOptions& options, const MapOutput& output) {
  const MapWriterMetrics& metrics = output.metrics;
  int64_t non_empty = 0;
  int64_t min_rows = INT64_MAX;
  int64_t max_rows = 0;
  for (int64_t count : output.partition_rows) {
    non_empty += count > 0;
    min_rows = std::min(min_rows, count);
    max_rows = std::max(max_rows, count);
  }
  const int64_t partitions = static_cast<int64_t>(output.lengths.size());
  std::string keys_text;
  for (const std::string& name : KeyNames(options)) {
    keys_text += (keys_text.empty() ? "" : ",") + name;
  }
  char ratio_text[16];
  std::snprintf(ratio_text, sizeof(ratio_text), "%.2f", CompressionRatio(metrics));
  std::cout << "wrote " << output.data_path << "\n"
            << "  partitioning  " << PartitionKindName(options.partitioning.kind)
            << (keys_text.empty() ? "" : " on " + keys_text) << ", "
            << TablePrinter::FormatInteger(partitions) << " partitions ("
            << TablePrinter::FormatInteger(non_empty) << " non-empty; rows per partition "
            << TablePrinter::FormatInteger(partitions > 0 ? min_rows : 0) << " to "
            << TablePrinter::FormatInteger(max_rows) << ")\n"
            << "  rows          " << TablePrinter::FormatInteger(metrics.rows) << " in "
            << TablePrinter::FormatInteger(metrics.batches) << " batches\n"
            << "  bytes         " << FormatByteSize(metrics.input_bytes) << " in, "
            << FormatByteSize(metrics.output_bytes) << " out (" << CodecText(options) << ", ratio "
            << ratio_text << "x), " << TablePrinter::FormatInteger(metrics.blocks) << " blocks\n"
            << "  memory        budget "
            << (options.memory_limit < 0 ? std::string("unlimited")
                                         : FormatByteSize(options.memory_limit))
            << ", peak reserved " << FormatByteSize(metrics.peak_reserved_bytes)
            << ", per-partition state " << FormatByteSize(metrics.partition_state_bytes) << ", "
            << metrics.spills << " spills (" << FormatByteSize(metrics.spill_bytes) << ")\n"
            << "  checksums     " << ChecksumAlgorithmName(output.checksum_algorithm)
            << (output.checksum_path.empty() ? "" : " in " + output.checksum_path) << "\n";
}

// The summary's table of where the time went.
void PrintTimes(const WriteOutcome& outcome) {
  const MapWriterMetrics& metrics = outcome.output.metrics;
  const int64_t accounted =
      metrics.partition_nanos + metrics.gather_nanos + metrics.compress_nanos + metrics.write_nanos;
  const int64_t other = std::max<int64_t>(0, metrics.total_nanos - accounted);
  TablePrinter times(
      {{"time"}, {"seconds", TablePrinter::Align::kRight}, {"share", TablePrinter::Align::kRight}});
  const auto add = [&](const char* what, int64_t nanos) {
    times.AddRow({what, Seconds(nanos), Share(nanos, metrics.total_nanos)});
  };
  add("partitioning", metrics.partition_nanos);
  add("gathering", metrics.gather_nanos);
  add("compression", metrics.compress_nanos);
  add("writing", metrics.write_nanos);
  add("other (sort, spill merge)", other);
  times.AddRule();
  times.AddRow({"writer total", Seconds(metrics.total_nanos), "100%"});
  times.AddRow({"reading the input", Seconds(outcome.read_nanos), ""});
  times.AddRow({"wall", Seconds(outcome.wall_nanos), ""});
  std::cout << "\n";
  times.Print(std::cout);
}

}  // namespace

int RunWriteCommand(std::span<const std::string> arguments) {
  ArgumentParser parser = MakeParser();
  Status parsed = parser.Parse(arguments);
  if (!parsed.ok()) return Usage(parsed);
  if (parser.help_requested()) {
    std::cout << parser.HelpText();
    return kExitSuccess;
  }
  Result<WriteRequest> request = MakeRequest(parser);
  if (!request.ok()) return Usage(request.status());

  RecordBatch bounds;
  if (request->bounds_path.has_value()) {
    Result<RecordBatch> read = ReadBounds(*request->bounds_path);
    if (!read.ok()) return ReportError(kCommand, read.status());
    bounds = std::move(*read);
  }
  Result<IpcInput> input = OpenIpcInput(request->input);
  if (!input.ok()) return ReportError(kCommand, input.status());
  MapWriterOptions options = request->options;
  Status applied = ApplyInputSettings(*request, input->reader->schema(), bounds, &options);
  if (!applied.ok()) return Usage(applied);
  Status placed = PlaceOutput(*request, &options);
  if (!placed.ok()) return ReportError(kCommand, placed);

  Result<WriteOutcome> outcome = Write(options, &*input);
  if (!outcome.ok()) return ReportError(kCommand, outcome.status());
  if (request->json) {
    PrintJson(*request, options, *outcome);
  } else {
    PrintOutputLines(options, outcome->output);
    PrintTimes(*outcome);
  }
  return kExitSuccess;
}

}  // namespace sluice::cli
