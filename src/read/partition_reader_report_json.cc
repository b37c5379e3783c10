#include "sluice/read/partition_reader_report_json.h"

#include <cstdio>
#include <sstream>

namespace sluice {

namespace {

// Appends `text` as a JSON string: quotes, backslashes and control characters escaped.
void AppendJsonString(std::string_view text, std::ostringstream* json) {
  *json << '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      *json << '\\' << c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
      *json << escaped;
    } else {
      *json << c;
    }
  }
  *json << '"';
}

}  // namespace

std::string PartitionReaderMetricsToJson(const PartitionReaderMetrics& metrics) {
  std::ostringstream json;
  json << "{\"sources\":" << metrics.sources << ",\"failed_sources\":" << metrics.failed_sources
       << ",\"bytes_read\":" << metrics.bytes_read << ",\"file_reads\":" << metrics.file_reads
       << ",\"read_buffers\":" << metrics.read_buffers << ",\"segments\":" << metrics.segments
       << ",\"blocks\":" << metrics.blocks << ",\"schemas_parsed\":" << metrics.schemas_parsed
       << ",\"batches\":" << metrics.batches << ",\"rows\":" << metrics.rows
       << ",\"coalesced_batches\":" << metrics.coalesced_batches
       << ",\"coalesced_inputs\":" << metrics.coalesced_inputs
       << ",\"decompressed_bytes\":" << metrics.decompressed_bytes
       << ",\"read_nanos\":" << metrics.read_nanos
       << ",\"checksum_nanos\":" << metrics.checksum_nanos
       << ",\"decompress_nanos\":" << metrics.decompress_nanos
       << ",\"coalesce_nanos\":" << metrics.coalesce_nanos
       << ",\"wait_nanos\":" << metrics.wait_nanos << "}";
  return json.str();
}

std::string PartitionReaderReportToJson(const PartitionReaderMetrics& metrics,
                                        const std::vector<SourceFailure>& failures) {
  std::ostringstream json;
  json << "{\"metrics\":" << PartitionReaderMetricsToJson(metrics) << ",\"failures\":[";
  for (size_t i = 0; i < failures.size(); ++i) {
    if (i > 0) json << ',';
    json << "{\"source\":" << failures[i].source_index << ",\"block\":" << failures[i].block_index
         << ",\"code\":";
    AppendJsonString(StatusCodeName(failures[i].status.code()), &json);
    json << ",\"message\":";
    AppendJsonString(failures[i].status.message(), &json);
    json << '}';
  }
  json << "]}";
  return json.str();
}

}  // namespace sluice
