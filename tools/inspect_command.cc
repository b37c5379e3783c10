// sluice inspect: describes one map output, and with --verify checks every byte of it.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <memory>

#include "argument_parser.h"
#include "commands.h"
#include "exit_status.h"
#include "ipc_input.h"
#include "json_value.h"
#include "map_output_files.h"
#include "mapped_file.h"
#include "progress_bar.h"
#include "sluice/base/byte_size.h"
#include "sluice/codec/checksum.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/ipc/segment_layout.h"
#include "table_printer.h"

namespace sluice::cli {

namespace {

constexpr const char* kCommand = "inspect";

// One per partition, so kept small: an index of a million partitions is common.
struct PartitionReport {
  int64_t offset = 0;
  int64_t bytes = 0;
  int64_t rows = 0;
  int64_t blocks = 0;
  uint32_t checksum = 0;
  std::string codecs;  // SegmentLayout::CodecNames of its segment
  bool has_checksum = false;
  bool layout_ok = false;

  // The segment's codecs (see SegmentLayout::CodecNames), "?" when unreadable.
  std::string CodecNames() const { return layout_ok ? codecs : "?"; }
};

std::string Hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08" PRIx32, value);
  return text;
}

std::string PartitionSource(const std::string& data_path, size_t partition) {
  return data_path + " partition " + std::to_string(partition);
}

// Decodes every block of partition `p` and compares its rows with the metadata's count.
Status VerifySegment(SegmentDecoder* decoder, const MappedFile& file, const std::string& data_path,
                     size_t p, const PartitionReport& report, SchemaPtr* first_schema,
                     int64_t* decoded_rows) {
  *decoded_rows = 0;
  if (report.bytes == 0) return Status::OK();
  SLUICE_RETURN_NOT_OK(decoder->Begin(file.data() + report.offset, report.bytes, nullptr,
                                      PartitionSource(data_path, p), report.offset));
  while (true) {
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, decoder->Next());
    if (!batch) break;
    *decoded_rows += batch->num_rows();
  }
  if (*first_schema == nullptr) {
    *first_schema = decoder->schema();
  } else if (!decoder->schema()->Equals(**first_schema)) {
    return Status::Corrupt(PartitionSource(data_path, p), ": byte ", report.offset,
                           ": its schema differs from the first partition's");
  }
  if (report.layout_ok && *decoded_rows != report.rows) {
    return Status::Corrupt(PartitionSource(data_path, p), ": decoded ", *decoded_rows,
                           " rows but the block metadata says ", report.rows);
  }
  return Status::OK();
}

std::string SchemaLine(const Schema& schema) {
  std::string line;
  for (const Field& field : schema.fields()) {
    if (!line.empty()) line += ", ";
    line += field.name + " " + field.type->ToString();
  }
  return line;
}

// What inspecting a map output found.
struct Inspection {
  MapOutputFiles files;
  std::shared_ptr<const MappedFile> file;
  std::vector<int64_t> offsets;  // the index
  std::vector<uint32_t> stored_checksums;
  // The dictionaries compact segments are compressed against: the Schema message, the data
  // file's first or the one of the schema given with --schema; and with --schema, its
  // given-schema dictionary (a writer whose readers have the schema stores neither).
  SchemaPtr given_schema;
  std::vector<uint8_t> schema_message;
  std::vector<uint8_t> given_dictionary;
  CompactSegmentDictionary given_dictionary_id;
  std::vector<PartitionReport> reports;
  std::vector<std::string> problems;  // each names the file, partition and byte offset
  SchemaPtr schema;
  int64_t total_rows = 0;
  int64_t total_blocks = 0;
  // With --verify:
  bool verified = false;
  int64_t decoded_rows = 0;
  int64_t checksums_matched = 0;

  size_t partitions() const { return reports.size(); }

  // The dictionary the segment at `data[0..size)` names, of those known (else the Schema
  // message, which the layout reader reports as not the one).
  std::span<const uint8_t> DictionaryOf(const uint8_t* data, int64_t size) const {
    const std::optional<CompactSegmentDictionary> named = DictionaryReferenceAt(data, size);
    if (named.has_value() && !given_dictionary.empty() && given_dictionary_id == *named) {
      return given_dictionary;
    }
    return schema_message;
  }
  int64_t non_empty() const {
    return std::count_if(reports.begin(), reports.end(), [](const auto& r) { return r.bytes > 0; });
  }
};

ArgumentParser MakeParser() {
  ArgumentParser parser(
      "sluice inspect", "DIR/shuffle_S_M_0.data [--verify] [--json]",
      "Describes a map output: its files, and per partition the offset, bytes, rows, blocks,\n"
      "codec and stored checksum, read from the index and the blocks' metadata. With --verify it\n"
      "also checks the index against the data file, decodes every block, and recomputes every\n"
      "partition's checksum against the checksum file. Any problem is reported on one line\n"
      "naming the file, partition and byte offset, and the exit code is 1.",
      {"sluice inspect out/shuffle_0_0_0.data", "sluice inspect out/shuffle_0_3_0.data --verify",
       "sluice inspect out/shuffle_0_0_0.data --verify --json > report.json"});
  parser.AddPositional("DATA_FILE", "the map output's .data file (index and checksum beside it)");
  parser.AddOption("schema", "FILE.arrow",
                   "the map output's schema (an Arrow file or stream whose schema it is), for a "
                   "data file written with readers-have-schema, which holds no Schema message");
  parser.AddFlag("verify", "decode every block and check the checksums");
  parser.AddFlag("json", "print the description as JSON");
  return parser;
}

// The Schema message the compact segments of `inspection`'s data file may be compressed against:
// the given schema's, else the one the data file's first segment starts with (none when that
// segment refers to it too; its partitions then report what they lack).
Result<std::vector<uint8_t>> CompactSegmentsSchemaMessage(const Inspection& inspection) {
  if (inspection.given_schema != nullptr) {
    SLUICE_ASSIGN_OR_RAISE(auto encoder, SegmentEncoder::Make(inspection.given_schema));
    const std::span<const uint8_t> message = encoder->schema_message();
    return std::vector<uint8_t>(message.begin(), message.end());
  }
  const auto first = std::find_if(inspection.offsets.begin() + 1, inspection.offsets.end(),
                                  [](int64_t end) { return end > 0; });
  if (first == inspection.offsets.end()) return std::vector<uint8_t>();
  Result<std::vector<uint8_t>> message = FirstSchemaMessage(
      inspection.file->data(), *first, PartitionSource(inspection.files.data, 0));
  return message.ok() ? std::move(*message) : std::vector<uint8_t>();
}

// Opens the map output of `data_path`: its data file mapped, its index read (a failure there
// ends the command), its checksum file read (a failure there is a problem to report).
Result<Inspection> OpenMapOutput(const std::string& data_path, SchemaPtr given_schema) {
  Inspection inspection;
  inspection.given_schema = std::move(given_schema);
  SLUICE_ASSIGN_OR_RAISE(inspection.files, MapOutputForDataFile(data_path));
  const MapOutputFiles& files = inspection.files;
  SLUICE_ASSIGN_OR_RAISE(inspection.file, MappedFile::Open(files.data));
  SLUICE_ASSIGN_OR_RAISE(inspection.offsets, ReadIndexFile(files.index, inspection.file->size()));
  const size_t partitions = inspection.offsets.size() - 1;
  inspection.reports.resize(partitions);
  if (!files.checksum.empty()) {
    Result<std::vector<uint32_t>> checksums =
        ReadChecksumFile(files.checksum, static_cast<int64_t>(partitions));
    if (checksums.ok()) {
      inspection.stored_checksums = std::move(*checksums);
    } else {
      inspection.problems.push_back(checksums.status().message());
    }
  }
  SLUICE_ASSIGN_OR_RAISE(inspection.schema_message, CompactSegmentsSchemaMessage(inspection));
  if (inspection.given_schema != nullptr) {
    AlignedBuffer dictionary;
    SLUICE_RETURN_NOT_OK(AppendGivenSchemaDictionary(inspection.given_schema, &dictionary));
    inspection.given_dictionary.assign(dictionary.data(), dictionary.data() + dictionary.size());
    inspection.given_dictionary_id = CompactSegmentDictionary::Of(inspection.given_dictionary);
  }
  return inspection;
}

// Fills each partition's report from the index, the checksum file and its blocks' metadata.
void DescribePartitions(Inspection* inspection) {
  const std::string& data_path = inspection->files.data;
  for (size_t p = 0; p < inspection->partitions(); ++p) {
    PartitionReport& report = inspection->reports[p];
    report.offset = inspection->offsets[p];
    report.bytes = inspection->offsets[p + 1] - inspection->offsets[p];
    if (!inspection->stored_checksums.empty()) {
      report.has_checksum = true;
      report.checksum = inspection->stored_checksums[p];
    }
    const uint8_t* segment = inspection->file->data() + report.offset;
    Result<SegmentLayout> layout =
        ReadSegmentLayout(segment, report.bytes, PartitionSource(data_path, p), report.offset,
                          inspection->DictionaryOf(segment, report.bytes));
    if (!layout.ok()) {
      inspection->problems.push_back(layout.status().message());
      continue;
    }
    if (report.bytes > 0 && layout->end != report.bytes) {
      inspection->problems.push_back(
          PartitionSource(data_path, p) + ": byte " + std::to_string(report.offset + layout->end) +
          ": " + std::to_string(report.bytes - layout->end) +
          " bytes follow the end-of-stream marker; the index and the data disagree");
    }
    report.layout_ok = true;
    report.rows = layout->rows;
    report.blocks = static_cast<int64_t>(layout->blocks.size());
    report.codecs = layout->CodecNames();
    inspection->total_rows += report.rows;
    inspection->total_blocks += report.blocks;
  }
}

// Decodes every block of every partition and recomputes every stored checksum.
void VerifyPartitions(Inspection* inspection) {
  const MapOutputFiles& files = inspection->files;
  const MappedFile& file = *inspection->file;
  SegmentDecoder decoder;
  if (inspection->given_schema != nullptr) {
    Status given = decoder.AddSchema(inspection->given_schema);
    if (!given.ok()) inspection->problems.push_back(given.message());
  }
  ProgressBar progress("verify", file.size(), "bytes");
  for (size_t p = 0; p < inspection->partitions(); ++p) {
    const PartitionReport& report = inspection->reports[p];
    int64_t decoded_rows = 0;
    Status decoded =
        VerifySegment(&decoder, file, files.data, p, report, &inspection->schema, &decoded_rows);
    if (!decoded.ok()) inspection->problems.push_back(decoded.message());
    inspection->decoded_rows += decoded_rows;
    if (report.has_checksum) {
      const uint32_t actual =
          UpdateChecksum(files.checksum_algorithm, EmptyChecksum(files.checksum_algorithm),
                         file.data() + report.offset, report.bytes);
      if (actual == report.checksum) {
        ++inspection->checksums_matched;
      } else {
        inspection->problems.push_back(
            PartitionSource(files.data, p) + " (bytes " + std::to_string(report.offset) + ".." +
            std::to_string(report.offset + report.bytes) + "): " +
            std::string(ChecksumAlgorithmName(files.checksum_algorithm)) + " of the bytes is " +
            Hex32(actual) + " but " + files.checksum + " says " + Hex32(report.checksum));
      }
    }
    progress.Update(report.offset + report.bytes);
  }
  inspection->verified = inspection->problems.empty();
}

// The schema alone, from the first non-empty partition: a glance, not a check.
void ReadSchema(Inspection* inspection) {
  if (inspection->given_schema != nullptr) {
    inspection->schema = inspection->given_schema;
    return;
  }
  for (size_t p = 0; p < inspection->partitions() && inspection->schema == nullptr; ++p) {
    const PartitionReport& report = inspection->reports[p];
    if (report.bytes == 0 || !report.layout_ok) continue;
    SegmentDecoder decoder;
    if (decoder
            .Begin(inspection->file->data() + report.offset, report.bytes, nullptr,
                   PartitionSource(inspection->files.data, p), report.offset)
            .ok() &&
        decoder.ReadSchema().ok()) {
      inspection->schema = decoder.schema();
    }
  }
}

std::string ChecksumFileText(const MapOutputFiles& files) {
  return files.checksum.empty()
             ? std::string("none (no .checksum.<ALGO> file)")
             : files.checksum + " (" +
                   std::string(ChecksumAlgorithmName(files.checksum_algorithm)) + ")";
}

void PrintJson(const Inspection& inspection) {
  const MapOutputFiles& files = inspection.files;
  JsonValue json = JsonValue::Object();
  json.Set("data_path", files.data);
  json.Set("index_path", files.index);
  json.Set("checksum_path", files.checksum);
  json.Set("checksum_algorithm", std::string(ChecksumAlgorithmName(files.checksum_algorithm)));
  json.Set("shuffle_id", files.shuffle_id);
  json.Set("map_id", files.map_id);
  json.Set("bytes", inspection.file->size());
  json.Set("partitions", static_cast<int64_t>(inspection.partitions()));
  json.Set("rows", inspection.total_rows);
  json.Set("blocks", inspection.total_blocks);
  if (inspection.schema != nullptr) {
    JsonValue fields = JsonValue::Array();
    for (const Field& field : inspection.schema->fields()) {
      fields.Append(JsonValue::Object()
                        .Set("name", field.name)
                        .Set("type", field.type->ToString())
                        .Set("nullable", field.nullable));
    }
    json.Set("schema", std::move(fields));
  }
  JsonValue partition_list = JsonValue::Array();
  for (size_t p = 0; p < inspection.partitions(); ++p) {
    const PartitionReport& report = inspection.reports[p];
    JsonValue entry = JsonValue::Object();
    entry.Set("partition", static_cast<int64_t>(p))
        .Set("offset", report.offset)
        .Set("bytes", report.bytes)
        .Set("rows", report.rows)
        .Set("blocks", report.blocks)
        .Set("codec", report.CodecNames());
    if (report.has_checksum) entry.Set("checksum", report.checksum);
    partition_list.Append(std::move(entry));
  }
  json.Set("partition_list", std::move(partition_list));
  json.Set("verified", inspection.verified);
  JsonValue problem_list = JsonValue::Array();
  for (const std::string& problem : inspection.problems) problem_list.Append(problem);
  json.Set("problems", std::move(problem_list));
  std::cout << json.Dump(2) << "\n";
}

// The table of partitions: the non-empty ones and any that could not be read; the empty ones
// are counted, not listed (most of a million partitions may be empty).
void PrintPartitionTable(const Inspection& inspection) {
  TablePrinter table({{"partition", TablePrinter::Align::kRight},
                      {"offset", TablePrinter::Align::kRight},
                      {"bytes", TablePrinter::Align::kRight},
                      {"rows", TablePrinter::Align::kRight},
                      {"blocks", TablePrinter::Align::kRight},
                      {"codec"},
                      {"checksum"}});
  for (size_t p = 0; p < inspection.partitions(); ++p) {
    const PartitionReport& report = inspection.reports[p];
    if (report.bytes == 0 && report.layout_ok) continue;
    table.AddRow({std::to_string(p), TablePrinter::FormatInteger(report.offset),
                  TablePrinter::FormatInteger(report.bytes),
                  TablePrinter::FormatInteger(report.rows),
                  TablePrinter::FormatInteger(report.blocks), report.CodecNames(),
                  report.has_checksum ? Hex32(report.checksum) : "-"});
  }
  const int64_t empty = static_cast<int64_t>(inspection.partitions()) - inspection.non_empty();
  if (empty > 0) {
    table.AddRow(
        {"(" + TablePrinter::FormatInteger(empty) + " empty)", "", "0", "0", "0", "-", ""});
  }
  table.AddRule();
  table.AddRow({"total", "", TablePrinter::FormatInteger(inspection.file->size()),
                TablePrinter::FormatInteger(inspection.total_rows),
                TablePrinter::FormatInteger(inspection.total_blocks), "", ""});
  table.Print(std::cout);
}

void PrintText(const Inspection& inspection) {
  const MapOutputFiles& files = inspection.files;
  std::cout << "map output " << files.data << "\n"
            << "  shuffle " << files.shuffle_id << ", map " << files.map_id << ", "
            << FormatByteSize(inspection.file->size()) << ", "
            << TablePrinter::FormatInteger(static_cast<int64_t>(inspection.partitions()))
            << " partitions (" << TablePrinter::FormatInteger(inspection.non_empty())
            << " non-empty), " << TablePrinter::FormatInteger(inspection.total_rows) << " rows in "
            << TablePrinter::FormatInteger(inspection.total_blocks) << " blocks\n"
            << "  index     " << files.index << "\n"
            << "  checksums " << ChecksumFileText(files) << "\n";
  if (inspection.schema != nullptr) {
    std::cout << "  schema    " << SchemaLine(*inspection.schema) << "\n";
  }
  std::cout << "\n";
  PrintPartitionTable(inspection);
  if (inspection.verified) {
    std::cout << "\nverified: the index matches the data file ("
              << TablePrinter::FormatInteger(inspection.file->size()) << " bytes), "
              << TablePrinter::FormatInteger(inspection.total_blocks) << " blocks decode to "
              << TablePrinter::FormatInteger(inspection.decoded_rows) << " rows, "
              << (files.checksum.empty()
                      ? std::string("no checksum file to check")
                      : TablePrinter::FormatInteger(inspection.checksums_matched) + " " +
                            std::string(ChecksumAlgorithmName(files.checksum_algorithm)) +
                            " checksums match")
              << "\n";
  }
}

// Reports each problem on its own line, then their count; the command's exit code.
int ReportProblems(const Inspection& inspection) {
  std::cout.flush();
  const std::vector<std::string>& problems = inspection.problems;
  for (const std::string& problem : problems) ReportError(kCommand, Status::Corrupt(problem));
  if (problems.empty()) return kExitSuccess;
  std::fprintf(stderr, "sluice inspect: %zu problem%s in %s\n", problems.size(),
               problems.size() == 1 ? "" : "s", inspection.files.data.c_str());
  return kExitFailure;
}

}  // namespace

int RunInspectCommand(std::span<const std::string> arguments) {
  ArgumentParser parser = MakeParser();
  Status parsed = parser.Parse(arguments);
  if (!parsed.ok()) return ReportError(kCommand, parsed, kExitUsage);
  if (parser.help_requested()) {
    std::cout << parser.HelpText();
    return kExitSuccess;
  }
  if (parser.positionals().size() != 1) {
    return ReportError(kCommand,
                       Status::Invalid("expected one DATA_FILE, got ", parser.positionals().size(),
                                       " arguments; ", parser.HelpHint()),
                       kExitUsage);
  }
  SchemaPtr given_schema;
  if (parser.Has("schema")) {
    Result<std::vector<RecordBatch>> read = ReadAllBatches(*parser.Value("schema"), &given_schema);
    if (!read.ok()) return ReportError(kCommand, read.status().WithContext("--schema"));
  }
  Result<Inspection> inspection = OpenMapOutput(parser.positionals()[0], std::move(given_schema));
  if (!inspection.ok()) return ReportError(kCommand, inspection.status());
  DescribePartitions(&*inspection);
  if (parser.Has("verify")) {
    VerifyPartitions(&*inspection);
  } else {
    ReadSchema(&*inspection);
  }
  if (parser.Has("json")) {
    PrintJson(*inspection);
  } else {
    PrintText(*inspection);
  }
  return ReportProblems(*inspection);
}

}  // namespace sluice::cli
