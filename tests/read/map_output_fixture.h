// Map outputs for reader tests: written by the real MapWriter from random batches, with the
// rows each partition must hold computed independently (by a fresh partitioner), and helpers to
// read a reader to the end and compare what it returned with what was written.
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "sluice/format/array_validate.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/read/partition_reader.h"
#include "sluice/write/map_writer.h"
#include "support/map_output_check.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice::testing {

/// What a shuffle's map side wrote: each map task's input and its committed output.
struct WrittenMaps {
  std::unique_ptr<TemporaryDirectory> directory = std::make_unique<TemporaryDirectory>();
  SchemaPtr schema;
  int32_t partition_count = 0;
  std::vector<PartitionerOptions> partitioning;  // per map (round-robin seeds by map id)
  std::vector<std::vector<RecordBatch>> inputs;  // per map
  std::vector<MapOutput> outputs;                // per map
};

struct MapsToWrite {
  SchemaPtr schema;
  PartitionerOptions partitioning;
  int map_count = 1;
  int batches_per_map = 2;
  int64_t rows_per_batch = 100;
  CompressionCodec codec = CompressionCodec::kNone;
  ChecksumAlgorithm checksum = ChecksumAlgorithm::kAdler32;
  bool spark_files = true;
  int64_t block_rows = 8192;
  uint64_t seed = 1;
};

/// Writes `spec.map_count` map outputs ("shuffle_0_<m>_0.data" and, when asked, Spark's files).
inline std::unique_ptr<WrittenMaps> WriteMaps(const MapsToWrite& spec) {
  auto maps = std::make_unique<WrittenMaps>();
  maps->schema = spec.schema;
  for (int m = 0; m < spec.map_count; ++m) {
    std::vector<RecordBatch> batches;
    for (int b = 0; b < spec.batches_per_map; ++b) {
      batches.push_back(RandomBatch(spec.schema, spec.rows_per_batch,
                                    spec.seed * 1000003 + static_cast<uint64_t>(m * 131 + b)));
    }
    MapWriterOptions options;
    options.schema = spec.schema;
    options.partitioning = spec.partitioning;
    options.partitioning.map_partition_id = m;
    options.encoding.codec = spec.codec;
    options.checksum = spec.checksum;
    options.write_spark_files = spec.spark_files;
    options.target_block_rows = spec.block_rows;
    options.memory_limit = -1;
    options.compact_schema_dictionary = true;  // the reader finds the Schema compact segments need
    options.data_path = maps->directory->Join("shuffle_0_" + std::to_string(m) + "_0.data");
    auto writer = MapWriter::Make(options);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    if (!writer.ok()) return maps;
    for (const auto& batch : batches) {
      Status written = (*writer)->Write(batch);
      EXPECT_TRUE(written.ok()) << written.ToString();
    }
    auto output = (*writer)->Finish();
    EXPECT_TRUE(output.ok()) << output.status().ToString();
    if (!output.ok()) return maps;
    maps->partition_count = static_cast<int32_t>(output->lengths.size());
    maps->partitioning.push_back(options.partitioning);
    maps->inputs.push_back(std::move(batches));
    maps->outputs.push_back(std::move(output).ValueUnsafe());
  }
  return maps;
}

/// Returns the rows partitions [start, end) of the given maps hold, in map order and, within a
/// map, partition by partition in input order: what a reader must return.
inline std::vector<RecordBatch> ExpectedRows(const WrittenMaps& maps, int32_t start, int32_t end,
                                             const std::vector<size_t>& map_indexes) {
  std::vector<RecordBatch> expected;
  auto encoder = SegmentEncoder::Make(maps.schema).ValueOrDie();
  AlignedBuffer segment;
  const auto schema_message = encoder->schema_message();
  segment.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  for (size_t m : map_indexes) {
    const auto partitions = ExpectedPartitions(maps.inputs[m], maps.partitioning[m]);
    std::vector<uint32_t> sources;
    std::vector<uint32_t> rows;
    for (int32_t p = start; p < end; ++p) {
      for (const auto& [batch, row] : partitions[static_cast<size_t>(p)]) {
        sources.push_back(static_cast<uint32_t>(batch));
        rows.push_back(static_cast<uint32_t>(row));
      }
    }
    if (rows.empty()) continue;
    std::vector<const RecordBatch*> bound;
    for (const auto& batch : maps.inputs[m]) bound.push_back(&batch);
    encoder->BindBatches(bound);
    EXPECT_TRUE(
        encoder
            ->AppendRows(sources.data(), rows.data(), static_cast<int64_t>(rows.size()), &segment)
            .ok());
  }
  segment.Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
  auto bytes = std::make_shared<AlignedBuffer>(std::move(segment));
  SegmentDecoder decoder;
  EXPECT_TRUE(decoder.Begin(bytes->data(), bytes->size(), bytes, "expected rows").ok());
  while (true) {
    auto next = decoder.Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) break;
    expected.push_back(std::move(**next));
  }
  return expected;
}

inline std::vector<RecordBatch> ExpectedRows(const WrittenMaps& maps, int32_t start, int32_t end) {
  std::vector<size_t> all(maps.outputs.size());
  for (size_t m = 0; m < all.size(); ++m) all[m] = m;
  return ExpectedRows(maps, start, end, all);
}

inline int64_t CountRows(const std::vector<RecordBatch>& batches) {
  int64_t rows = 0;
  for (const auto& batch : batches) rows += batch.num_rows();
  return rows;
}

/// Reads `reader` to the end; returns the batches, or the error that stopped it.
inline Result<std::vector<RecordBatch>> ReadAll(RecordBatchReader& reader) {
  std::vector<RecordBatch> batches;
  while (true) {
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, reader.Next());
    if (!batch.has_value()) return batches;
    batches.push_back(std::move(*batch));
  }
}

/// Checks that `actual` holds the rows of `expected`, in order (batch boundaries may differ),
/// and that every batch is valid.
inline void ExpectSameRows(const std::vector<RecordBatch>& expected,
                           const std::vector<RecordBatch>& actual) {
  ASSERT_EQ(CountRows(actual), CountRows(expected));
  for (const auto& batch : actual) {
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      Status valid = ValidateArray(batch.column(c), batch.schema()->field(c).name);
      ASSERT_TRUE(valid.ok()) << valid.ToString();
    }
  }
  size_t e = 0;
  size_t a = 0;
  int64_t e_row = 0;
  int64_t a_row = 0;
  int64_t compared = 0;
  while (e < expected.size() && a < actual.size()) {
    const int64_t run = std::min(expected[e].num_rows() - e_row, actual[a].num_rows() - a_row);
    for (size_t c = 0; run > 0 && c < expected[e].num_columns(); ++c) {
      std::string difference;
      ASSERT_TRUE(ArraysEqual(expected[e].column(c).Slice(e_row, run),
                              actual[a].column(c).Slice(a_row, run), &difference))
          << "rows " << compared << ".." << compared + run << " column " << c << ": " << difference;
    }
    compared += run;
    e_row += run;
    a_row += run;
    if (e_row == expected[e].num_rows()) {
      ++e;
      e_row = 0;
    }
    if (a_row == actual[a].num_rows()) {
      ++a;
      a_row = 0;
    }
  }
}

/// The sources that read partitions [start, end) of every map through Spark's files.
inline std::vector<SegmentSource> SparkSources(
    const WrittenMaps& maps, int32_t start, int32_t end,
    ChecksumAlgorithm checksum = ChecksumAlgorithm::kNone) {
  std::vector<SegmentSource> sources;
  for (const auto& output : maps.outputs) {
    sources.push_back(MapOutputFile::Spark(output.data_path, start, end, checksum));
  }
  return sources;
}

/// A schema with a key of each kind the partitioners need: hash and range keys, an Int32
/// column of precomputed ids (kept below `partitions`), and a nested column.
inline SchemaPtr KeyedSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      MakeField("key", DataType::Int64()), MakeField("text", DataType::Utf8()),
      MakeField("given", DataType::Int32(), false),
      MakeField("nested", DataType::List(DataType::Struct({MakeField("a", DataType::Int16())})))});
}

/// Writes maps of KeyedSchema() whose "given" column holds valid partition ids.
inline std::unique_ptr<WrittenMaps> WriteKeyedMaps(const PartitionerOptions& partitioning,
                                                   int map_count, int64_t rows_per_batch,
                                                   CompressionCodec codec) {
  auto maps = std::make_unique<WrittenMaps>();
  const SchemaPtr schema = KeyedSchema();
  maps->schema = schema;
  std::mt19937_64 rng(17);
  for (int m = 0; m < map_count; ++m) {
    std::vector<RecordBatch> batches;
    for (int b = 0; b < 2; ++b) {
      auto builders = MakeBuilders(*schema);
      for (int64_t row = 0; row < rows_per_batch; ++row) {
        AppendRandomValue(*builders[0], true, rng, {});
        AppendRandomValue(*builders[1], true, rng, {});
        builders[2]->Append<int32_t>(static_cast<int32_t>(rng() % 37));
        AppendRandomValue(*builders[3], true, rng, {});
      }
      batches.push_back(FinishBatch(schema, builders));
    }
    MapWriterOptions options;
    options.schema = schema;
    options.partitioning = partitioning;
    options.partitioning.map_partition_id = m;
    options.encoding.codec = codec;
    options.write_spark_files = true;
    options.memory_limit = -1;
    options.data_path = maps->directory->Join("shuffle_1_" + std::to_string(m) + "_0.data");
    auto writer = MapWriter::Make(options).ValueOrDie();
    for (const auto& batch : batches) EXPECT_TRUE(writer->Write(batch).ok());
    auto output = writer->Finish();
    EXPECT_TRUE(output.ok()) << output.status().ToString();
    if (!output.ok()) return maps;
    maps->partition_count = static_cast<int32_t>(output->lengths.size());
    maps->partitioning.push_back(options.partitioning);
    maps->inputs.push_back(std::move(batches));
    maps->outputs.push_back(std::move(output).ValueUnsafe());
  }
  return maps;
}

/// Every partitioner kind over KeyedSchema() with 37 partitions (range: 37 bounds' worth).
inline std::vector<PartitionerOptions> EveryPartitioner() {
  constexpr int32_t kPartitions = 37;
  std::vector<PartitionerOptions> kinds;
  PartitionerOptions hash;
  hash.kind = PartitionKind::kHash;
  hash.partition_count = kPartitions;
  hash.key_columns = {0, 1};
  kinds.push_back(hash);
  PartitionerOptions range;
  range.kind = PartitionKind::kRange;
  range.key_columns = {0};
  auto bound_schema =
      std::make_shared<Schema>(std::vector<Field>{MakeField("key", DataType::Int64())});
  auto builders = MakeBuilders(*bound_schema);
  for (int i = 0; i < kPartitions - 1; ++i) {
    builders[0]->Append<int64_t>(std::numeric_limits<int64_t>::min() / 2 +
                                 static_cast<int64_t>(i) *
                                     (std::numeric_limits<int64_t>::max() / (kPartitions - 1)));
  }
  range.range_bounds = FinishBatch(bound_schema, builders);
  range.partition_count = kPartitions;
  kinds.push_back(range);
  PartitionerOptions round_robin;
  round_robin.kind = PartitionKind::kRoundRobin;
  round_robin.partition_count = kPartitions;
  kinds.push_back(round_robin);
  PartitionerOptions single;
  single.kind = PartitionKind::kSingle;
  single.partition_count = 1;
  kinds.push_back(single);
  PartitionerOptions given;
  given.kind = PartitionKind::kGiven;
  given.partition_count = kPartitions;
  given.key_columns = {2};
  kinds.push_back(given);
  return kinds;
}

}  // namespace sluice::testing
