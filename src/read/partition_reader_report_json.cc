#include "sluice/read/partition_reader_report_json.h"

#include <nlohmann/json.hpp>

namespace sluice {

namespace {

nlohmann::ordered_json MetricsJson(const PartitionReaderMetrics& metrics) {
  return {
      {"sources", metrics.sources},
      {"failed_sources", metrics.failed_sources},
      {"bytes_read", metrics.bytes_read},
      {"file_reads", metrics.file_reads},
      {"read_buffers", metrics.read_buffers},
      {"segments", metrics.segments},
      {"blocks", metrics.blocks},
      {"schemas_parsed", metrics.schemas_parsed},
      {"batches", metrics.batches},
      {"rows", metrics.rows},
      {"coalesced_batches", metrics.coalesced_batches},
      {"coalesced_inputs", metrics.coalesced_inputs},
      {"decompressed_bytes", metrics.decompressed_bytes},
      {"read_nanos", metrics.read_nanos},
      {"checksum_nanos", metrics.checksum_nanos},
      {"decompress_nanos", metrics.decompress_nanos},
      {"coalesce_nanos", metrics.coalesce_nanos},
      {"wait_nanos", metrics.wait_nanos},
      {"pooled_bytes", metrics.pooled_bytes},
  };
}

// Messages name files, whose names need not be UTF-8: such bytes become U+FFFD.
std::string Dump(const nlohmann::ordered_json& json) {
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

std::string PartitionReaderMetricsToJson(const PartitionReaderMetrics& metrics) {
  return Dump(MetricsJson(metrics));
}

std::string PartitionReaderReportToJson(const PartitionReaderMetrics& metrics,
                                        const std::vector<SourceFailure>& failures) {
  nlohmann::ordered_json report = {{"metrics", MetricsJson(metrics)},
                                   {"failures", nlohmann::ordered_json::array()}};
  for (const SourceFailure& failure : failures) {
    report["failures"].push_back({{"source", failure.source_index},
                                  {"block", failure.block_index},
                                  {"code", std::string(StatusCodeName(failure.status.code()))},
                                  {"message", failure.status.message()}});
  }
  return Dump(report);
}

}  // namespace sluice
