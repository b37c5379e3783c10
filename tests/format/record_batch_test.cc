// RecordBatch's storage hand-over: a producer takes an ended batch's vectors and builds the next
// batch in them, without copying or reallocating.
#include "sluice/format/record_batch.h"

#include <gtest/gtest.h>

#include "sluice/base/result.h"
#include "sluice/format/array_compare.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

SchemaPtr TwoColumns() {
  return std::make_shared<Schema>(
      std::vector<Field>{MakeField("a", DataType::Int32()), MakeField("s", DataType::Utf8())});
}

TEST(RecordBatchTest, StorageGoesBackAndForthWithoutReallocating) {
  const SchemaPtr schema = TwoColumns();
  RecordBatch ended = testing::RandomBatch(schema, 10, 1);
  const ArrayData* columns = ended.columns().data();
  ASSERT_FALSE(ended.owners().empty());

  RecordBatch::Storage storage = RecordBatch::TakeStorage(std::move(ended));
  EXPECT_EQ(ended.num_columns(), 0u);
  EXPECT_TRUE(ended.owners().empty());
  EXPECT_EQ(storage.columns.data(), columns);  // the elements stay, to be overwritten
  EXPECT_TRUE(storage.owners.empty());         // the memory they kept alive is released
  const size_t owner_capacity = storage.owners.capacity();

  // The next batch built in the same vectors.
  const RecordBatch source = testing::RandomBatch(schema, 7, 2);
  for (size_t c = 0; c < source.num_columns(); ++c) storage.columns[c] = source.column(c);
  storage.owners.assign(source.owners().begin(), source.owners().end());
  const RecordBatch next(schema, 7, std::move(storage));
  EXPECT_EQ(next.columns().data(), columns);
  EXPECT_GE(next.owners().capacity(), owner_capacity);
  EXPECT_TRUE(storage.columns.empty());
  EXPECT_TRUE(storage.owners.empty());
  std::string difference;
  EXPECT_TRUE(BatchesEqual(next, source, &difference)) << difference;
}

// Counts its moves, to show that Result(std::in_place, ...) builds its value where it lives.
struct Counted {
  explicit Counted(int value) : value(value) {}
  Counted(Counted&& other) noexcept : value(other.value), moves(other.moves + 1) {}
  int value;
  int moves = 0;
};

TEST(ResultTest, InPlaceBuildsTheValueWithoutAMove) {
  Result<Counted> in_place(std::in_place, 42);
  ASSERT_TRUE(in_place.ok());
  EXPECT_EQ(in_place.ValueUnsafe().value, 42);
  EXPECT_EQ(in_place.ValueUnsafe().moves, 0);
  Result<Counted> converted(Counted(42));
  EXPECT_EQ(converted.ValueUnsafe().moves, 1);
}

}  // namespace
}  // namespace sluice
