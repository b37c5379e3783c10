#include "sluice/row/spark_type.h"

#include <gtest/gtest.h>

#include <string>

#include "row/spark_random_schema.h"

namespace sluice {
namespace {

TEST(SparkTypeTest, MapsEveryArrowTypeSparkCarries) {
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Boolean()), SparkTypeId::kBoolean);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Int8()), SparkTypeId::kByte);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Int16()), SparkTypeId::kShort);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Int32()), SparkTypeId::kInt);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Int64()), SparkTypeId::kLong);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Float32()), SparkTypeId::kFloat);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Float64()), SparkTypeId::kDouble);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Date32()), SparkTypeId::kDate);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Timestamp(TimeUnit::kMicro, "UTC")), SparkTypeId::kTimestamp);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Timestamp(TimeUnit::kMicro, "Asia/Tokyo")),
            SparkTypeId::kTimestamp);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Timestamp(TimeUnit::kMicro)), SparkTypeId::kTimestampNtz);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Decimal128(38, 10)), SparkTypeId::kDecimal);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Utf8()), SparkTypeId::kString);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Binary()), SparkTypeId::kBinary);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Null()), SparkTypeId::kNull);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::List(DataType::Int32())), SparkTypeId::kArray);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Map(DataType::Utf8(), DataType::Int32())), SparkTypeId::kMap);
  EXPECT_EQ(*SparkTypeIdOf(*DataType::Struct({})), SparkTypeId::kStruct);
}

TEST(SparkTypeTest, RefusesTypesSparkRowsCannotCarry) {
  for (const TypePtr& type :
       {DataType::UInt8(), DataType::UInt16(), DataType::UInt32(), DataType::UInt64(),
        DataType::LargeUtf8(), DataType::LargeBinary(), DataType::FixedSizeBinary(16),
        DataType::LargeList(DataType::Int32()), DataType::Timestamp(TimeUnit::kSecond),
        DataType::Timestamp(TimeUnit::kMilli, "UTC"), DataType::Timestamp(TimeUnit::kNano)}) {
    EXPECT_TRUE(SparkTypeIdOf(*type).status().IsNotImplemented()) << type->ToString();
  }
}

TEST(SparkTypeTest, CheckNamesTheNestedFieldPath) {
  const Schema schema(
      {MakeField("ok", DataType::Int32()),
       MakeField("s", DataType::Struct({MakeField("l", DataType::List(DataType::UInt16()))}))});
  const Status status = CheckSparkSchema(schema);
  ASSERT_TRUE(status.IsNotImplemented());
  EXPECT_NE(status.message().find("field s.l.item"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("uint16"), std::string::npos) << status.message();
}

TEST(SparkTypeTest, WritesCatalogStrings) {
  const TypePtr type = DataType::Struct(
      {MakeField("a", DataType::Int32()),
       MakeField("b c", DataType::List(DataType::Decimal128(38, 10))),
       MakeField("m", DataType::Map(DataType::Utf8(), DataType::Timestamp(TimeUnit::kMicro))),
       MakeField("n", DataType::Null())});
  EXPECT_EQ(*SparkCatalogString(*type),
            "struct<a:int,`b c`:array<decimal(38,10)>,m:map<string,timestamp_ntz>,n:void>");
}

TEST(SparkTypeTest, ParsesCatalogStringsAndAliases) {
  EXPECT_TRUE((*ArrowTypeFromSparkCatalogString("bigint"))->Equals(*DataType::Int64()));
  EXPECT_TRUE((*ArrowTypeFromSparkCatalogString(" LONG "))->Equals(*DataType::Int64()));
  EXPECT_TRUE((*ArrowTypeFromSparkCatalogString("decimal"))->Equals(*DataType::Decimal128(10, 0)));
  EXPECT_TRUE((*ArrowTypeFromSparkCatalogString("timestamp"))
                  ->Equals(*DataType::Timestamp(TimeUnit::kMicro, "UTC")));
  auto parsed = ArrowTypeFromSparkCatalogString(
      "array< map<int, struct<`x``y`: string, z: decimal(5, 2)>> >");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const TypePtr expected = DataType::List(DataType::Map(
      DataType::Int32(), DataType::Struct({MakeField("x`y", DataType::Utf8()),
                                           MakeField("z", DataType::Decimal128(5, 2))})));
  EXPECT_TRUE((*parsed)->Equals(*expected)) << (*parsed)->ToString();
}

// Spark's ANSI intervals and TIME: every field range of a kind is one physical layout.
TEST(SparkTypeTest, ParsesIntervalsAndTimes) {
  for (const char* text : {"interval year to month", "interval year", "INTERVAL MONTH"}) {
    auto parsed = ArrowTypeFromSparkCatalogString(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_TRUE((*parsed)->Equals(*DataType::IntervalYearMonth())) << text;
  }
  for (const char* text : {"interval day to second", "interval day", "interval hour to minute",
                           "interval minute to second", "interval second"}) {
    auto parsed = ArrowTypeFromSparkCatalogString(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_TRUE((*parsed)->Equals(*DataType::Duration(TimeUnit::kMicro))) << text;
  }
  for (const char* text : {"time(6)", "time(0)", "time"}) {
    auto parsed = ArrowTypeFromSparkCatalogString(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_TRUE((*parsed)->Equals(*DataType::Time64(TimeUnit::kNano))) << text;
  }
  auto row = SchemaFromSparkCatalogString(
      "struct<a:interval year to month,b:array<interval day to second>,c:time(6)>");
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(*SparkCatalogString(*DataType::Struct((*row)->fields())),
            "struct<a:interval year to month,b:array<interval day to second>,c:time(6)>");
  // A bare "interval" is Spark's CalendarIntervalType: months, days and microseconds.
  auto calendar = ArrowTypeFromSparkCatalogString("interval");
  ASSERT_TRUE(calendar.ok()) << calendar.status().ToString();
  EXPECT_TRUE((*calendar)->Equals(*DataType::IntervalMonthDayNano()));
  EXPECT_EQ(*SparkTypeIdOf(**calendar), SparkTypeId::kCalendarInterval);
  EXPECT_EQ(*SparkCatalogString(*DataType::List(*calendar)), "array<interval>");
  // A variant's row bytes are a binary's.
  auto variant = ArrowTypeFromSparkCatalogString("struct<v:variant>");
  ASSERT_TRUE(variant.ok()) << variant.status().ToString();
  EXPECT_TRUE((*variant)->child_type(0).Equals(*DataType::Binary()));
  for (const char* text :
       {"interval second to day", "interval year to day", "interval week", "time(7)"}) {
    auto parsed = ArrowTypeFromSparkCatalogString(text);
    EXPECT_TRUE(parsed.status().IsInvalid()) << text;
  }
  EXPECT_TRUE(SparkTypeIdOf(*DataType::Duration(TimeUnit::kNano)).status().IsNotImplemented());
  EXPECT_TRUE(SparkTypeIdOf(*DataType::Time64(TimeUnit::kMicro)).status().IsNotImplemented());
}

TEST(SparkTypeTest, ReportsWhereACatalogStringIsWrong) {
  for (const char* text : {"array<int", "struct<a int>", "decimal(39,0)", "varchar(3)", "map<int>",
                           "int int", "struct<`a:int>"}) {
    auto parsed = ArrowTypeFromSparkCatalogString(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_TRUE(parsed.status().IsInvalid());
    EXPECT_NE(parsed.status().message().find("character"), std::string::npos);
  }
  EXPECT_TRUE(SchemaFromSparkCatalogString("int").status().IsInvalid());
}

TEST(SparkTypeTest, CatalogStringsRoundTripForRandomSchemas) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    const SchemaPtr schema = testing::RandomSparkSchema(rng, 3, 3);
    // Catalog strings carry no nullability: compare with everything made nullable.
    const TypePtr type = DataType::Struct(schema->fields());
    auto text = SparkCatalogString(*type);
    ASSERT_TRUE(text.ok());
    auto parsed = ArrowTypeFromSparkCatalogString(*text);
    ASSERT_TRUE(parsed.ok()) << *text << ": " << parsed.status().ToString();
    auto again = SparkCatalogString(**parsed);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *text);
  }
  auto schema = SchemaFromSparkCatalogString("struct<a:int,b:string>");
  ASSERT_TRUE(schema.ok());
  EXPECT_EQ((*schema)->num_fields(), 2u);
  EXPECT_EQ((*schema)->field(1).name, "b");
}

}  // namespace
}  // namespace sluice
