// sluice read: reads a partition, or a range of partitions, from the map outputs of a shuffle.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

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

// What the command line asks for.
struct ReadRequest {
  std::string directory;
  std::string partition_text;  // as given, for errors
  int64_t first = 0;
  int64_t last = 0;
  int64_t shuffle_id = 0;
  std::vector<int64_t> map_ids;
  int64_t head = -1;        // rows to print, or -1
  std::string output_path;  // empty: no output stream
  bool json = false;
  std::optional<std::string> schema_path;
};

// The partitions to read and the map outputs they come from.
struct ReadPlan {
  std::vector<MapOutputFiles> outputs;
  std::vector<PartitionCount> counts;  // one per partition, bytes from the indexes
  int64_t total_bytes = 0;
};

// What the read found, for the report.
struct ReadOutcome {
  PartitionReaderMetrics totals;
  double seconds = 0;
  int64_t total_rows = 0;
};

ArgumentParser MakeParser() {
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
  return parser;
}

Result<ReadRequest> MakeRequest(const ArgumentParser& parser) {
  if (parser.positionals().size() != 1) {
    return Status::Invalid("expected one DIR, got ", parser.positionals().size(), " arguments; ",
                           parser.HelpHint());
  }
  if (!parser.Has("partition")) return Status::Invalid("--partition is required");
  ReadRequest request;
  request.directory = parser.positionals()[0];
  request.partition_text = *parser.Value("partition");
  SLUICE_ASSIGN_OR_RAISE(std::tie(request.first, request.last),
                         ParsePartitionRange(request.partition_text));
  SLUICE_ASSIGN_OR_RAISE(request.shuffle_id, parser.IntegerOr("shuffle-id", 0, 0, INT32_MAX));
  if (parser.Has("map-ids")) {
    SLUICE_ASSIGN_OR_RAISE(request.map_ids,
                           ParseIntegerList("map-ids", *parser.Value("map-ids"), 0, INT32_MAX));
  }
  SLUICE_ASSIGN_OR_RAISE(request.head, parser.IntegerOr("head", -1, 0, INT64_MAX));
  if (parser.Has("head") && parser.Has("output")) {
    return Status::Invalid("--head and --output cannot be used together");
  }
  request.json = parser.Has("json");
  request.output_path = parser.ValueOr("output", "");
  request.schema_path = parser.Value("schema");
  return request;
}

// Finds the map outputs and reads their indexes: the bytes to read (for progress), and a check
// that the range fits every output.
Result<ReadPlan> PlanRead(const ReadRequest& request) {
  ReadPlan plan;
  SLUICE_ASSIGN_OR_RAISE(plan.outputs,
                         FindMapOutputs(request.directory, request.shuffle_id, request.map_ids));
  for (int64_t p = request.first; p <= request.last; ++p) plan.counts.push_back({p, 0, 0, 0});
  for (const MapOutputFiles& files : plan.outputs) {
    SLUICE_ASSIGN_OR_RAISE(std::vector<int64_t> offsets, ReadIndexFile(files.index));
    const int64_t partitions = static_cast<int64_t>(offsets.size()) - 1;
    if (request.last >= partitions) {
      return Status::Invalid("--partition: map output ", files.map_id, " ('", files.data, "') has ",
                             partitions, " partitions (0..", partitions - 1, "), asked for ",
                             request.partition_text);
    }
    for (PartitionCount& count : plan.counts) {
      count.bytes += offsets[count.partition + 1] - offsets[count.partition];
    }
    plan.total_bytes += offsets[request.last + 1] - offsets[request.first];
  }
  return plan;
}

// Where the rows read go: an Arrow IPC stream (--output), a table of the first rows (--head),
// or nowhere (the summary counts them).
class RowSink {
 public:
  explicit RowSink(const ReadRequest& request)
      : output_path_(request.output_path), head_(request.head) {}

  // Takes a batch; returns true once --head has its rows.
  Result<bool> Take(const RecordBatch& rows) {
    if (!output_path_.empty()) {
      if (output_ == nullptr) {
        SLUICE_ASSIGN_OR_RAISE(output_, IpcOutput::Open(output_path_, rows.schema()));
      }
      SLUICE_RETURN_NOT_OK(output_->Write(rows));
    }
    if (head_ < 0) return false;
    if (!head_table_) head_table_.emplace(HeadColumns(*rows.schema()), kHeadCellWidth);
    for (int64_t row = 0; row < rows.num_rows() && head_rows_ < head_; ++row, ++head_rows_) {
      std::vector<std::string> cells;
      for (const ArrayData& column : rows.columns()) cells.push_back(FormatValue(column, row));
      head_table_->AddRow(std::move(cells));
    }
    return head_rows_ >= head_;
  }

  // Ends the output stream; with no rows at all, still a valid stream with `schema` (none only
  // when no map output has a row and no --schema was given).
  Status Finish(const SchemaPtr& schema) {
    if (output_path_.empty()) return Status::OK();
    if (output_ == nullptr) {
      SLUICE_ASSIGN_OR_RAISE(
          output_,
          IpcOutput::Open(output_path_, schema != nullptr ? schema : std::make_shared<Schema>()));
    }
    return output_->Finish();
  }

  // Prints the --head table; false when there is no --head.
  bool PrintHead() {
    if (head_ < 0) return false;
    if (!head_table_) {
      std::cout << "(no rows)\n";
      return true;
    }
    head_table_->Print(std::cout);
    std::cout << "(" << head_rows_ << " row" << (head_rows_ == 1 ? "" : "s") << ")\n";
    return true;
  }

 private:
  static std::vector<TablePrinter::Column> HeadColumns(const Schema& schema) {
    std::vector<TablePrinter::Column> columns;
    for (const Field& field : schema.fields()) {
      columns.push_back({field.name, IsNumeric(field.type->id()) ? TablePrinter::Align::kRight
                                                                 : TablePrinter::Align::kLeft});
    }
    return columns;
  }

  const std::string output_path_;
  const int64_t head_;
  std::unique_ptr<IpcOutput> output_;
  std::optional<TablePrinter> head_table_;
  int64_t head_rows_ = 0;
};

void AddMetrics(const PartitionReaderMetrics& metrics, PartitionReaderMetrics* totals) {
  totals->bytes_read += metrics.bytes_read;
  totals->file_reads += metrics.file_reads;
  totals->segments += metrics.segments;
  totals->blocks += metrics.blocks;
  totals->batches += metrics.batches;
  totals->rows += metrics.rows;
  totals->decompressed_bytes += metrics.decompressed_bytes;
  totals->decompress_nanos += metrics.decompress_nanos;
  totals->checksum_nanos += metrics.checksum_nanos;
}

// The readers of partition `partition`: one source per map output.
std::vector<SegmentSource> PartitionSources(const ReadPlan& plan, int64_t partition) {
  std::vector<SegmentSource> sources;
  for (const MapOutputFiles& files : plan.outputs) {
    MapOutputFile source =
        MapOutputFile::Spark(files.data, static_cast<int32_t>(partition),
                             static_cast<int32_t>(partition + 1), files.checksum_algorithm);
    source.name = "map output " + std::to_string(files.map_id) + " (" + files.data + ")";
    sources.push_back(std::move(source));
  }
  return sources;
}

// Reads the planned partitions in order into `sink`, counting rows and batches in `plan`.
Result<ReadOutcome> ReadPartitions(PartitionReaderOptions reader_options, ReadPlan* plan,
                                   RowSink* sink) {
  const auto start = std::chrono::steady_clock::now();
  ReadOutcome outcome;
  SchemaPtr schema;
  int64_t bytes_done = 0;
  ProgressBar progress("read", plan->total_bytes, "bytes");
  bool head_full = false;
  for (PartitionCount& count : plan->counts) {
    if (head_full) break;
    SLUICE_ASSIGN_OR_RAISE(
        std::unique_ptr<PartitionReader> reader,
        PartitionReader::Open(PartitionSources(*plan, count.partition), reader_options));
    // Empty partitions too have the map outputs' schema (or the one given).
    if (schema == nullptr || schema->num_fields() == 0) {
      schema = reader->schema();
      // The next partitions' readers are given it, as a reduce task is given the shuffle's
      // schema: a compact segment's Schema message then comes from it, not from another read of
      // each map output's first segment (a segment with another schema is still refused).
      if (reader_options.schema == nullptr && schema != nullptr && schema->num_fields() > 0) {
        reader_options.schema = schema;
      }
    }
    while (!head_full) {
      SLUICE_RETURN_NOT_OK(CheckInterrupted());
      SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, reader->Next());
      if (!batch.has_value()) break;
      count.rows += batch->num_rows();
      count.batches += 1;
      SLUICE_ASSIGN_OR_RAISE(head_full, sink->Take(*batch));
      progress.Update(bytes_done + reader->metrics().bytes_read);
    }
    AddMetrics(reader->metrics(), &outcome.totals);
    bytes_done += count.bytes;
    progress.Update(bytes_done);
  }
  SLUICE_RETURN_NOT_OK(sink->Finish(schema));
  progress.Finish();
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const PartitionCount& count : plan->counts) outcome.total_rows += count.rows;
  return outcome;
}

bool AllChecksummed(const ReadPlan& plan) {
  return std::all_of(plan.outputs.begin(), plan.outputs.end(),
                     [](const MapOutputFiles& files) { return !files.checksum.empty(); });
}

void PrintJson(const ReadRequest& request, const ReadPlan& plan, const ReadOutcome& outcome,
               std::ostream& out) {
  const PartitionReaderMetrics& totals = outcome.totals;
  JsonValue json = JsonValue::Object();
  json.Set("directory", request.directory);
  json.Set("shuffle_id", request.shuffle_id);
  JsonValue ids = JsonValue::Array();
  for (const MapOutputFiles& files : plan.outputs) ids.Append(files.map_id);
  json.Set("map_ids", std::move(ids));
  json.Set("first_partition", request.first);
  json.Set("last_partition", request.last);
  json.Set("rows", outcome.total_rows);
  json.Set("bytes", plan.total_bytes);
  json.Set("seconds", outcome.seconds);
  json.Set("checksums_verified", AllChecksummed(plan));
  if (!request.output_path.empty()) json.Set("output", request.output_path);
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
  for (const PartitionCount& count : plan.counts) {
    partitions.Append(JsonValue::Object()
                          .Set("partition", count.partition)
                          .Set("rows", count.rows)
                          .Set("batches", count.batches)
                          .Set("bytes", count.bytes));
  }
  json.Set("partitions", std::move(partitions));
  out << json.Dump(2) << "\n";
}

// The table of partitions read (when the rows went nowhere) and the summary line.
void PrintSummary(const ReadRequest& request, const ReadPlan& plan, const ReadOutcome& outcome,
                  std::ostream& out) {
  if (request.output_path.empty()) {
    TablePrinter table({{"partition", TablePrinter::Align::kRight},
                        {"rows", TablePrinter::Align::kRight},
                        {"batches", TablePrinter::Align::kRight},
                        {"bytes", TablePrinter::Align::kRight}});
    for (const PartitionCount& count : plan.counts) {
      table.AddRow({std::to_string(count.partition), TablePrinter::FormatInteger(count.rows),
                    TablePrinter::FormatInteger(count.batches),
                    TablePrinter::FormatInteger(count.bytes)});
    }
    table.AddRule();
    table.AddRow({"total", TablePrinter::FormatInteger(outcome.total_rows),
                  TablePrinter::FormatInteger(outcome.totals.batches),
                  TablePrinter::FormatInteger(plan.total_bytes)});
    table.Print(out);
    out << "\n";
  }
  char rate[64];
  std::snprintf(rate, sizeof(rate), "%.2f s", outcome.seconds);
  const std::string& output_path = request.output_path;
  out << "read " << TablePrinter::FormatInteger(outcome.total_rows) << " rows of partition"
      << (plan.counts.size() == 1
              ? " " + std::to_string(request.first)
              : "s " + std::to_string(request.first) + "-" + std::to_string(request.last))
      << " from " << plan.outputs.size() << " map output" << (plan.outputs.size() == 1 ? "" : "s")
      << " (" << FormatByteSize(plan.total_bytes) << ", " << outcome.totals.blocks << " blocks"
      << (AllChecksummed(plan) ? ", checksums verified" : ", no checksum files") << ") in " << rate
      << (output_path.empty() ? std::string()
                              : " to " + (output_path == "-" ? std::string("stdout") : output_path))
      << "\n";
}

}  // namespace

int RunReadCommand(std::span<const std::string> arguments) {
  ArgumentParser parser = MakeParser();
  Status parsed = parser.Parse(arguments);
  if (!parsed.ok()) return Usage(parsed);
  if (parser.help_requested()) {
    std::cout << parser.HelpText();
    return kExitSuccess;
  }
  Result<ReadRequest> request = MakeRequest(parser);
  if (!request.ok()) return Usage(request.status());

  PartitionReaderOptions reader_options;
  if (request->schema_path.has_value()) {
    SchemaPtr given;
    Result<std::vector<RecordBatch>> read = ReadAllBatches(*request->schema_path, &given);
    if (!read.ok()) return ReportError(kCommand, read.status().WithContext("--schema"));
    reader_options.schema = std::move(given);
  }
  Result<ReadPlan> plan = PlanRead(*request);
  if (!plan.ok()) return ReportError(kCommand, plan.status());
  RowSink sink(*request);
  Result<ReadOutcome> outcome = ReadPartitions(std::move(reader_options), &*plan, &sink);
  if (!outcome.ok()) return ReportError(kCommand, outcome.status());

  if (sink.PrintHead()) return kExitSuccess;
  // With the rows on stdout, the summary goes to stderr.
  std::ostream& out = request->output_path == "-" ? std::cerr : std::cout;
  if (request->json) {
    PrintJson(*request, *plan, *outcome, out);
  } else {
    PrintSummary(*request, *plan, *outcome, out);
  }
  return kExitSuccess;
}

}  // namespace sluice::cli
