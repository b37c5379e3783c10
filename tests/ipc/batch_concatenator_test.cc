#include "sluice/ipc/batch_concatenator.h"

#include <gtest/gtest.h>

#include <random>

#include "sluice/format/array_compare.h"
#include "sluice/format/array_validate.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

TEST(BatchConcatenatorTest, JoinsBatchesOfEveryType) {
  auto schema = testing::AllTypesSchema(3);
  auto concatenator = BatchConcatenator::Make(schema).ValueOrDie();
  std::vector<RecordBatch> inputs;
  for (int64_t rows : {5, 0, 1, 30, 7}) inputs.push_back(testing::RandomBatch(schema, rows, rows));
  inputs.push_back(testing::RandomBatch(schema, 40, 99).Slice(3, 20));
  std::vector<const RecordBatch*> pointers;
  for (const auto& input : inputs) pointers.push_back(&input);
  RecordBatch joined = concatenator->Concatenate(pointers).ValueOrDie();
  ASSERT_EQ(joined.num_rows(), 63);
  int64_t row = 0;
  for (const auto& input : inputs) {
    for (size_t c = 0; c < joined.num_columns(); ++c) {
      Status valid = ValidateArray(joined.column(c), schema->field(c).name);
      ASSERT_TRUE(valid.ok()) << valid.ToString();
      std::string difference;
      EXPECT_TRUE(
          ArraysEqual(input.column(c), joined.column(c).Slice(row, input.num_rows()), &difference))
          << "column " << c << difference;
    }
    row += input.num_rows();
  }
}

TEST(BatchConcatenatorTest, ResultOutlivesItsInputs) {
  auto schema = testing::AllTypesSchema(2);
  auto concatenator = BatchConcatenator::Make(schema).ValueOrDie();
  RecordBatch expected_first = testing::RandomBatch(schema, 10, 1);
  RecordBatch joined;
  {
    RecordBatch first = testing::RandomBatch(schema, 10, 1);
    RecordBatch second = testing::RandomBatch(schema, 10, 2);
    const RecordBatch* pointers[] = {&first, &second};
    joined = concatenator->Concatenate(pointers).ValueOrDie();
  }
  EXPECT_TRUE(BatchesEqual(expected_first, joined.Slice(0, 10)));
}

}  // namespace
}  // namespace sluice
