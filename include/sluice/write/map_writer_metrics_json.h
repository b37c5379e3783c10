// MapWriterMetrics as a JSON object, for the C API, the CLI's --json output and benchmarks.
#pragma once

#include <string>

#include "sluice/write/map_writer.h"

namespace sluice {

/// Returns {"rows":..., "batches":..., "input_bytes":..., ..., "total_nanos":...}.
std::string MapWriterMetricsToJson(const MapWriterMetrics& metrics);

}  // namespace sluice
