// list_view and large_list_view end to end on hand-built layouts a builder never makes: rows out
// of order, overlapping, empty, and null rows whose offsets and sizes are garbage. Imported
// through the C Data interface, validated, encoded and decoded, exported again, gathered by the
// map writer's gather (the segment encoder) and hashed as the list of the same elements.
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

// Child: 10, 11, 12, 13, 14, null. Rows: [12, 13], null (garbage entries), [10 .. 14]
// (overlapping the first), [], [13] (out of order), [14, null].
struct Layout {
  std::vector<int32_t> offsets = {2, 999, 0, 3, 3, 4};
  std::vector<int32_t> sizes = {2, -7, 5, 0, 1, 2};
  std::vector<bool> valid = {true, false, true, true, true, true};
};

// The rows of Layout as a list view built row by row (contiguous elements): the values.
RecordBatch ExpectedRows(const TypePtr& type) {
  BatchMaker maker({MakeField("v", type)});
  const std::vector<std::vector<std::optional<int64_t>>> rows = {
      {12, 13}, {}, {10, 11, 12, 13, 14}, {}, {13}, {14, std::nullopt}};
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r == 1) {
      maker[0].AppendNull();
      continue;
    }
    for (const auto& element : rows[r]) {
      if (element.has_value()) {
        maker[0].child(0).Append<int64_t>(*element);
      } else {
        maker[0].child(0).AppendNull();
      }
    }
    maker[0].AppendValid();
  }
  return maker.Finish();
}

template <typename Offset>
Result<RecordBatch> ImportLayout(CDataFactory& factory, const char* format, const Layout& layout,
                                 int64_t offset = 0) {
  std::vector<Offset> offsets(layout.offsets.begin(), layout.offsets.end());
  std::vector<Offset> sizes(layout.sizes.begin(), layout.sizes.end());
  ArrayNode* child = factory.Array(6,
                                   {factory.Bitmap({true, true, true, true, true, false}),
                                    factory.Buffer(std::vector<int64_t>{10, 11, 12, 13, 14, 0})},
                                   {}, 1);
  const auto length = static_cast<int64_t>(layout.offsets.size()) - offset;
  ArrayNode* column = factory.Array(
      length, {factory.Bitmap(layout.valid), factory.Buffer(offsets), factory.Buffer(sizes)},
      {child}, -1, offset);
  SchemaNode* schema =
      factory.Schema("+s", "", 0, {factory.Schema(format, "v", 2, {factory.Schema("l", "item")})});
  ArrayNode* root = factory.Array(length, {nullptr}, {column});
  return ImportRecordBatch(&root->array, ImportSchema(&schema->schema).ValueOrDie());
}

TEST(ListViewTest, ImportsOutOfOrderOverlappingRowsAndNullsWithGarbageEntries) {
  for (const bool large : {false, true}) {
    CDataFactory factory;
    auto batch = large ? ImportLayout<int64_t>(factory, "+vL", Layout{})
                       : ImportLayout<int32_t>(factory, "+vl", Layout{});
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    const TypePtr type =
        large ? DataType::LargeListView(DataType::Int64()) : DataType::ListView(DataType::Int64());
    EXPECT_EQ(batch->schema()->field(0).type->ToString(),
              large ? "large_list_view<item: int64>" : "list_view<item: int64>");
    std::string difference;
    EXPECT_TRUE(ArraysEqual(batch->column(0), ExpectedRows(type).column(0), &difference))
        << difference;
  }
}

TEST(ListViewTest, ARowOutsideItsChildIsRefusedNamingTheRow) {
  CDataFactory factory;
  Layout layout;
  layout.sizes[4] = 4;  // 3 + 4 > 6 elements
  auto batch = ImportLayout<int32_t>(factory, "+vl", layout);
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find(
                "column 'v': row 4: offset 3 and size 4 are outside the child's 6 elements"),
            std::string::npos)
      << batch.status().ToString();
  CDataFactory negative;
  layout = Layout{};
  layout.offsets[0] = -1;
  EXPECT_FALSE(ImportLayout<int32_t>(negative, "+vl", layout).ok());
}

TEST(ListViewTest, SegmentsCarryTheRowsWithTheirElementsLaidOutInOrder) {
  for (const bool large : {false, true}) {
    for (const int64_t offset : {int64_t{0}, int64_t{2}}) {
      CDataFactory factory;
      auto batch = large ? ImportLayout<int64_t>(factory, "+vL", Layout{}, offset)
                         : ImportLayout<int32_t>(factory, "+vl", Layout{}, offset);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      for (const CompressionCodec codec : {CompressionCodec::kNone, CompressionCodec::kLz4Frame}) {
        const AlignedBuffer bytes = testing::EncodedSegment(batch->schema(), {*batch}, codec);
        SegmentDecoder decoder;
        ASSERT_TRUE(decoder.Begin(bytes.data(), bytes.size(), nullptr, "segment").ok());
        auto decoded = decoder.Next();
        ASSERT_TRUE(decoded.ok() && decoded->has_value()) << decoded.status().ToString();
        std::string difference;
        EXPECT_TRUE(BatchesEqual(**decoded, *batch, &difference)) << difference;
        // Written by the gather: each row's elements after the last row's.
        const ArrayData& column = (**decoded).column(0);
        int64_t next = 0;
        for (int64_t row = 0; row < column.length; ++row) {
          const auto [start, size] = ListViewRange(column, row);
          EXPECT_EQ(start, next) << row;
          next += size;
        }
        EXPECT_EQ(column.children[0].length, next);
      }
    }
  }
}

TEST(ListViewTest, ExportsWhatItImports) {
  CDataFactory factory;
  auto batch = ImportLayout<int32_t>(factory, "+vl", Layout{});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ArrowSchema schema{};
  ArrowArray array{};
  ASSERT_TRUE(ExportSchema(*batch->schema(), &schema).ok());
  ASSERT_TRUE(ExportRecordBatch(*batch, &array).ok());
  EXPECT_STREQ(schema.children[0]->format, "+vl");
  auto imported_schema = ImportSchema(&schema);
  ASSERT_TRUE(imported_schema.ok());
  auto again = ImportRecordBatch(&array, *imported_schema);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  std::string difference;
  EXPECT_TRUE(BatchesEqual(*again, *batch, &difference)) << difference;
}

}  // namespace
}  // namespace sluice
