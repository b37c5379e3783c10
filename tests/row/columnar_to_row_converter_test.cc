#include "sluice/row/columnar_to_row_converter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "row/unsafe_row_bytes.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "support/batch_maker.h"

namespace sluice {
namespace {

using testing::HexWords;
using testing::RowAt;
using testing::RowBytes;

using testing::MakeSchema;

// Converts a one-row batch built by `fill` and returns the row's bytes.
template <typename Fill>
std::vector<uint8_t> ConvertOneRow(const SchemaPtr& schema, Fill fill) {
  auto builders = MakeBuilders(*schema);
  fill(builders);
  RecordBatch batch = FinishBatch(schema, builders);
  UnsafeRowBatch rows = testing::ToRows(batch);
  EXPECT_EQ(rows.num_rows(), 1);
  return rows.num_rows() == 1 ? RowAt(rows, 0) : std::vector<uint8_t>{};
}

void ExpectBytes(const std::vector<uint8_t>& actual, const RowBytes& expected) {
  EXPECT_EQ(actual, expected.bytes()) << "actual:\n"
                                      << HexWords(actual) << "expected:\n"
                                      << HexWords(expected.bytes());
}

SchemaPtr VectorSchema() {
  return MakeSchema({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8()),
                     MakeField("c", DataType::Int64())});
}

void FillVectorRow(std::vector<std::unique_ptr<ArrayBuilder>>& builders) {
  builders[0]->Append<int32_t>(1);
  builders[1]->AppendString("hello");
  builders[2]->AppendNull();
}

TEST(ColumnarToRowConverterTest, ZeroExtendsNarrowValuesAndCanonicalisesNaN) {
  const SchemaPtr schema =
      MakeSchema({MakeField("b", DataType::Int8()), MakeField("i", DataType::Int32()),
                  MakeField("f", DataType::Float32()), MakeField("d", DataType::Float64()),
                  MakeField("t", DataType::Boolean())});
  const auto row = ConvertOneRow(schema, [](auto& builders) {
    builders[0]->template Append<int8_t>(-1);
    builders[1]->template Append<int32_t>(-2);
    uint32_t float_bits = 0x7fc12345;  // a NaN with a payload
    float value;
    std::memcpy(&value, &float_bits, 4);
    builders[2]->template Append<float>(value);
    builders[3]->template Append<double>(-std::numeric_limits<double>::quiet_NaN());
    builders[4]->template Append<bool>(true);
  });
  RowBytes expected;
  expected.Word(0).Word(0xff).Word(0xfffffffe).Word(0x7fc00000).Word(0x7ff8000000000000).Word(1);
  ExpectBytes(row, expected);
}

TEST(ColumnarToRowConverterTest, ConvertsASliceAndAppendsToTheOutput) {
  const SchemaPtr schema = MakeSchema({MakeField("s", DataType::Utf8())});
  auto builders = MakeBuilders(*schema);
  for (const char* text : {"zero", "one", "two", "three"}) builders[0]->AppendString(text);
  RecordBatch batch = FinishBatch(schema, builders).Slice(1, 3);
  auto converter = ColumnarToRowConverter::Make(schema).ValueOrDie();
  UnsafeRowBatch rows;
  ASSERT_TRUE(converter->Convert(batch, 1, 2, &rows).ok());
  ASSERT_TRUE(converter->Convert(batch, 0, 1, &rows).ok());
  ASSERT_EQ(rows.num_rows(), 3);
  RowBytes two;
  two.Word(0).OffsetAndSize(16, 3).Text("two");
  RowBytes three;
  three.Word(0).OffsetAndSize(16, 5).Text("three");
  RowBytes one;
  one.Word(0).OffsetAndSize(16, 3).Text("one");
  ExpectBytes(RowAt(rows, 0), two);
  ExpectBytes(RowAt(rows, 1), three);
  ExpectBytes(RowAt(rows, 2), one);
  EXPECT_EQ(rows.offsets, (std::vector<int64_t>{0, 24, 48}));
}

TEST(ColumnarToRowConverterTest, IgnoresTheChildRangeOfANullList) {
  // Arrow lets a null list entry cover child values; Spark writes nothing for it.
  const SchemaPtr schema = MakeSchema({MakeField("l", DataType::List(DataType::Utf8()))});
  auto builders = MakeBuilders(*schema);
  ArrayBuilder& strings = builders[0]->child(0);
  for (const char* text : {"a", "hidden", "b"}) strings.AppendString(text);
  builders[0]->AppendValid();
  RecordBatch built = FinishBatch(schema, builders);
  // Rewrite as three lists over the same child: [a], null covering [hidden], [b].
  const int32_t offsets[] = {0, 1, 2, 3};
  const uint8_t validity[] = {0x5};
  std::vector<ArrayData> columns = built.columns();
  columns[0].length = 3;
  columns[0].null_count = 1;
  columns[0].buffers[0] = BufferView{validity, 1};
  columns[0].buffers[1] = BufferView{reinterpret_cast<const uint8_t*>(offsets), 16};
  RecordBatch batch(schema, 3, columns, built.owners());
  UnsafeRowBatch rows = testing::ToRows(batch);
  ASSERT_EQ(rows.num_rows(), 3);
  RowBytes null_row;
  null_row.Word(0x1).Word(0);
  ExpectBytes(RowAt(rows, 1), null_row);
  RowBytes b_row;
  b_row.Word(0).OffsetAndSize(16, 32).Word(1).Word(0).OffsetAndSize(24, 1).Text("b");
  ExpectBytes(RowAt(rows, 2), b_row);
}

TEST(ColumnarToRowConverterTest, WritesRowsWithoutColumns) {
  const SchemaPtr schema = MakeSchema({});
  RecordBatch batch(schema, 3, {}, {});
  UnsafeRowBatch rows = testing::ToRows(batch);
  EXPECT_EQ(rows.sizes, (std::vector<int32_t>{0, 0, 0}));
}

TEST(ColumnarToRowConverterTest, RejectsTypesSparkCannotCarry) {
  for (const TypePtr& type :
       {DataType::UInt32(), DataType::LargeUtf8(), DataType::LargeBinary(),
        DataType::FixedSizeBinary(4), DataType::Timestamp(TimeUnit::kNano),
        DataType::LargeList(DataType::Int32()), DataType::List(DataType::UInt8())}) {
    const auto schema = MakeSchema({MakeField("bad", DataType::Struct({MakeField("x", type)}))});
    auto converter = ColumnarToRowConverter::Make(schema);
    ASSERT_FALSE(converter.ok()) << type->ToString();
    EXPECT_TRUE(converter.status().IsNotImplemented());
    EXPECT_NE(converter.status().message().find("bad.x"), std::string::npos)
        << converter.status().ToString();
  }
}

TEST(ColumnarToRowConverterTest, RejectsARangeOutsideTheBatchAndAnotherSchema) {
  const SchemaPtr schema = VectorSchema();
  auto builders = MakeBuilders(*schema);
  FillVectorRow(builders);
  RecordBatch batch = FinishBatch(schema, builders);
  auto converter = ColumnarToRowConverter::Make(schema).ValueOrDie();
  UnsafeRowBatch rows;
  EXPECT_TRUE(converter->Convert(batch, 0, 2, &rows).IsInvalid());
  EXPECT_TRUE(converter->Convert(batch, -1, 1, &rows).IsInvalid());
  auto other =
      ColumnarToRowConverter::Make(MakeSchema({MakeField("a", DataType::Int64())})).ValueOrDie();
  EXPECT_TRUE(other->Convert(batch, 0, 1, &rows).IsInvalid());
  EXPECT_EQ(rows.num_rows(), 0);
}

TEST(ColumnarToRowConverterTest, RejectsASmallDecimalBeyond64BitsAndKeepsTheOutput) {
  const SchemaPtr schema = MakeSchema({MakeField("d", DataType::Decimal128(18, 0))});
  auto builders = MakeBuilders(*schema);
  builders[0]->Append<__int128>(5);
  builders[0]->Append<__int128>(static_cast<__int128>(1) << 70);
  RecordBatch batch = FinishBatch(schema, builders);
  auto converter = ColumnarToRowConverter::Make(schema).ValueOrDie();
  UnsafeRowBatch rows;
  ASSERT_TRUE(converter->Convert(batch, 0, 1, &rows).ok());
  const Status status = converter->Convert(batch, 0, 2, &rows);
  EXPECT_TRUE(status.IsInvalid());
  EXPECT_NE(status.message().find("column d, value 1"), std::string::npos) << status.ToString();
  EXPECT_EQ(rows.num_rows(), 1);
  EXPECT_EQ(rows.bytes.size(), 16);
}

// A calendar interval is Spark's 16 bytes in the variable region: months and days in one word,
// microseconds in the next; a row reserves them for a null one too (UnsafeWriter.write with a
// null CalendarInterval), and the rows convert back to the same month_day_nano values.
TEST(ColumnarToRowConverterTest, WritesCalendarIntervalsAsSparkDoes) {
  const SchemaPtr schema = MakeSchema({MakeField("i", DataType::IntervalMonthDayNano())});
  struct MonthDayNano {
    int32_t months;
    int32_t days;
    int64_t nanoseconds;
  };
  auto builders = MakeBuilders(*schema);
  const MonthDayNano value{14, -3, -7'000};
  builders[0]->AppendBytes(&value, sizeof(value));
  builders[0]->AppendNull();
  RecordBatch batch = FinishBatch(schema, builders);
  UnsafeRowBatch rows = testing::ToRows(batch);
  ASSERT_EQ(rows.num_rows(), 2);
  RowBytes valid;
  valid.Word(0)
      .OffsetAndSize(16, 16)
      .Word(uint64_t{14} | (uint64_t{0xfffffffd} << 32))
      .Word(static_cast<uint64_t>(int64_t{-7}));
  ExpectBytes(RowAt(rows, 0), valid);
  RowBytes null;
  null.Word(1).OffsetAndSize(16, 16).Word(0).Word(0);
  ExpectBytes(RowAt(rows, 1), null);
  auto back = testing::ToBatch(schema, rows);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(ArraysEqual(back->column(0), batch.column(0)));
}

TEST(ColumnarToRowConverterTest, RefusesNanosecondsASparkIntervalCannotHold) {
  const SchemaPtr schema = MakeSchema({MakeField("i", DataType::IntervalMonthDayNano())});
  auto builders = MakeBuilders(*schema);
  const int64_t parts[2] = {0, 1'500};  // 1.5 microseconds
  builders[0]->AppendBytes(parts, sizeof(parts));
  RecordBatch batch = FinishBatch(schema, builders);
  auto converter = ColumnarToRowConverter::Make(schema).ValueOrDie();
  UnsafeRowBatch rows;
  const Status status = converter->Convert(batch, 0, 1, &rows);
  EXPECT_TRUE(status.IsInvalid()) << status.ToString();
  EXPECT_NE(status.message().find("column i, value 0: 1500 nanoseconds are not whole "
                                  "microseconds"),
            std::string::npos)
      << status.ToString();
  EXPECT_EQ(rows.num_rows(), 0);
}

}  // namespace
}  // namespace sluice
