// run_end_encoded end to end on hand-built layouts: run ends and values with offsets of their
// own, a view that starts inside a run, a null value, and every run end type. Imported through
// the C Data interface, validated, encoded and decoded (the segment encoder's gather keeps the
// runs), exported again; the malformed layouts a producer can send are refused naming the column.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/c_data_fixture.h"
#include "sluice/format/array_compare.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/c_data.h"
#include "sluice/ipc/segment_decoder.h"
#include "support/batch_maker.h"
#include "support/encoded_segment.h"

namespace sluice {
namespace {

using testing::BatchMaker;
using testing::CDataFactory;
using ArrayNode = CDataFactory::ArrayNode;
using SchemaNode = CDataFactory::SchemaNode;

// Runs after a leading garbage entry (both children have offset 1): "a" x2, null x1, "ccc" x3,
// "d" x1, so the rows are a, a, null, ccc, ccc, ccc, d.
struct RunLayout {
  std::vector<int64_t> run_ends = {99, 2, 3, 6, 7};
  std::vector<int32_t> value_offsets = {0, 3, 4, 4, 7, 8};  // "zzz", "a", null, "ccc", "d"
  std::string value_bytes =
      "zzzaccc"
      "d";
  std::vector<bool> value_valid = {true, true, false, true, true};
  int64_t run_ends_null_count = 0;
  int64_t null_count = 0;
  int64_t length = 7;
};

const std::vector<std::optional<std::string>> kRunRows = {"a",   "a",   std::nullopt, "ccc",
                                                          "ccc", "ccc", "d"};

template <typename RunEnd>
Result<RecordBatch> ImportRunLayout(CDataFactory& factory, const char* run_end_format,
                                    const RunLayout& layout, int64_t offset = 0) {
  const std::vector<RunEnd> run_ends(layout.run_ends.begin(), layout.run_ends.end());
  const auto runs = static_cast<int64_t>(run_ends.size()) - 1;
  ArrayNode* ends =
      factory.Array(runs, {nullptr, factory.Buffer(run_ends)}, {}, layout.run_ends_null_count, 1);
  const auto values_length = static_cast<int64_t>(layout.value_valid.size()) - 1;
  ArrayNode* values = factory.Array(
      values_length,
      {factory.Bitmap(layout.value_valid), factory.Buffer(layout.value_offsets),
       factory.Buffer(std::vector<char>(layout.value_bytes.begin(), layout.value_bytes.end()))},
      {}, -1, 1);
  const int64_t length = layout.length - offset;
  ArrayNode* column = factory.Array(length, {}, {ends, values}, layout.null_count, offset);
  SchemaNode* schema = factory.Schema(
      "+s", "", 0,
      {factory.Schema(
          "+r", "v", ARROW_FLAG_NULLABLE,
          {factory.Schema(run_end_format, "run_ends", 0), factory.Schema("u", "values")})});
  ArrayNode* root = factory.Array(length, {nullptr}, {column});
  SLUICE_ASSIGN_OR_RAISE(SchemaPtr imported, ImportSchema(&schema->schema));
  return ImportRecordBatch(&root->array, imported);
}

// kRunRows from `first` on, as a plain string column.
RecordBatch PlainRunRows(int64_t first) {
  BatchMaker maker({MakeField("v", DataType::Utf8())});
  for (size_t r = static_cast<size_t>(first); r < kRunRows.size(); ++r) {
    if (kRunRows[r].has_value()) {
      maker[0].AppendString(*kRunRows[r]);
    } else {
      maker[0].AppendNull();
    }
  }
  return maker.Finish();
}

// Checks that every row of `column` (run-end encoded) holds the plain row's value.
void ExpectRunRows(const ArrayData& column, int64_t first) {
  const RecordBatch plain = PlainRunRows(first);
  ASSERT_EQ(column.length, plain.num_rows());
  const ArrayData& values = column.children[1];
  for (int64_t row = 0; row < column.length; ++row) {
    const int64_t run = RunEndPhysicalIndex(column, row);
    ASSERT_EQ(values.IsNull(run), plain.column(0).IsNull(row)) << row;
    if (values.IsNull(run)) continue;
    const int32_t* offsets = values.value_offsets<int32_t>();
    const std::string value(reinterpret_cast<const char*>(values.value_bytes()) + offsets[run],
                            static_cast<size_t>(offsets[run + 1] - offsets[run]));
    EXPECT_EQ(value, *kRunRows[static_cast<size_t>(first + row)]) << row;
  }
}

TEST(RunEndEncodedTest, ImportsEveryRunEndTypeWithOffsetsOnEveryLevel) {
  for (const int64_t offset : {int64_t{0}, int64_t{1}, int64_t{4}}) {
    CDataFactory factory;
    auto int16 = ImportRunLayout<int16_t>(factory, "s", RunLayout{}, offset);
    auto int32 = ImportRunLayout<int32_t>(factory, "i", RunLayout{}, offset);
    auto int64 = ImportRunLayout<int64_t>(factory, "l", RunLayout{}, offset);
    for (auto* batch : {&int16, &int32, &int64}) {
      ASSERT_TRUE(batch->ok()) << batch->status().ToString();
      ExpectRunRows((*batch)->column(0), offset);
    }
    EXPECT_EQ(int32->schema()->field(0).type->ToString(),
              "run_end_encoded<run_ends: int32, values: string>");
    // Equality is by value: the same rows in other runs (one run per row) are equal.
    BatchMaker one_per_row(
        {MakeField("v", DataType::RunEndEncoded(DataType::Int32(), DataType::Utf8()))});
    for (size_t r = static_cast<size_t>(offset); r < kRunRows.size(); ++r) {
      if (kRunRows[r].has_value()) {
        one_per_row[0].child(1).AppendString(*kRunRows[r]);
        one_per_row[0].AppendValid();
      } else {
        one_per_row[0].AppendNull();
      }
    }
    std::string difference;
    EXPECT_TRUE(BatchesEqual(*int32, one_per_row.Finish(), &difference)) << difference;
  }
}

TEST(RunEndEncodedTest, MalformedRunsAreRefusedNamingTheColumn) {
  const auto refused = [](const RunLayout& layout, const std::string& expected) {
    CDataFactory factory;
    auto batch = ImportRunLayout<int32_t>(factory, "i", layout);
    ASSERT_FALSE(batch.ok()) << expected;
    EXPECT_NE(batch.status().message().find(expected), std::string::npos)
        << batch.status().ToString();
  };
  RunLayout layout;
  layout.run_ends = {99, 2, 2, 6, 7};
  refused(layout, "column 'v': run end 1 is 2, not above the run end before it, 2");
  layout = RunLayout{};
  layout.run_ends = {99, 0, 3, 6, 7};
  refused(layout, "column 'v': run end 0 is 0, not above zero");
  layout = RunLayout{};
  layout.length = 8;
  refused(layout, "column 'v': the runs cover 7 rows, fewer than offset + length 8");
  layout = RunLayout{};
  layout.run_ends_null_count = 1;
  refused(layout, "column 'v.run_ends': ArrowArray.buffers[0] (validity) is NULL");
  layout = RunLayout{};
  layout.null_count = 1;
  refused(layout, "a run_end_encoded array has no nulls of its own");
  layout = RunLayout{};
  layout.value_valid = {true, true, false, true};  // three values for four runs
  layout.value_offsets.pop_back();
  refused(layout, "column 'v': values has 3 entries, fewer than the 4 runs");

  // Run ends of a type Arrow does not allow.
  CDataFactory factory;
  SchemaNode* schema = factory.Schema(
      "+s", "", 0,
      {factory.Schema("+r", "v", ARROW_FLAG_NULLABLE,
                      {factory.Schema("c", "run_ends", 0), factory.Schema("u", "values")})});
  const Status status = ImportSchema(&schema->schema).status();
  EXPECT_NE(status.message().find("run_end_encoded run ends must be int16, int32 or int64"),
            std::string::npos)
      << status.ToString();
}

TEST(RunEndEncodedTest, SegmentsCarryTheRowsInTheRunsTheyFallIn) {
  for (const int64_t offset : {int64_t{0}, int64_t{1}, int64_t{4}}) {
    CDataFactory factory;
    auto batch = ImportRunLayout<int16_t>(factory, "s", RunLayout{}, offset);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (const CompressionCodec codec : {CompressionCodec::kNone, CompressionCodec::kLz4Frame}) {
      const AlignedBuffer bytes = testing::EncodedSegment(batch->schema(), {*batch}, codec);
      SegmentDecoder decoder;
      ASSERT_TRUE(decoder.Begin(bytes.data(), bytes.size(), nullptr, "segment").ok());
      auto decoded = decoder.Next();
      ASSERT_TRUE(decoded.ok() && decoded->has_value()) << decoded.status().ToString();
      std::string difference;
      EXPECT_TRUE(BatchesEqual(**decoded, *batch, &difference)) << difference;
      const ArrayData& column = (**decoded).column(0);
      ExpectRunRows(column, offset);
      // The gather keeps the runs: only those the view covers, cut at its start.
      const int64_t covered_runs = offset == 0 ? 4 : offset == 1 ? 4 : 2;
      EXPECT_EQ(column.children[0].length, covered_runs) << offset;
      EXPECT_EQ(column.children[1].length, covered_runs) << offset;
      EXPECT_EQ(column.offset, 0);
    }
  }
}

TEST(RunEndEncodedTest, ExportsWhatItImports) {
  for (const int64_t offset : {int64_t{0}, int64_t{4}}) {
    CDataFactory factory;
    auto batch = ImportRunLayout<int64_t>(factory, "l", RunLayout{}, offset);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ArrowSchema schema{};
    ArrowArray array{};
    ASSERT_TRUE(ExportSchema(*batch->schema(), &schema).ok());
    ASSERT_TRUE(ExportRecordBatch(*batch, &array).ok());
    EXPECT_STREQ(schema.children[0]->format, "+r");
    EXPECT_EQ(array.children[0]->n_buffers, 0);
    EXPECT_EQ(array.children[0]->offset, offset);
    auto imported_schema = ImportSchema(&schema);
    ASSERT_TRUE(imported_schema.ok());
    auto again = ImportRecordBatch(&array, *imported_schema);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    std::string difference;
    EXPECT_TRUE(BatchesEqual(*again, *batch, &difference)) << difference;
  }
}

}  // namespace
}  // namespace sluice
