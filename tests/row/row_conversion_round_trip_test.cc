// Property tests of the two row converters together, on random Spark schemas nested three deep
// with nulls at every level: columnar -> rows -> columnar gives the input back, and rows ->
// columnar -> rows gives the same bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "row/spark_random_schema.h"
#include "row/unsafe_row_bytes.h"
#include "sluice/format/array_compare.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/row_to_columnar_converter.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

bool SameRows(const UnsafeRowBatch& left, const UnsafeRowBatch& right, std::string* difference) {
  if (left.sizes != right.sizes) {
    *difference = "row sizes differ";
    return false;
  }
  for (int64_t i = 0; i < left.num_rows(); ++i) {
    if (std::memcmp(left.row(i), right.row(i), static_cast<size_t>(left.sizes[i])) != 0) {
      *difference = "row " + std::to_string(i) + " differs:\n" +
                    testing::HexWords(testing::RowAt(left, i)) + "vs\n" +
                    testing::HexWords(testing::RowAt(right, i));
      return false;
    }
  }
  return true;
}

// Runs both round trips on one batch.
void ExpectRoundTrips(const RecordBatch& batch) {
  SCOPED_TRACE(batch.schema()->ToString());
  const UnsafeRowBatch rows = testing::ToRows(batch);
  ASSERT_EQ(rows.num_rows(), batch.num_rows());

  auto back = testing::ToBatch(batch.schema(), rows, {.validate_utf8 = true});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  std::string difference;
  EXPECT_TRUE(BatchesEqual(*back, batch, &difference)) << difference;

  const UnsafeRowBatch again = testing::ToRows(*back);
  EXPECT_TRUE(SameRows(rows, again, &difference)) << difference;
}

TEST(RowConversionRoundTripTest, AllSparkTypesThreeDeep) {
  const SchemaPtr schema = testing::AllSparkTypesSchema();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    ExpectRoundTrips(testing::RandomBatch(schema, 300, seed));
  }
}

TEST(RowConversionRoundTripTest, RandomSchemasThreeDeep) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 60; ++round) {
    const SchemaPtr schema = testing::RandomSparkSchema(rng, 1 + static_cast<int>(rng() % 6), 3);
    testing::RandomBatchOptions options;
    options.null_probability = (round % 3) * 0.25;
    options.max_list_length = 1 + static_cast<int>(rng() % 5);
    ExpectRoundTrips(testing::RandomBatch(schema, 1 + static_cast<int64_t>(rng() % 400),
                                          static_cast<uint64_t>(round), options));
  }
}

TEST(RowConversionRoundTripTest, SlicesAndManyChunks) {
  const SchemaPtr schema = testing::AllSparkTypesSchema();
  const RecordBatch batch = testing::RandomBatch(schema, 1500, 9);
  auto converter = ColumnarToRowConverter::Make(schema).ValueOrDie();
  // Convert a middle range, straddling the converter's chunks, and compare with the slice.
  UnsafeRowBatch rows;
  ASSERT_TRUE(converter->Convert(batch, 77, 1000, &rows).ok());
  const RecordBatch slice = batch.Slice(77, 1000);
  std::string difference;
  EXPECT_TRUE(SameRows(rows, testing::ToRows(slice), &difference)) << difference;

  // Back to columns through several Appends.
  auto reader = RowToColumnarConverter::Make(schema).ValueOrDie();
  std::vector<const uint8_t*> pointers;
  rows.RowPointers(&pointers);
  for (int64_t start = 0; start < rows.num_rows(); start += 333) {
    const int64_t count = std::min<int64_t>(333, rows.num_rows() - start);
    ASSERT_TRUE(reader->Append(pointers.data() + start, rows.sizes.data() + start, count).ok());
  }
  EXPECT_TRUE(BatchesEqual(reader->Finish(), slice, &difference)) << difference;
  EXPECT_EQ(reader->num_rows(), 0);
}

TEST(RowConversionRoundTripTest, FramedStreamRoundTrip) {
  const SchemaPtr schema = testing::AllSparkTypesSchema();
  const RecordBatch batch = testing::RandomBatch(schema, 200, 17);
  const UnsafeRowBatch framed = testing::ToRows(batch, RowFraming::kSizePrefixed);
  std::vector<const uint8_t*> pointers;
  std::vector<int32_t> sizes;
  ASSERT_TRUE(SplitFramedRows(framed.bytes.data(), framed.bytes.size(), &pointers, &sizes).ok());
  ASSERT_EQ(sizes, framed.sizes);
  auto reader = RowToColumnarConverter::Make(schema).ValueOrDie();
  ASSERT_TRUE(reader->Append(pointers.data(), sizes.data(), batch.num_rows()).ok());
  std::string difference;
  EXPECT_TRUE(BatchesEqual(reader->View(), batch, &difference)) << difference;
}

}  // namespace
}  // namespace sluice
