// sluice read: reads a partition, or a range of partitions, from the map outputs of a shuffle.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "argument_parser.h"
#include "commands.h"
#include "exit_status.h"
#include "interruption.h"
#include "ipc_input.h"
#include "ipc_output.h"
#include "json_value.h"
#include "map_output_files.h"
#include "progress_bar.h"
#include "sluice/base/byte_size.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/read/partition_reader.h"
#include "table_printer.h"
#include "value_formatter.h"

namespace sluice::cli {

namespace {

constexpr const char* kCommand = "read";
// --head shows cells of at most this many characters, so a row fits a terminal line or two.
constexpr size_t kHeadCellWidth = 32;

int Usage(const Status& status) {
  return ReportError(kCommand, status, kExitUsage);
}

// Parses "P" or "P-Q" (inclusive).
Result<std::pair<int64_t, int64_t>> ParsePartitionRange(const std::string& text) {
  constexpr int64_t kMaxPartition = (int64_t{1} << 24) - 1;  // the writer's partition limit
  const size_t dash = text.find('-');
  if (dash == std::string::npos) {
    SLUICE_ASSIGN_OR_RAISE(int64_t partition,
                           ParseFlagInteger("partition", text, 0, kMaxPartition));
    return std::make_pair(partition, partition);
  }
  SLUICE_ASSIGN_OR_RAISE(int64_t first,
                         ParseFlagInteger("partition", text.substr(0, dash), 0, kMaxPartition));
  SLUICE_ASSIGN_OR_RAISE(int64_t last,
                         ParseFlagInteger("partition", text.substr(dash + 1), 0, kMaxPartition));
  if (last < first) {
    return Status::Invalid("--partition: range '", text, "' ends before it starts");
  }
  return std::make_pair(first, last);
}

// Numbers are right-aligned in --head tables.
bool IsNumeric(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDuration:
      return true;
    default:
      return IsDecimal(id);
  }
}

struct PartitionCount {
  int64_t partition = 0;
  int64_t rows = 0;
  int64_t batches = 0;
  int64_t bytes = 0;  // in the data files, all map outputs
};

}  // namespace

int RunReadCommand(std::span<const std::string> arguments) {
  ArgumentParser parser(
      "sluice read", "DIR --partition P[-Q] [options]",
      "Reads partition P, or partitions P to Q (inclusive), from the map outputs of a shuffle in\n"
      "DIR (every shuffle_S_<map>_0.data there, or those given by --map-ids) through the\n"
      "reduce-side PartitionReader: index resolution, checksum verification when a\n"
      ".checksum.<ALGO> file is there, decoding and coalescing. Rows come partition by\n"
      "partition, and within a partition map output by map output. Without --output or\n"
      "--head it prints the rows and batches of each partition.",
      {"sluice read out --partition 7 --head 10", "sluice read out --partition 0-199 --json",
       "sluice read out --map-ids 0,1 --partition 3-5 --output part3-5.arrow",
       "sluice read out --partition 7 --output - | python3 -c \"import pyarrow as pa, sys; "
       "print(pa.ipc.open_stream(sys.stdin.buffer).read_all().num_rows)\""});
  parser.AddPositional("DIR", "the directory holding the map outputs");
  parser.AddOption("partition", "P[-Q]", "the partition, or an inclusive range (required)");
  parser.AddOption("shuffle-id", "S", "the shuffle id in the file names (default 0)");
  parser.AddOption("map-ids", "M,M,...", "the map outputs to read (default: all found in DIR)");
  parser.AddOption("output", "FILE", "write the rows as an Arrow IPC stream, '-' for stdout");
  parser.AddOption("head", "N", "print the first N rows as a table");
  parser.AddOption("schema", "FILE.arrow",
                   "the schema to return when no map output has a row (an Arrow file or stream "
                   "whose schema it is; by default the map outputs' own)");
  parser.AddFlag("json", "print the summary as JSON");
  Status parsed = parser.Parse(arguments);
  if (!parsed.ok()) return Usage(parsed);
  if (parser.help_requested()) {
    std::cout << parser.HelpText();
    return kExitSuccess;
  }
  if (parser.positionals().size() != 1) {
    return Usage(Status::Invalid("expected one DIR, got ", parser.positionals().size(),
                                 " arguments; ", parser.HelpHint()));
  }
  if (!parser.Has("partition")) return Usage(Status::Invalid("--partition is required"));
  Result<std::pair<int64_t, int64_t>> range = ParsePartitionRange(*parser.Value("partition"));
  if (!range.ok()) return Usage(range.status());
  Result<int64_t> shuffle_id = parser.IntegerOr("shuffle-id", 0, 0, INT32_MAX);
  if (!shuffle_id.ok()) return Usage(shuffle_id.status());
  std::vector<int64_t> map_ids;
  if (parser.Has("map-ids")) {
    Result<std::vector<int64_t>> ids =
        ParseIntegerList("map-ids", *parser.Value("map-ids"), 0, INT32_MAX);
    if (!ids.ok()) return Usage(ids.status());
    map_ids = std::move(*ids);
  }
  Result<int64_t> head = parser.IntegerOr("head", -1, 0, INT64_MAX);
  if (!head.ok()) return Usage(head.status());
  if (parser.Has("head") && parser.Has("output")) {
    return Usage(Status::Invalid("--head and --output cannot be used together"));
  }
  const bool json_output = parser.Has("json");
  const std::string output_path = parser.ValueOr("output", "");
  PartitionReaderOptions reader_options;
  if (parser.Has("schema")) {
    SchemaPtr given;
    Result<std::vector<RecordBatch>> read = ReadAllBatches(*parser.Value("schema"), &given);
    if (!read.ok()) return ReportError(kCommand, read.status().WithContext("--schema"));
    reader_options.schema = std::move(given);
  }

  Result<std::vector<MapOutputFiles>> outputs =
      FindMapOutputs(parser.positionals()[0], *shuffle_id, map_ids);
  if (!outputs.ok()) return ReportError(kCommand, outputs.status());

  // The indexes give the bytes to read (for progress) and check the range fits every output.
  int64_t total_bytes = 0;
  std::vector<PartitionCount> counts;
  for (int64_t p = range->first; p <= range->second; ++p) counts.push_back({p, 0, 0, 0});
  for (const MapOutputFiles& files : *outputs) {
    Result<std::vector<int64_t>> offsets = ReadIndexFile(files.index);
    if (!offsets.ok()) return ReportError(kCommand, offsets.status());
    const int64_t partitions = static_cast<int64_t>(offsets->size()) - 1;
    if (range->second >= partitions) {
      return ReportError(
          kCommand, Status::Invalid("--partition: map output ", files.map_id, " ('", files.data,
                                    "') has ", partitions, " partitions (0..", partitions - 1,
                                    "), asked for ", *parser.Value("partition")));
    }
    for (PartitionCount& count : counts) {
      count.bytes += (*offsets)[count.partition + 1] - (*offsets)[count.partition];
    }
    total_bytes += (*offsets)[range->second + 1] - (*offsets)[range->first];
  }

  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<IpcOutput> output;
  SchemaPtr schema;
  std::optional<TablePrinter> head_table;
  std::vector<std::string> head_columns;
  int64_t head_rows = 0;
  PartitionReaderMetrics totals;
  int64_t bytes_done = 0;
  ProgressBar progress("read", total_bytes, "bytes");
  bool head_full = false;
  for (PartitionCount& count : counts) {
    if (head_full) break;
    std::vector<SegmentSource> sources;
    for (const MapOutputFiles& files : *outputs) {
      MapOutputFile source =
          MapOutputFile::Spark(files.data, static_cast<int32_t>(count.partition),
                               static_cast<int32_t>(count.partition + 1), files.checksum_algorithm);
      source.name = "map output " + std::to_string(files.map_id) + " (" + files.data + ")";
      sources.push_back(std::move(source));
    }
    Result<std::unique_ptr<PartitionReader>> reader =
        PartitionReader::Open(std::move(sources), reader_options);
    if (!reader.ok()) return ReportError(kCommand, reader.status());
    // Empty partitions too have the map outputs' schema (or the one given).
    if (schema == nullptr || schema->num_fields() == 0) {
      schema = (*reader)->schema();
      // The next partitions' readers are given it, as a reduce task is given the shuffle's
      // schema: a compact segment's Schema message then comes from it, not from another read of
      // each map output's first segment (a segment with another schema is still refused).
      if (reader_options.schema == nullptr && schema != nullptr && schema->num_fields() > 0) {
        reader_options.schema = schema;
      }
    }
    while (true) {
      if (Status interrupted = CheckInterrupted(); !interrupted.ok()) {
        return ReportError(kCommand, interrupted);
      }
      Result<std::optional<RecordBatch>> batch = (*reader)->Next();
      if (!batch.ok()) return ReportError(kCommand, batch.status());
      if (!batch->has_value()) break;
      const RecordBatch& rows = **batch;
      count.rows += rows.num_rows();
      count.batches += 1;
      if (!output_path.empty()) {
        if (output == nullptr) {
          Result<std::unique_ptr<IpcOutput>> opened = IpcOutput::Open(output_path, rows.schema());
          if (!opened.ok()) return ReportError(kCommand, opened.status());
          output = std::move(*opened);
        }
        Status written = output->Write(rows);
        if (!written.ok()) return ReportError(kCommand, written);
      }
      if (*head >= 0 && !head_full) {
        if (!head_table) {
          std::vector<TablePrinter::Column> columns;
          for (const Field& field : rows.schema()->fields()) {
            columns.push_back({field.name, IsNumeric(field.type->id())
                                               ? TablePrinter::Align::kRight
                                               : TablePrinter::Align::kLeft});
          }
          head_table.emplace(std::move(columns), kHeadCellWidth);
        }
        for (int64_t row = 0; row < rows.num_rows() && head_rows < *head; ++row, ++head_rows) {
          std::vector<std::string> cells;
          for (const ArrayData& column : rows.columns()) cells.push_back(FormatValue(column, row));
          head_table->AddRow(std::move(cells));
        }
        head_full = head_rows >= *head;
        if (head_full) break;
      }
      progress.Update(bytes_done + (*reader)->metrics().bytes_read);
    }
    const PartitionReaderMetrics metrics = (*reader)->metrics();
    totals.bytes_read += metrics.bytes_read;
    totals.file_reads += metrics.file_reads;
    totals.segments += metrics.segments;
    totals.blocks += metrics.blocks;
    totals.batches += metrics.batches;
    totals.rows += metrics.rows;
    totals.decompressed_bytes += metrics.decompressed_bytes;
    totals.decompress_nanos += metrics.decompress_nanos;
    totals.checksum_nanos += metrics.checksum_nanos;
    bytes_done += count.bytes;
    progress.Update(bytes_done);
  }
  if (!output_path.empty()) {
    if (output == nullptr) {
      // No rows at all: still a valid stream, with the map outputs' schema (none only when no
      // map output has a row and no --schema was given).
      Result<std::unique_ptr<IpcOutput>> opened =
          IpcOutput::Open(output_path, schema != nullptr ? schema : std::make_shared<Schema>());
      if (!opened.ok()) return ReportError(kCommand, opened.status());
      output = std::move(*opened);
    }
    Status finished = output->Finish();
    if (!finished.ok()) return ReportError(kCommand, finished);
  }
  progress.Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int64_t total_rows = 0;
  for (const PartitionCount& count : counts) total_rows += count.rows;
  // With the rows on stdout, the summary goes to stderr.
  std::ostream& summary = output_path == "-" ? std::cerr : std::cout;
  if (head_table) {
    head_table->Print(std::cout);
    std::cout << "(" << head_rows << " row" << (head_rows == 1 ? "" : "s") << ")\n";
    return kExitSuccess;
  }
  if (*head >= 0) {
    std::cout << "(no rows)\n";
    return kExitSuccess;
  }
  if (json_output) {
    JsonValue json = JsonValue::Object();
    json.Set("directory", parser.positionals()[0]);
    json.Set("shuffle_id", *shuffle_id);
    JsonValue ids = JsonValue::Array();
    for (const MapOutputFiles& files : *outputs) ids.Append(files.map_id);
    json.Set("map_ids", std::move(ids));
    json.Set("first_partition", range->first);
    json.Set("last_partition", range->second);
    json.Set("rows", total_rows);
    json.Set("bytes", total_bytes);
    json.Set("seconds", seconds);
    json.Set("checksums_verified",
             std::all_of(outputs->begin(), outputs->end(),
                         [](const MapOutputFiles& files) { return !files.checksum.empty(); }));
    if (!output_path.empty()) json.Set("output", output_path);
    json.Set("metrics", JsonValue::Object()
                            .Set("bytes_read", totals.bytes_read)
                            .Set("file_reads", totals.file_reads)
                            .Set("segments", totals.segments)
                            .Set("blocks", totals.blocks)
                            .Set("batches", totals.batches)
                            .Set("decompressed_bytes", totals.decompressed_bytes)
                            .Set("decompress_nanos", totals.decompress_nanos)
                            .Set("checksum_nanos", totals.checksum_nanos));
    JsonValue partitions = JsonValue::Array();
    for (const PartitionCount& count : counts) {
      partitions.Append(JsonValue::Object()
                            .Set("partition", count.partition)
                            .Set("rows", count.rows)
                            .Set("batches", count.batches)
                            .Set("bytes", count.bytes));
    }
    json.Set("partitions", std::move(partitions));
    summary << json.Dump(2) << "\n";
    return kExitSuccess;
  }
  if (output_path.empty()) {
    TablePrinter table({{"partition", TablePrinter::Align::kRight},
                        {"rows", TablePrinter::Align::kRight},
                        {"batches", TablePrinter::Align::kRight},
                        {"bytes", TablePrinter::Align::kRight}});
    for (const PartitionCount& count : counts) {
      table.AddRow({std::to_string(count.partition), TablePrinter::FormatInteger(count.rows),
                    TablePrinter::FormatInteger(count.batches),
                    TablePrinter::FormatInteger(count.bytes)});
    }
    table.AddRule();
    table.AddRow({"total", TablePrinter::FormatInteger(total_rows),
                  TablePrinter::FormatInteger(totals.batches),
                  TablePrinter::FormatInteger(total_bytes)});
    table.Print(summary);
    summary << "\n";
  }
  const bool all_checked =
      std::all_of(outputs->begin(), outputs->end(),
                  [](const MapOutputFiles& files) { return !files.checksum.empty(); });
  char rate[64];
  std::snprintf(rate, sizeof(rate), "%.2f s", seconds);
  summary << "read " << TablePrinter::FormatInteger(total_rows) << " rows of partition"
          << (counts.size() == 1
                  ? " " + std::to_string(range->first)
                  : "s " + std::to_string(range->first) + "-" + std::to_string(range->second))
          << " from " << outputs->size() << " map output" << (outputs->size() == 1 ? "" : "s")
          << " (" << FormatByteSize(total_bytes) << ", " << totals.blocks << " blocks"
          << (all_checked ? ", checksums verified" : ", no checksum files") << ") in " << rate
          << (output_path.empty()
                  ? std::string()
                  : " to " + (output_path == "-" ? std::string("stdout") : output_path))
          << "\n";
  return kExitSuccess;
}

}  // namespace sluice::cli
