// Checks a committed map output against its input: every partition holds exactly the rows the
// partitioner assigned to it, in input order, and each checksum matches the bytes.
#pragma once

#include <string>
#include <vector>

#include "sluice/partition/partitioner.h"
#include "sluice/write/map_writer.h"

namespace sluice::testing {

/// Returns the rows of `batches` each partition should hold, as (batch index, row) pairs in
/// input order, by running a fresh partitioner made from `options`.
std::vector<std::vector<std::pair<size_t, int64_t>>> ExpectedPartitions(
    const std::vector<RecordBatch>& batches, const PartitionerOptions& options);

/// Reads every partition of `output` back with the segment decoder and checks rows, order,
/// lengths and checksums; the decoder is given `given_schema` when not null (as a host that
/// knows the schema gives it). Adds gtest failures; returns the number of rows read.
int64_t CheckMapOutput(const MapOutput& output, const std::vector<RecordBatch>& batches,
                       const PartitionerOptions& options, SchemaPtr given_schema = nullptr);

}  // namespace sluice::testing
