#include "sluice/write/map_writer_metrics_json.h"

#include <nlohmann/json.hpp>

namespace sluice {

std::string MapWriterMetricsToJson(const MapWriterMetrics& metrics) {
  const nlohmann::ordered_json json = {
      {"rows", metrics.rows},
      {"batches", metrics.batches},
      {"input_bytes", metrics.input_bytes},
      {"output_bytes", metrics.output_bytes},
      {"blocks", metrics.blocks},
      {"spills", metrics.spills},
      {"spill_bytes", metrics.spill_bytes},
      {"partition_state_bytes", metrics.partition_state_bytes},
      {"peak_reserved_bytes", metrics.peak_reserved_bytes},
      {"partition_nanos", metrics.partition_nanos},
      {"gather_nanos", metrics.gather_nanos},
      {"compress_nanos", metrics.compress_nanos},
      {"write_nanos", metrics.write_nanos},
      {"total_nanos", metrics.total_nanos},
  };
  return json.dump();
}

}  // namespace sluice
