// The sort-based row writer: UnsafeRows in, the same map output files as the columnar writer.
#include "sluice/row/row_map_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "sluice/format/array_compare.h"
#include "sluice/io/input_file.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/packed_record_pointer.h"
#include "sluice/write/map_writer.h"
#include "spark_random_schema.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

struct RowInput {
  std::vector<RecordBatch> batches;  // the rows as columns, for comparison
  std::vector<UnsafeRowBatch> rows;  // the same rows as UnsafeRows
  std::vector<std::vector<uint32_t>> partitions;
};

RowInput MakeInput(const SchemaPtr& schema, int batches, int64_t rows, int32_t partitions,
                   uint64_t seed) {
  RowInput input;
  auto converter = ColumnarToRowConverter::Make(schema).ValueOrDie();
  std::mt19937_64 rng(seed);
  for (int b = 0; b < batches; ++b) {
    input.batches.push_back(testing::RandomBatch(schema, rows, seed * 100 + b));
    UnsafeRowBatch converted;
    EXPECT_TRUE(converter->Convert(input.batches.back(), 0, rows, &converted).ok());
    input.rows.push_back(std::move(converted));
    std::vector<uint32_t> ids(static_cast<size_t>(rows));
    for (auto& id : ids) id = static_cast<uint32_t>(rng() % static_cast<uint64_t>(partitions));
    input.partitions.push_back(std::move(ids));
  }
  return input;
}

// Reads partition p's rows back and checks them against the input, in input order.
void CheckOutput(const MapOutput& output, const RowInput& input) {
  auto file = InputFile::Open(output.data_path).ValueOrDie();
  AlignedBuffer bytes;
  ASSERT_TRUE(file->ReadAt(0, file->size(), &bytes).ok());
  SegmentDecoder decoder;
  for (size_t p = 0; p + 1 < output.offsets.size(); ++p) {
    std::vector<std::pair<size_t, int64_t>> expected;
    for (size_t b = 0; b < input.batches.size(); ++b) {
      for (size_t row = 0; row < input.partitions[b].size(); ++row) {
        if (input.partitions[b][row] == p) expected.emplace_back(b, static_cast<int64_t>(row));
      }
    }
    if (output.checksum_algorithm != ChecksumAlgorithm::kNone) {
      EXPECT_EQ(output.checksums[p],
                UpdateChecksum(output.checksum_algorithm, EmptyChecksum(output.checksum_algorithm),
                               bytes.data() + output.offsets[p], output.lengths[p]));
    }
    if (output.lengths[p] == 0) {
      EXPECT_TRUE(expected.empty()) << "partition " << p;
      continue;
    }
    ASSERT_TRUE(decoder
                    .Begin(bytes.data() + output.offsets[p], output.lengths[p], nullptr,
                           "partition " + std::to_string(p))
                    .ok());
    size_t next = 0;
    while (true) {
      auto batch = decoder.Next();
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch->has_value()) break;
      for (int64_t row = 0; row < (*batch)->num_rows(); ++row, ++next) {
        ASSERT_LT(next, expected.size()) << "partition " << p;
        const RecordBatch& source = input.batches[expected[next].first];
        for (size_t c = 0; c < source.num_columns(); ++c) {
          std::string difference;
          ASSERT_TRUE(ArraysEqual(source.column(c).Slice(expected[next].second, 1),
                                  (*batch)->column(c).Slice(row, 1), &difference))
              << "partition " << p << " row " << next << " column " << c << difference;
        }
      }
    }
    EXPECT_EQ(next, expected.size()) << "partition " << p;
  }
}

RowMapWriterOptions Options(const SchemaPtr& schema, const testing::TemporaryDirectory& directory,
                            int32_t partitions) {
  RowMapWriterOptions options;
  options.writer.schema = schema;
  options.writer.partitioning.partition_count = partitions;
  options.writer.data_path = directory.Join("rows.data");
  options.writer.checksum = ChecksumAlgorithm::kCrc32;
  options.writer.write_spark_files = true;
  options.writer.target_block_rows = 64;
  options.page_bytes = 64 << 10;
  return options;
}

struct RowCase {
  CompressionCodec codec;
  int32_t partitions;
  bool spill;
  RowWriterStrategy strategy = RowWriterStrategy::kSort;
};

class RowMapWriterTest : public ::testing::TestWithParam<RowCase> {};

TEST_P(RowMapWriterTest, AppendedRowsReadBackPerPartitionInOrder) {
  const RowCase param = GetParam();
  testing::TemporaryDirectory directory;
  std::mt19937_64 rng(17);
  auto schema = testing::AllSparkTypesSchema();
  RowInput input = MakeInput(schema, 4, 300, param.partitions, 3);
  RowMapWriterOptions options = Options(schema, directory, param.partitions);
  options.writer.encoding.codec = param.codec;
  options.writer.memory_limit = param.spill ? 200 << 10 : -1;
  options.strategy = param.strategy;
  auto writer = RowMapWriter::Make(options).ValueOrDie();
  EXPECT_EQ(writer->strategy(), param.strategy);
  for (size_t b = 0; b < input.rows.size(); ++b) {
    for (int64_t row = 0; row < input.rows[b].num_rows(); ++row) {
      ASSERT_TRUE(writer
                      ->AppendRow(input.partitions[b][row], input.rows[b].row(row),
                                  input.rows[b].sizes[row])
                      .ok());
    }
  }
  auto output = writer->Finish();
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_EQ(output->metrics.rows, 1200);
  if (param.spill) {
    EXPECT_GE(output->metrics.spills, 2);
  } else {
    EXPECT_EQ(output->metrics.spills, 0);
  }
  CheckOutput(*output, input);
  EXPECT_EQ(directory.List(),
            (std::vector<std::string>{"rows.checksum.CRC32", "rows.data", "rows.index"}));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RowMapWriterTest,
    ::testing::Values(
        RowCase{CompressionCodec::kNone, 1, false}, RowCase{CompressionCodec::kLz4Frame, 7, true},
        RowCase{CompressionCodec::kZstd, 200, true}, RowCase{CompressionCodec::kNone, 300, false},
        RowCase{CompressionCodec::kLz4Frame, 70000, true},
        RowCase{CompressionCodec::kNone, 1, false, RowWriterStrategy::kScatter},
        RowCase{CompressionCodec::kZstd, 200, true, RowWriterStrategy::kScatter},
        RowCase{CompressionCodec::kLz4Frame, 70000, true, RowWriterStrategy::kScatter}),
    [](const auto& info) {
      return std::string(CompressionCodecName(info.param.codec)) + "_" +
             std::to_string(info.param.partitions) + (info.param.spill ? "_spill" : "_memory") +
             (info.param.strategy == RowWriterStrategy::kScatter ? "_scatter" : "_sort");
    });

class RowMapWriterPageTest : public ::testing::TestWithParam<RowWriterStrategy> {};

TEST_P(RowMapWriterPageTest, HostCopiesRowsIntoPages) {
  // The JVM's way: take a page, copy rows into it, report their pointers once per page.
  testing::TemporaryDirectory directory;
  auto schema = testing::AllSparkTypesSchema();
  RowInput input = MakeInput(schema, 3, 200, 13, 5);
  RowMapWriterOptions options = Options(schema, directory, 13);
  options.writer.memory_limit = 300 << 10;
  options.strategy = GetParam();
  auto writer = RowMapWriter::Make(options).ValueOrDie();
  RowMapWriter::Page page;
  int64_t used = 0;
  std::vector<uint64_t> pending;
  for (size_t b = 0; b < input.rows.size(); ++b) {
    for (int64_t row = 0; row < input.rows[b].num_rows(); ++row) {
      const int64_t size = input.rows[b].sizes[row];
      const int64_t needed = RowMapWriter::kRowPrefixBytes + size;
      if (page.data == nullptr || used + needed > page.capacity) {
        ASSERT_TRUE(writer->AddPointers(pending.data(), static_cast<int64_t>(pending.size())).ok());
        pending.clear();
        page = writer->NewPage(needed).ValueOrDie();
        used = 0;
      }
      std::memcpy(page.data + used, &size, 8);
      std::memcpy(page.data + used + 8, input.rows[b].row(row), static_cast<size_t>(size));
      pending.push_back(PackedRecordPointer::Pack(input.partitions[b][row], page.number,
                                                  static_cast<uint32_t>(used)));
      used += needed;
    }
  }
  ASSERT_TRUE(writer->AddPointers(pending.data(), static_cast<int64_t>(pending.size())).ok());
  auto output = writer->Finish();
  ASSERT_TRUE(output.ok()) << output.status().ToString();
  EXPECT_GE(output->metrics.spills, 1);
  CheckOutput(*output, input);
}

INSTANTIATE_TEST_SUITE_P(Strategies, RowMapWriterPageTest,
                         ::testing::Values(RowWriterStrategy::kSort, RowWriterStrategy::kScatter));

// Counts the non-empty segments of `output` that are compact (one frame around a stream).
int CompactSegments(const MapOutput& output) {
  const std::string data = testing::ReadFileBytes(output.data_path);
  int compact = 0;
  for (size_t p = 0; p < output.lengths.size(); ++p) {
    compact += output.lengths[p] > 0 &&
               IsCompactSegment(reinterpret_cast<const uint8_t*>(data.data()) + output.offsets[p],
                                output.lengths[p]);
  }
  return compact;
}

TEST(RowMapWriterCompactionTest, SmallPartitionsAreCompactThroughSpills) {
  auto schema = testing::AllSparkTypesSchema();
  RowInput input = MakeInput(schema, 4, 300, 100, 5);
  for (int64_t limit : {int64_t{64} << 10, int64_t{0}}) {
    testing::TemporaryDirectory directory;
    RowMapWriterOptions options = Options(schema, directory, 100);
    options.writer.encoding.codec = CompressionCodec::kLz4Frame;
    options.writer.memory_limit = 200 << 10;
    options.writer.compact_segment_bytes = limit;
    options.strategy = RowWriterStrategy::kSort;
    auto writer = RowMapWriter::Make(options).ValueOrDie();
    for (size_t b = 0; b < input.rows.size(); ++b) {
      for (int64_t row = 0; row < input.rows[b].num_rows(); ++row) {
        ASSERT_TRUE(writer
                        ->AppendRow(input.partitions[b][row], input.rows[b].row(row),
                                    input.rows[b].sizes[row])
                        .ok());
      }
    }
    auto output = writer->Finish();
    ASSERT_TRUE(output.ok()) << output.status().ToString();
    EXPECT_GE(output->metrics.spills, 2);
    CheckOutput(*output, input);
    if (limit > 0) {
      // About 12 rows each; the few partitions whose UnsafeRows pass 64 KiB stay streams.
      EXPECT_GE(CompactSegments(*output), 90);
    } else {
      EXPECT_EQ(CompactSegments(*output), 0);
    }
  }
}

TEST(RowMapWriterStrategyTest, AutoScattersNarrowRowsAtHighPartitionCounts) {
  EXPECT_EQ(ChooseRowWriterStrategy(200, 64), RowWriterStrategy::kSort);
  EXPECT_EQ(ChooseRowWriterStrategy(100000, 64), RowWriterStrategy::kScatter);
  EXPECT_EQ(ChooseRowWriterStrategy(100000, 4096), RowWriterStrategy::kSort);
}

TEST(RowMapWriterErrorTest, BadPointersAreRejectedAndCleanedUp) {
  testing::TemporaryDirectory directory;
  auto schema = testing::AllSparkTypesSchema();
  auto writer = RowMapWriter::Make(Options(schema, directory, 4)).ValueOrDie();
  auto page = writer->NewPage(64).ValueOrDie();
  const int64_t size = 1 << 20;  // claims more bytes than the page holds
  std::memcpy(page.data, &size, 8);
  const uint64_t pointers[] = {PackedRecordPointer::Pack(9, page.number, 0)};
  Status status = writer->AddPointers(pointers, 1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("partition 9"), std::string::npos) << status.ToString();
  EXPECT_TRUE(directory.List().empty());
}

TEST(RowMapWriterColumnarTest, SameDataAsTheColumnarWriter) {
  // The row writer and the columnar writer, fed the same rows and partition ids, produce
  // partitions that decode to the same batches.
  testing::TemporaryDirectory directory;
  std::mt19937_64 rng(23);
  auto schema = testing::RandomSparkSchema(rng, 5, 3);
  RowInput input = MakeInput(schema, 2, 500, 11, 9);
  auto row_writer = RowMapWriter::Make(Options(schema, directory, 11)).ValueOrDie();
  for (size_t b = 0; b < input.rows.size(); ++b) {
    for (int64_t row = 0; row < input.rows[b].num_rows(); ++row) {
      ASSERT_TRUE(row_writer
                      ->AppendRow(input.partitions[b][row], input.rows[b].row(row),
                                  input.rows[b].sizes[row])
                      .ok());
    }
  }
  MapOutput rows_output = row_writer->Finish().ValueOrDie();
  CheckOutput(rows_output, input);  // and the columnar writer is checked the same way below
  MapWriterOptions columnar;
  columnar.schema = schema;
  columnar.partitioning.kind = PartitionKind::kHash;  // replaced by explicit ids below
  columnar.partitioning.partition_count = 11;
  columnar.partitioning.key_columns = {0};
  columnar.data_path = directory.Join("columns.data");
  auto column_writer = MapWriter::Make(columnar).ValueOrDie();
  for (size_t b = 0; b < input.batches.size(); ++b) {
    ASSERT_TRUE(column_writer->Write(input.batches[b], input.partitions[b].data()).ok());
  }
  MapOutput columns_output = column_writer->Finish().ValueOrDie();
  CheckOutput(columns_output, input);
}

}  // namespace
}  // namespace sluice
