// sparse_union and dense_union end to end on hand-built layouts: type ids that are not the child
// indices, a view that starts past the first rows, dense offsets out of order and repeated, null
// values inside a child. Imported through the C Data interface, validated, encoded and decoded
// (the segment encoder's gather), exported again; malformed ids and offsets are refused naming
// the column and row.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/c_data_fixture.h"
#include "sluice/format/array_compare.h"
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

// Children "i" (int64, type id 5) and "f" (double, type id 2). Rows: i=10, f=1.5, i=null,
// f=2.5, i=13, i=10 (dense: the first value again).
struct UnionLayout {
  std::vector<int8_t> type_ids = {5, 2, 5, 2, 5, 5};
  std::vector<int32_t> dense_offsets = {0, 1, 2, 0, 3, 0};  // into i: 10, 99, null, 13
  int64_t null_count = 0;
};

// Builds a one-column batch of `layout` as a sparse or dense union through the C interface.
Result<RecordBatch> ImportUnion(CDataFactory& factory, bool dense, const UnionLayout& layout,
                                int64_t offset = 0) {
  const auto rows = static_cast<int64_t>(layout.type_ids.size());
  ArrayNode* ints = nullptr;
  ArrayNode* doubles = nullptr;
  if (dense) {
    ints = factory.Array(4,
                         {factory.Bitmap({true, true, false, true}),
                          factory.Buffer(std::vector<int64_t>{10, 99, 0, 13})},
                         {}, 1);
    doubles = factory.Array(2, {nullptr, factory.Buffer(std::vector<double>{2.5, 1.5})});
  } else {
    // Every child as long as the union; the slots a row does not select hold anything.
    ints = factory.Array(rows,
                         {factory.Bitmap({true, true, false, true, true, true}),
                          factory.Buffer(std::vector<int64_t>{10, -1, 0, -1, 13, 10})},
                         {}, 1);
    doubles =
        factory.Array(rows, {nullptr, factory.Buffer(std::vector<double>{0, 1.5, 0, 2.5, 0, 0})});
  }
  std::vector<const void*> buffers = {factory.Buffer(layout.type_ids)};
  if (dense) buffers.push_back(factory.Buffer(layout.dense_offsets));
  ArrayNode* column =
      factory.Array(rows - offset, buffers, {ints, doubles}, layout.null_count, offset);
  SchemaNode* schema =
      factory.Schema("+s", "", 0,
                     {factory.Schema(dense ? "+ud:5,2" : "+us:5,2", "u", ARROW_FLAG_NULLABLE,
                                     {factory.Schema("l", "i"), factory.Schema("g", "f")})});
  ArrayNode* root = factory.Array(rows - offset, {nullptr}, {column});
  SLUICE_ASSIGN_OR_RAISE(SchemaPtr imported, ImportSchema(&schema->schema));
  return ImportRecordBatch(&root->array, imported);
}

// The rows of UnionLayout from `first` on, built row by row as a union of `type`.
RecordBatch ExpectedUnionRows(const TypePtr& type, int64_t first) {
  BatchMaker maker({MakeField("u", type)});
  const std::vector<std::pair<int, std::optional<double>>> rows = {
      {0, 10}, {1, 1.5}, {0, std::nullopt}, {1, 2.5}, {0, 13}, {0, 10}};
  for (size_t r = static_cast<size_t>(first); r < rows.size(); ++r) {
    const auto [child, value] = rows[r];
    ArrayBuilder& builder = maker[0].child(static_cast<size_t>(child));
    if (!value.has_value()) {
      builder.AppendNull();
    } else if (child == 0) {
      builder.Append<int64_t>(static_cast<int64_t>(*value));
    } else {
      builder.Append<double>(*value);
    }
    maker[0].AppendUnion(static_cast<size_t>(child));
  }
  return maker.Finish();
}

TEST(UnionTest, ImportsBothModesWithTypeIdsThatAreNotChildIndices) {
  for (const bool dense : {false, true}) {
    for (const int64_t offset : {int64_t{0}, int64_t{2}}) {
      CDataFactory factory;
      auto batch = ImportUnion(factory, dense, UnionLayout{}, offset);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      const TypePtr& type = batch->schema()->field(0).type;
      EXPECT_EQ(type->ToString(),
                std::string(dense ? "dense" : "sparse") + "_union<i: int64=5, f: double=2>");
      std::string difference;
      EXPECT_TRUE(BatchesEqual(*batch, ExpectedUnionRows(type, offset), &difference)) << difference;
    }
  }
}

TEST(UnionTest, MalformedTypeIdsAndOffsetsAreRefusedNamingTheRow) {
  const auto refused = [](bool dense, const UnionLayout& layout, const std::string& expected) {
    CDataFactory factory;
    auto batch = ImportUnion(factory, dense, layout);
    ASSERT_FALSE(batch.ok()) << expected;
    EXPECT_NE(batch.status().message().find(expected), std::string::npos)
        << batch.status().ToString();
  };
  UnionLayout layout;
  layout.type_ids[3] = 3;
  refused(false, layout, "column 'u': row 3: type id 3 names no child");
  refused(true, layout, "column 'u': row 3: type id 3 names no child");
  layout = UnionLayout{};
  layout.dense_offsets[4] = 4;
  refused(true, layout, "column 'u': row 4: offset 4 is outside child 'i' of 4 rows");
  layout = UnionLayout{};
  layout.dense_offsets[1] = -1;
  refused(true, layout, "column 'u': row 1: offset -1 is outside child 'f' of 2 rows");
  layout = UnionLayout{};
  layout.null_count = 1;
  refused(true, layout, "a union has no nulls of its own");
}

TEST(UnionTest, SegmentsCarryTheRowsWithDenseOffsetsCountingUpPerChild) {
  for (const bool dense : {false, true}) {
    for (const int64_t offset : {int64_t{0}, int64_t{2}}) {
      CDataFactory factory;
      auto batch = ImportUnion(factory, dense, UnionLayout{}, offset);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      for (const CompressionCodec codec : {CompressionCodec::kNone, CompressionCodec::kZstd}) {
        const AlignedBuffer bytes = testing::EncodedSegment(batch->schema(), {*batch}, codec);
        SegmentDecoder decoder;
        ASSERT_TRUE(decoder.Begin(bytes.data(), bytes.size(), nullptr, "segment").ok());
        auto decoded = decoder.Next();
        ASSERT_TRUE(decoded.ok() && decoded->has_value()) << decoded.status().ToString();
        std::string difference;
        EXPECT_TRUE(BatchesEqual(**decoded, *batch, &difference)) << difference;
        const ArrayData& column = (**decoded).column(0);
        if (!dense) continue;
        // Written by the gather: each child holds the rows that select it, in order.
        std::vector<int64_t> next(2, 0);
        for (int64_t row = 0; row < column.length; ++row) {
          const auto [child, child_row] = UnionChildRow(column, row);
          EXPECT_EQ(child_row, next[static_cast<size_t>(child)]++) << row;
        }
        EXPECT_EQ(column.children[0].length, next[0]);
        EXPECT_EQ(column.children[1].length, next[1]);
      }
    }
  }
}

TEST(UnionTest, ExportsWhatItImports) {
  for (const bool dense : {false, true}) {
    CDataFactory factory;
    auto batch = ImportUnion(factory, dense, UnionLayout{}, 2);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ArrowSchema schema{};
    ArrowArray array{};
    ASSERT_TRUE(ExportSchema(*batch->schema(), &schema).ok());
    ASSERT_TRUE(ExportRecordBatch(*batch, &array).ok());
    EXPECT_STREQ(schema.children[0]->format, dense ? "+ud:5,2" : "+us:5,2");
    EXPECT_EQ(array.children[0]->n_buffers, dense ? 2 : 1);
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
