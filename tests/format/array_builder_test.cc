#include "sluice/format/array_builder.h"

#include <gtest/gtest.h>

#include "sluice/format/array_compare.h"
#include "sluice/format/array_validate.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

TEST(ArrayBuilderTest, BuildsInt32WithNulls) {
  auto type = DataType::Int32();
  ArrayBuilder builder(type.get());
  builder.Append<int32_t>(7);
  builder.AppendNull();
  builder.Append<int32_t>(-1);
  ArrayData array = builder.View();
  ASSERT_EQ(array.length, 3);
  EXPECT_EQ(array.null_count, 1);
  EXPECT_TRUE(array.IsValid(0));
  EXPECT_FALSE(array.IsValid(1));
  EXPECT_EQ(array.values<int32_t>()[0], 7);
  EXPECT_EQ(array.values<int32_t>()[2], -1);
}

TEST(ArrayBuilderTest, BuildsListOfStrings) {
  auto type = DataType::List(DataType::Utf8());
  ArrayBuilder builder(type.get());
  builder.child(0).AppendString("ab");
  builder.child(0).AppendString("");
  builder.AppendValid();
  builder.AppendNull();
  builder.child(0).AppendString("xyz");
  builder.AppendValid();
  ArrayData array = builder.View();
  ASSERT_EQ(array.length, 3);
  const int32_t* offsets = array.value_offsets<int32_t>();
  EXPECT_EQ(offsets[0], 0);
  EXPECT_EQ(offsets[1], 2);
  EXPECT_EQ(offsets[2], 2);
  EXPECT_EQ(offsets[3], 3);
  EXPECT_EQ(array.children[0].length, 3);
}

TEST(ArrayBuilderTest, FinishedBatchOutlivesBuilders) {
  auto schema = testing::AllTypesSchema(3);
  RecordBatch first = testing::RandomBatch(schema, 50, 1);
  RecordBatch second = testing::RandomBatch(schema, 50, 1);
  std::string difference;
  EXPECT_TRUE(BatchesEqual(first, second, &difference)) << difference;
  RecordBatch other = testing::RandomBatch(schema, 50, 2);
  EXPECT_FALSE(BatchesEqual(first, other));
}

TEST(ArrayBuilderTest, SliceKeepsStructChildrenAligned) {
  auto schema = testing::AllTypesSchema(2);
  RecordBatch batch = testing::RandomBatch(schema, 40, 3);
  RecordBatch sliced = batch.Slice(7, 20);
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    for (int64_t row = 0; row < 20; ++row) {
      ArrayData whole = batch.column(c).Slice(7 + row, 1);
      ArrayData part = sliced.column(c).Slice(row, 1);
      std::string difference;
      ASSERT_TRUE(ArraysEqual(whole, part, &difference)) << "column " << c << difference;
    }
  }
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Views: values of up to 12 bytes inline, longer ones in the one data buffer; ArraysEqual and
// ValidateArray read them by their bytes.
TEST(ArrayBuilderTest, BuildsViewsAndComparesThemByTheirBytes) {
  for (const TypePtr& type : {DataType::Utf8View(), DataType::BinaryView()}) {
    const SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{MakeField("v", type)});
    auto build = [&](std::string_view last) {
      auto builders = MakeBuilders(*schema);
      builders[0]->AppendString("inline");
      builders[0]->AppendNull();
      builders[0]->AppendString("a value longer than twelve bytes");
      builders[0]->AppendString(last);
      return FinishBatch(schema, builders);
    };
    const RecordBatch batch = build("another long value, 27 b");
    const ArrayData& column = batch.column(0);
    ASSERT_TRUE(ValidateArray(column, "v").ok());
    ASSERT_EQ(column.variadic_buffers.size(), 1u);
    EXPECT_EQ(column.view_value(0), "inline");
    EXPECT_EQ(column.view_value(2), "a value longer than twelve bytes");
    EXPECT_EQ(column.variadic_buffers[0].size, 32 + 24);
    EXPECT_TRUE(ArraysEqual(column, build("another long value, 27 b").column(0)));
    std::string difference;
    EXPECT_FALSE(ArraysEqual(column, build("another long value, 27 c").column(0), &difference));
    EXPECT_NE(difference.find("bytes differ"), std::string::npos) << difference;
    EXPECT_FALSE(ArraysEqual(column, build("short").column(0)));
  }
}

}  // namespace
}  // namespace sluice
