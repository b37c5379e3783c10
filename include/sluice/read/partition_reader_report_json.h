// A reader's metrics and skipped map outputs as JSON, for the C API, the CLI and benchmarks.
#pragma once

#include <string>
#include <vector>

#include "sluice/read/partition_reader.h"

namespace sluice {

/// Returns {"sources":..., "failed_sources":..., "bytes_read":..., ..., "wait_nanos":...}.
std::string PartitionReaderMetricsToJson(const PartitionReaderMetrics& metrics);

/// Returns {"metrics": <PartitionReaderMetricsToJson>, "failures": [{"source":..., "block":...,
/// "code": "Corrupt", "message": "..."}, ...]}.
std::string PartitionReaderReportToJson(const PartitionReaderMetrics& metrics,
                                        const std::vector<SourceFailure>& failures);

}  // namespace sluice
