#include "support/map_output_check.h"

#include <gtest/gtest.h>

#include "sluice/format/array_compare.h"
#include "sluice/io/input_file.h"
#include "sluice/ipc/segment_decoder.h"

namespace sluice::testing {

std::vector<std::vector<std::pair<size_t, int64_t>>> ExpectedPartitions(
    const std::vector<RecordBatch>& batches, const PartitionerOptions& options) {
  std::vector<std::vector<std::pair<size_t, int64_t>>> expected;
  if (batches.empty()) return expected;
  auto partitioner = MakePartitioner(options, *batches[0].schema()).ValueOrDie();
  expected.resize(static_cast<size_t>(partitioner->partition_count()));
  for (size_t b = 0; b < batches.size(); ++b) {
    std::vector<uint32_t> ids(static_cast<size_t>(batches[b].num_rows()));
    Status status = partitioner->Partition(batches[b], ids.data());
    EXPECT_TRUE(status.ok()) << status.ToString();
    for (int64_t row = 0; row < batches[b].num_rows(); ++row) {
      expected[ids[static_cast<size_t>(row)]].emplace_back(b, row);
    }
  }
  return expected;
}

int64_t CheckMapOutput(const MapOutput& output, const std::vector<RecordBatch>& batches,
                       const PartitionerOptions& options, SchemaPtr given_schema) {
  const auto expected = ExpectedPartitions(batches, options);
  const size_t partitions = output.lengths.size();
  EXPECT_EQ(output.offsets.size(), partitions + 1);
  if (!expected.empty()) {
    EXPECT_EQ(expected.size(), partitions);
  }
  auto file = InputFile::Open(output.data_path);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return 0;
  EXPECT_EQ((*file)->size(), output.offsets.back());
  AlignedBuffer bytes;
  EXPECT_TRUE((*file)->ReadAt(0, (*file)->size(), &bytes).ok());
  SegmentDecoder decoder;
  if (given_schema != nullptr) {
    EXPECT_TRUE(decoder.AddSchema(std::move(given_schema)).ok());
  }
  int64_t rows_read = 0;
  for (size_t p = 0; p < partitions; ++p) {
    const int64_t offset = output.offsets[p];
    const int64_t length = output.offsets[p + 1] - offset;
    EXPECT_EQ(length, output.lengths[p]);
    if (output.checksum_algorithm != ChecksumAlgorithm::kNone) {
      const uint32_t actual =
          UpdateChecksum(output.checksum_algorithm, EmptyChecksum(output.checksum_algorithm),
                         bytes.data() + offset, length);
      EXPECT_EQ(actual, output.checksums[p]) << "checksum of partition " << p;
    }
    const auto& want =
        p < expected.size() ? expected[p] : std::vector<std::pair<size_t, int64_t>>();
    if (length == 0) {
      EXPECT_TRUE(want.empty()) << "partition " << p << " is empty but should hold " << want.size()
                                << " rows";
      continue;
    }
    Status begun = decoder.Begin(bytes.data() + offset, length, nullptr,
                                 "partition " + std::to_string(p), offset);
    EXPECT_TRUE(begun.ok()) << begun.ToString();
    size_t next = 0;
    while (true) {
      auto batch = decoder.Next();
      if (!batch.ok()) {
        ADD_FAILURE() << batch.status().ToString();
        return rows_read;
      }
      if (!batch->has_value()) break;
      const RecordBatch& got = **batch;
      for (int64_t row = 0; row < got.num_rows(); ++row, ++next) {
        if (next >= want.size()) {
          ADD_FAILURE() << "partition " << p << " holds more rows than the " << want.size()
                        << " expected";
          return rows_read;
        }
        const RecordBatch& source = batches[want[next].first];
        for (size_t c = 0; c < got.num_columns(); ++c) {
          std::string difference;
          if (!ArraysEqual(source.column(c).Slice(want[next].second, 1),
                           got.column(c).Slice(row, 1), &difference)) {
            ADD_FAILURE() << "partition " << p << " row " << next << " column " << c << ": "
                          << difference;
            return rows_read;
          }
        }
      }
      rows_read += got.num_rows();
    }
    EXPECT_EQ(next, want.size()) << "partition " << p << " row count";
  }
  return rows_read;
}

}  // namespace sluice::testing
