#include "sluice/row/row_to_columnar_converter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "row/spark_random_schema.h"
#include "row/unsafe_row_bytes.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "support/batch_maker.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

using testing::RowBytes;

using testing::MakeSchema;

Status AppendOne(RowToColumnarConverter& converter, const RowBytes& row) {
  const uint8_t* pointer = row.bytes().data();
  const int32_t size = row.size();
  return converter.Append(&pointer, &size, 1);
}

// Appends `row` to a fresh converter of `schema` and expects Corrupt mentioning every part of
// `expected` (such as "UnsafeRow 0" or "byte offset 16").
void ExpectCorrupt(const SchemaPtr& schema, const RowBytes& row,
                   const std::vector<std::string>& expected) {
  auto converter = RowToColumnarConverter::Make(schema).ValueOrDie();
  const Status status = AppendOne(*converter, row);
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  for (const std::string& part : expected) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "'" << part << "' not in: " << status.message();
  }
  EXPECT_EQ(converter->num_rows(), 0);
}

SchemaPtr StringSchema() {
  return MakeSchema({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8())});
}

// (1, "hello"): the fixed region is 24 bytes, the string at 24.
RowBytes HelloRow(uint64_t string_slot) {
  RowBytes row;
  row.Word(0).Word(1).Word(string_slot).Text("hello");
  return row;
}

TEST(RowToColumnarConverterTest, RejectsARowShorterThanItsFixedRegion) {
  RowBytes row;
  row.Word(0).Word(1);
  ExpectCorrupt(StringSchema(), row, {"UnsafeRow 0", "byte offset 0", "16 bytes", "24 bytes"});
}

TEST(RowToColumnarConverterTest, RejectsAStringPastTheEndOfTheRow) {
  ExpectCorrupt(StringSchema(), HelloRow(uint64_t{28} << 32 | 5),
                {"UnsafeRow 0", "column b", "byte offset 16", "offset 28 and size 5"});
}

TEST(RowToColumnarConverterTest, RejectsANegativeSizeAndANegativeOffset) {
  ExpectCorrupt(StringSchema(), HelloRow(uint64_t{24} << 32 | 0xffffffffu),
                {"byte offset 16", "size -1"});
  ExpectCorrupt(StringSchema(), HelloRow(uint64_t{0x80000000} << 32 | 5),
                {"byte offset 16", "offset -2147483648"});
}

TEST(RowToColumnarConverterTest, NamesTheBadRowOfABatch) {
  auto converter = RowToColumnarConverter::Make(StringSchema()).ValueOrDie();
  const RowBytes good = HelloRow(uint64_t{24} << 32 | 5);
  const RowBytes bad = HelloRow(uint64_t{24} << 32 | 50);
  // Enough rows for several chunks, the bad one far from the first.
  std::vector<const uint8_t*> rows(3000, good.bytes().data());
  std::vector<int32_t> sizes(3000, good.size());
  rows[2345] = bad.bytes().data();
  const Status status = converter->Append(rows.data(), sizes.data(), 3000);
  ASSERT_TRUE(status.IsCorrupt());
  EXPECT_NE(status.message().find("UnsafeRow 2345, column b, byte offset 16"), std::string::npos)
      << status.message();
}

TEST(RowToColumnarConverterTest, KeepsEarlierRowsAfterAFailedAppend) {
  auto converter = RowToColumnarConverter::Make(StringSchema()).ValueOrDie();
  const RowBytes good = HelloRow(uint64_t{24} << 32 | 5);
  const RowBytes bad = HelloRow(uint64_t{24} << 32 | 50);
  ASSERT_TRUE(AppendOne(*converter, good).ok());
  const uint8_t* rows[] = {good.bytes().data(), good.bytes().data(), bad.bytes().data()};
  const int32_t sizes[] = {good.size(), good.size(), bad.size()};
  EXPECT_TRUE(converter->Append(rows, sizes, 3).IsCorrupt());
  EXPECT_EQ(converter->num_rows(), 1);
  ASSERT_TRUE(AppendOne(*converter, good).ok());

  const SchemaPtr schema = StringSchema();
  auto builders = MakeBuilders(*schema);
  for (int i = 0; i < 2; ++i) {
    builders[0]->Append<int32_t>(1);
    builders[1]->AppendString("hello");
  }
  std::string difference;
  EXPECT_TRUE(BatchesEqual(converter->View(), FinishBatch(schema, builders), &difference))
      << difference;
}

TEST(RowToColumnarConverterTest, RejectsHugeElementCounts) {
  const SchemaPtr schema = MakeSchema({MakeField("a", DataType::List(DataType::Int32()))});
  for (const uint64_t count :
       {uint64_t{1} << 40, uint64_t{0x7fffffff}, ~uint64_t{0}, uint64_t{5}}) {
    RowBytes row;
    row.Word(0).OffsetAndSize(16, 32).Word(count).Word(0).Word(0).Word(0);
    ExpectCorrupt(schema, row, {"UnsafeRow 0", "column a", "byte offset 16"});
  }
}

TEST(RowToColumnarConverterTest, RejectsAnArrayTooSmallForItsCount) {
  const SchemaPtr schema = MakeSchema({MakeField("a", DataType::List(DataType::Int64()))});
  RowBytes row;
  row.Word(0).OffsetAndSize(16, 4).Word(0);
  ExpectCorrupt(schema, row, {"byte offset 8", "at least 8 bytes"});
}

TEST(RowToColumnarConverterTest, RejectsBadMaps) {
  const SchemaPtr schema =
      MakeSchema({MakeField("m", DataType::Map(DataType::Int64(), DataType::Int64()))});
  // The key array size runs past the map.
  RowBytes too_big;
  too_big.Word(0).OffsetAndSize(16, 56).Word(100).Word(1).Word(0).Word(7).Word(1).Word(0).Word(8);
  ExpectCorrupt(schema, too_big, {"byte offset 16", "key array of 100 bytes"});
  // Two keys, one value.
  RowBytes mismatched;
  mismatched.Word(0).OffsetAndSize(16, 64).Word(32).Word(2).Word(0).Word(7).Word(9);
  mismatched.Word(1).Word(0).Word(8);
  ExpectCorrupt(schema, mismatched, {"2 keys but 1 values"});
  // A null key.
  RowBytes null_key;
  null_key.Word(0).OffsetAndSize(16, 56).Word(24).Word(1).Word(1).Word(0).Word(1).Word(0).Word(8);
  ExpectCorrupt(schema, null_key, {"byte offset 24", "map key is null"});
}

TEST(RowToColumnarConverterTest, RejectsANestedRowSmallerThanItsFixedRegion) {
  const TypePtr pair =
      DataType::Struct({MakeField("x", DataType::Int64()), MakeField("y", DataType::Int64())});
  const SchemaPtr schema = MakeSchema({MakeField("s", pair)});
  RowBytes row;
  row.Word(0).OffsetAndSize(16, 16).Word(0).Word(1).Word(2);
  ExpectCorrupt(schema, row, {"column s", "byte offset 8", "at least 24 bytes"});
}

TEST(RowToColumnarConverterTest, RejectsDecimalsOfNoneOrTooManyBytes) {
  const SchemaPtr schema = MakeSchema({MakeField("d", DataType::Decimal128(38, 0))});
  RowBytes empty;
  empty.Word(0).OffsetAndSize(16, 0).Word(0).Word(0);
  ExpectCorrupt(schema, empty, {"column d", "byte offset 8"});
  RowBytes long_one;
  long_one.Word(0).OffsetAndSize(16, 17).Word(1).Word(2).Word(3);
  ExpectCorrupt(schema, long_one, {"17 bytes"});
}

// A calendar interval's microseconds become nanoseconds; more than month_day_nano's 2^63
// nanoseconds is refused by name, a size other than 16 bytes is corrupt.
TEST(RowToColumnarConverterTest, ReadsCalendarIntervalsAndRefusesTooLongOnes) {
  const SchemaPtr schema = testing::MakeSchema({MakeField("i", DataType::IntervalMonthDayNano())});
  auto convert = [&](int64_t microseconds, uint64_t size) -> Result<RecordBatch> {
    testing::RowBytes row;
    row.Word(0)
        .OffsetAndSize(16, size)
        .Word(uint64_t{2} | (uint64_t{5} << 32))
        .Word(static_cast<uint64_t>(microseconds));
    auto converter = RowToColumnarConverter::Make(schema).ValueOrDie();
    const uint8_t* pointer = row.bytes().data();
    const int32_t bytes = row.size();
    Status status = converter->Append(&pointer, &bytes, 1);
    if (!status.ok()) return status;
    return converter->Finish();
  };
  auto batch = convert(-123'456, 16);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const uint8_t* value = batch->column(0).buffers[1].data;
  int32_t months_days[2];
  int64_t nanoseconds = 0;
  std::memcpy(months_days, value, 8);
  std::memcpy(&nanoseconds, value + 8, 8);
  EXPECT_EQ(months_days[0], 2);
  EXPECT_EQ(months_days[1], 5);
  EXPECT_EQ(nanoseconds, -123'456'000);

  const int64_t too_long = std::numeric_limits<int64_t>::max() / 1000 + 1;
  const Status refused = convert(too_long, 16).status();
  EXPECT_TRUE(refused.IsInvalid()) << refused.ToString();
  EXPECT_NE(refused.message().find("UnsafeRow 0, column i: the calendar interval's " +
                                   std::to_string(too_long) + " microseconds do not fit"),
            std::string::npos)
      << refused.ToString();
  EXPECT_TRUE(convert(0, 8).status().IsCorrupt());
}

TEST(RowToColumnarConverterTest, RejectsValuesThatShareBytes) {
  // An array of 2000 strings that all point at the same 4000 bytes: honest rows never share
  // bytes, and copying them would turn a small row into 8 MB.
  const SchemaPtr schema = MakeSchema({MakeField("a", DataType::List(DataType::Utf8()))});
  const int64_t count = 2000;
  const int64_t header = 8 + 32 * 8;  // count + 32 null words
  const int64_t shared_offset = header + count * 8;
  RowBytes row;
  row.Word(0).OffsetAndSize(16, static_cast<uint64_t>(shared_offset + 4000)).Word(count);
  for (int i = 0; i < 32; ++i) row.Word(0);
  for (int64_t i = 0; i < count; ++i) row.OffsetAndSize(static_cast<uint64_t>(shared_offset), 4000);
  row.Padded(std::vector<uint8_t>(4000, 'x'));
  ExpectCorrupt(schema, row, {"overlapping"});
}

TEST(RowToColumnarConverterTest, ValidatesUtf8OnlyWhenAsked) {
  const SchemaPtr schema = MakeSchema({MakeField("l", DataType::List(DataType::Utf8()))});
  // Row 0: ["ok"]; row 1: ["fine", "\xc3("] (a lead byte without its continuation).
  RowBytes good;
  good.Word(0).OffsetAndSize(16, 32).Word(1).Word(0).OffsetAndSize(24, 2).Text("ok");
  RowBytes bad;
  bad.Word(0).OffsetAndSize(16, 48).Word(2).Word(0).OffsetAndSize(32, 4).OffsetAndSize(40, 2);
  bad.Text("fine").Padded({0xc3, '('});
  const uint8_t* rows[] = {good.bytes().data(), bad.bytes().data()};
  const int32_t sizes[] = {good.size(), bad.size()};

  auto trusting = RowToColumnarConverter::Make(schema).ValueOrDie();
  EXPECT_TRUE(trusting->Append(rows, sizes, 2).ok());

  auto checking = RowToColumnarConverter::Make(schema, {.validate_utf8 = true}).ValueOrDie();
  const Status status = checking->Append(rows, sizes, 2);
  ASSERT_TRUE(status.IsCorrupt()) << status.ToString();
  EXPECT_NE(status.message().find("UnsafeRow 1, column l.item"), std::string::npos)
      << status.message();
  EXPECT_EQ(checking->num_rows(), 0);
  EXPECT_TRUE(checking->Append(rows, sizes, 1).ok());
}

TEST(RowToColumnarConverterTest, AcceptsValidMultiByteUtf8) {
  const SchemaPtr schema = MakeSchema({MakeField("s", DataType::Utf8())});
  for (const std::string& text : {std::string("h\xc3\xa9llo w\xc3\xb6rld, \xe2\x82\xac"),
                                  std::string("\xf0\x9f\x98\x80 and plain ascii text")}) {
    RowBytes row;
    row.Word(0).OffsetAndSize(16, text.size()).Text(text);
    auto converter = RowToColumnarConverter::Make(schema, {.validate_utf8 = true}).ValueOrDie();
    EXPECT_TRUE(AppendOne(*converter, row).ok()) << text;
  }
  for (const std::string& text : {std::string("\xed\xa0\x80"), std::string("\xc0\xaf"),
                                  std::string("\xf4\x90\x80\x80"), std::string("ab\x80")}) {
    RowBytes row;
    row.Word(0).OffsetAndSize(16, text.size()).Text(text);
    auto converter = RowToColumnarConverter::Make(schema, {.validate_utf8 = true}).ValueOrDie();
    EXPECT_TRUE(AppendOne(*converter, row).IsCorrupt());
  }
}

TEST(RowToColumnarConverterTest, FinishedBatchOutlivesTheConverterAndResetReuses) {
  const SchemaPtr schema = testing::AllSparkTypesSchema();
  const RecordBatch expected = testing::RandomBatch(schema, 100, 5);
  const UnsafeRowBatch rows = testing::ToRows(expected);
  std::vector<const uint8_t*> pointers;
  rows.RowPointers(&pointers);
  RecordBatch finished;
  {
    auto converter = RowToColumnarConverter::Make(schema).ValueOrDie();
    ASSERT_TRUE(converter->Append(pointers.data(), rows.sizes.data(), 60).ok());
    converter->Reset();
    ASSERT_TRUE(converter->Append(pointers.data(), rows.sizes.data(), 100).ok());
    finished = converter->Finish();
    ASSERT_TRUE(converter->Append(pointers.data(), rows.sizes.data(), 10).ok());
    std::string difference;
    EXPECT_TRUE(BatchesEqual(converter->View(), expected.Slice(0, 10), &difference)) << difference;
  }
  std::string difference;
  EXPECT_TRUE(BatchesEqual(finished, expected, &difference)) << difference;
}

TEST(RowToColumnarConverterTest, RejectsTypesSparkCannotCarry) {
  const SchemaPtr schema = MakeSchema(
      {MakeField("m", DataType::Map(DataType::Int32(), DataType::LargeList(DataType::Int8())))});
  auto converter = RowToColumnarConverter::Make(schema);
  ASSERT_TRUE(converter.status().IsNotImplemented());
  EXPECT_NE(converter.status().message().find("m.entries.value"), std::string::npos)
      << converter.status().message();
}

// Mutates valid rows of every type at random (bit flips, overwritten words, truncation): every
// Append must either succeed or return Corrupt, never read outside the rows (run under ASan).
TEST(RowToColumnarConverterTest, SurvivesRandomCorruption) {
  const SchemaPtr schema = testing::AllSparkTypesSchema();
  const UnsafeRowBatch rows = testing::ToRows(testing::RandomBatch(schema, 40, 3));
  auto converter = RowToColumnarConverter::Make(schema).ValueOrDie();
  std::mt19937_64 rng(7);
  int corrupt = 0;
  for (int round = 0; round < 3000; ++round) {
    const int64_t index = static_cast<int64_t>(rng() % static_cast<uint64_t>(rows.num_rows()));
    std::vector<uint8_t> row = testing::RowAt(rows, index);
    switch (rng() % 4) {
      case 0:  // flip a bit
        row[rng() % row.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1: {  // overwrite a word with small or huge numbers
        const size_t word = (rng() % (row.size() / 8)) * 8;
        const uint64_t value = (rng() & 1) ? rng() : (rng() % 512) << ((rng() & 1) * 32);
        std::memcpy(row.data() + word, &value, 8);
        break;
      }
      case 2:  // truncate
        row.resize(rng() % row.size());
        break;
      default:  // several flips
        for (int i = 0; i < 8; ++i) row[rng() % row.size()] ^= static_cast<uint8_t>(rng());
        break;
    }
    // A copy of exactly the row's size, so ASan sees any read past its end.
    auto exact = std::make_unique<uint8_t[]>(row.size() + 1);
    std::memcpy(exact.get(), row.data(), row.size());
    const uint8_t* pointer = exact.get();
    const auto size = static_cast<int32_t>(row.size());
    const Status status = converter->Append(&pointer, &size, 1);
    if (!status.ok()) {
      // A flipped calendar interval may be a valid one too long for month_day_nano: refused.
      const bool too_long_interval =
          status.IsInvalid() &&
          status.message().find("do not fit month_day_nano_interval") != std::string::npos;
      ASSERT_TRUE(status.IsCorrupt() || too_long_interval) << status.ToString();
      ++corrupt;
    }
    if (converter->num_rows() > 100) converter->Reset();
  }
  EXPECT_GT(corrupt, 100);
}

}  // namespace
}  // namespace sluice
