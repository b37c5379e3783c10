// ValidateArray: accepts every array the builders make, rejects corrupted copies, names the path.
#include "sluice/format/array_validate.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "format/c_data_fixture.h"
#include "sluice/format/array_builder.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

using testing::FailsWith;

// A node of an array tree with the path ValidateArray names it by.
struct Node {
  ArrayData* array;
  std::string path;
};

void CollectNodes(ArrayData& array, const std::string& path, std::vector<Node>* nodes) {
  nodes->push_back(Node{&array, path});
  if (array.type->id() == TypeId::kDictionary) {
    CollectNodes(array.children[0], path + "[dictionary]", nodes);
    return;
  }
  for (size_t i = 0; i < array.children.size(); ++i) {
    CollectNodes(array.children[i], path + "." + array.type->children()[i].name, nodes);
  }
}

TEST(ArrayValidateTest, AcceptsRandomBatches) {
  const SchemaPtr schema = testing::AllTypesSchema(3);
  for (const int64_t rows : {0, 1, 50}) {
    const RecordBatch batch = testing::RandomBatch(schema, rows, 7);
    for (const RecordBatch& view : {batch, batch.Slice(rows / 3, rows - rows / 3)}) {
      for (size_t c = 0; c < view.num_columns(); ++c) {
        Status status = ValidateArray(view.column(c), schema->field(c).name);
        EXPECT_TRUE(status.ok()) << status.ToString();
      }
    }
  }
  std::mt19937_64 rng(3);
  for (int round = 0; round < 20; ++round) {
    const SchemaPtr random_schema = testing::RandomSchema(rng, 5, 3);
    const RecordBatch batch = testing::RandomBatch(random_schema, 30, rng());
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      Status status = ValidateArray(batch.column(c).Slice(4, 20), "c");
      EXPECT_TRUE(status.ok()) << random_schema->ToString() << status.ToString();
    }
  }
}

// Builder buffers are exactly as large as their arrays need, so shrinking any of them by one
// byte must be caught, at the path of the array it belongs to.
TEST(ArrayValidateTest, RejectsEveryShrunkBuffer) {
  const SchemaPtr schema = testing::AllTypesSchema(3);
  const RecordBatch batch = testing::RandomBatch(schema, 30, 8);
  int checked = 0;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    ArrayData pristine = batch.column(c);
    std::vector<Node> pristine_nodes;
    CollectNodes(pristine, schema->field(c).name, &pristine_nodes);
    for (size_t n = 0; n < pristine_nodes.size(); ++n) {
      for (size_t b = 0; b < 3; ++b) {
        const ArrayData& original = *pristine_nodes[n].array;
        if (original.length == 0 || original.buffers[b].size == 0) continue;
        ArrayData corrupted = batch.column(c);
        std::vector<Node> nodes;
        CollectNodes(corrupted, schema->field(c).name, &nodes);
        nodes[n].array->buffers[b].size -= 1;
        Status status = ValidateArray(corrupted, schema->field(c).name);
        EXPECT_TRUE(FailsWith(status, {"column '" + nodes[n].path + "'"}))
            << "buffer " << b << " of " << nodes[n].path;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(ArrayValidateTest, RejectsWrongNullCountAnywhere) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  testing::RandomBatchOptions options;
  options.null_probability = 0.3;
  const RecordBatch batch = testing::RandomBatch(schema, 40, 9, options);
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    ArrayData corrupted = batch.column(c);
    std::vector<Node> nodes;
    CollectNodes(corrupted, schema->field(c).name, &nodes);
    for (Node& node : nodes) {
      if (node.array->null_count == 0 || node.array->null_count == node.array->length) continue;
      const int64_t correct = node.array->null_count;
      node.array->null_count = correct - 1;
      EXPECT_TRUE(FailsWith(ValidateArray(corrupted, schema->field(c).name),
                            {"column '" + node.path + "'", "null_count"}));
      node.array->null_count = correct;
    }
  }
}

TEST(ArrayValidateTest, RejectsDecreasingOffsets) {
  auto type = DataType::Utf8();
  ArrayBuilder builder(type.get());
  for (const char* text : {"ab", "c", "", "defg"}) builder.AppendString(text);
  ArrayData array = builder.View();
  std::vector<int32_t> offsets = {0, 2, 3, 1, 7};
  array.buffers[1] = BufferView{reinterpret_cast<const uint8_t*>(offsets.data()), 20};
  EXPECT_TRUE(FailsWith(ValidateArray(array, "s"),
                        {"column 's'", "offsets decrease at row 2", "3 then 1"}));
}

TEST(ArrayValidateTest, RejectsNegativeFirstOffset) {
  auto type = DataType::LargeBinary();
  ArrayBuilder builder(type.get());
  builder.AppendString("xyz");
  ArrayData array = builder.View();
  std::vector<int64_t> offsets = {-1, 3};
  array.buffers[1] = BufferView{reinterpret_cast<const uint8_t*>(offsets.data()), 16};
  EXPECT_TRUE(FailsWith(ValidateArray(array, "b"), {"column 'b'", "negative", "-1"}));
}

TEST(ArrayValidateTest, RejectsListOffsetsPastTheChild) {
  auto type = DataType::List(DataType::Int32());
  ArrayBuilder builder(type.get());
  builder.child(0).Append<int32_t>(1);
  builder.child(0).Append<int32_t>(2);
  builder.AppendValid();
  ArrayData array = builder.View();
  array.children[0].length = 1;
  EXPECT_TRUE(FailsWith(ValidateArray(array, "l"), {"column 'l'", "last offset 2", "child (1)"}));
}

TEST(ArrayValidateTest, RejectsMissingBitmapWithNulls) {
  auto type = DataType::Int64();
  ArrayBuilder builder(type.get());
  builder.Append<int64_t>(1);
  builder.AppendNull();
  ArrayData array = builder.View();
  array.buffers[0] = BufferView{};
  EXPECT_TRUE(FailsWith(ValidateArray(array, "i"), {"column 'i'", "no validity bitmap"}));
}

TEST(ArrayValidateTest, RejectsStructChildOfAnotherLength) {
  auto type =
      DataType::Struct({MakeField("x", DataType::Int32()), MakeField("y", DataType::Int8())});
  ArrayBuilder builder(type.get());
  for (int i = 0; i < 3; ++i) {
    builder.child(0).Append<int32_t>(i);
    builder.child(1).Append<int8_t>(static_cast<int8_t>(i));
    builder.AppendValid();
  }
  ArrayData array = builder.View();
  array.children[1] = array.children[1].Slice(0, 2);
  EXPECT_TRUE(FailsWith(ValidateArray(array, "s"), {"column 's'", "'y' has length 2", "length 3"}));
}

TEST(ArrayValidateTest, NamesNestedPaths) {
  auto inner = DataType::Struct({MakeField("a", DataType::Int32())});
  auto type = DataType::Map(DataType::Utf8(), DataType::List(inner));
  ArrayBuilder builder(type.get());
  ArrayBuilder& entries = builder.child(0);
  entries.child(0).AppendString("k");
  ArrayBuilder& list = entries.child(1);
  list.child(0).child(0).Append<int32_t>(5);
  list.child(0).AppendValid();
  list.AppendValid();
  entries.AppendValid();
  builder.AppendValid();
  ArrayData array = builder.View();
  ASSERT_TRUE(ValidateArray(array, "c3").ok());
  array.children[0].children[1].children[0].children[0].buffers[1].size = 2;
  EXPECT_TRUE(FailsWith(ValidateArray(array, "c3"),
                        {"column 'c3.entries.value.item.a'", "values buffer has 2 bytes"}));
}

TEST(ArrayValidateTest, RejectsOverflowingOffsetAndLength) {
  auto type = DataType::Int64();
  ArrayBuilder builder(type.get());
  builder.Append<int64_t>(1);
  ArrayData array = builder.View();
  array.offset = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(FailsWith(ValidateArray(array, "o"), {"column 'o'", "overflows"}));
  array.offset = std::numeric_limits<int64_t>::max() / 16;
  EXPECT_TRUE(FailsWith(ValidateArray(array, "o"), {"column 'o'", "overflows"}));
  auto text_type = DataType::Utf8();
  ArrayBuilder text_builder(text_type.get());
  text_builder.AppendString("a");
  ArrayData text = text_builder.View();
  text.offset = std::numeric_limits<int64_t>::max() - 1;
  EXPECT_TRUE(FailsWith(ValidateArray(text, "t"), {"column 't'", "overflows"}));
}

TEST(ArrayValidateTest, RejectsNegativeLengthAndOffset) {
  auto type = DataType::Int32();
  ArrayBuilder builder(type.get());
  builder.Append<int32_t>(1);
  ArrayData array = builder.View();
  array.length = -1;
  EXPECT_TRUE(FailsWith(ValidateArray(array, "n"), {"column 'n'", "length is negative"}));
  array.length = 1;
  array.offset = -3;
  EXPECT_TRUE(FailsWith(ValidateArray(array, "n"), {"column 'n'", "offset is negative"}));
}

TEST(ArrayValidateTest, RejectsBuffersTheLayoutDoesNotHave) {
  auto type = DataType::Int32();
  ArrayBuilder builder(type.get());
  builder.Append<int32_t>(1);
  ArrayData array = builder.View();
  array.buffers[2] = array.buffers[1];
  EXPECT_TRUE(FailsWith(ValidateArray(array, "x"), {"column 'x'", "buffer 2 is set"}));
  array.buffers[2] = BufferView{nullptr, 8};
  EXPECT_TRUE(FailsWith(ValidateArray(array, "x"), {"column 'x'", "no data but a size"}));
}

TEST(ArrayValidateTest, RejectsNullArrayWithWrongNullCount) {
  auto type = DataType::Null();
  ArrayBuilder builder(type.get());
  builder.AppendNull();
  builder.AppendNull();
  ArrayData array = builder.View();
  ASSERT_TRUE(ValidateArray(array, "z").ok());
  array.null_count = 1;
  EXPECT_TRUE(FailsWith(ValidateArray(array, "z"), {"column 'z'", "null_count 1"}));
}

TEST(ArrayValidateTest, RejectsChildOfTheWrongType) {
  auto type = DataType::List(DataType::Int32());
  ArrayBuilder builder(type.get());
  builder.AppendValid();
  ArrayData array = builder.View();
  auto other = DataType::Int64();
  array.children[0].type = other.get();
  EXPECT_TRUE(FailsWith(ValidateArray(array, "l"), {"column 'l'", "has type int64"}));
}

TEST(ArrayValidateTest, AcceptsEmptyArraysWithoutOffsets) {
  auto type = DataType::Utf8();
  ArrayData array;
  array.type = type.get();
  EXPECT_TRUE(ValidateArray(array, "e").ok());
}

TEST(ArrayValidateTest, ReadsUnalignedOffsets) {
  // Offsets at an odd address: foreign memory need not be aligned, and reading it must not fault.
  std::vector<uint8_t> storage(1 + 3 * sizeof(int32_t));
  const int32_t offsets[] = {0, 1, 3};
  std::memcpy(storage.data() + 1, offsets, sizeof(offsets));
  const uint8_t bytes[] = {'a', 'b', 'c'};
  auto type = DataType::Binary();
  ArrayData array;
  array.type = type.get();
  array.length = 2;
  array.buffers[1] = BufferView{storage.data() + 1, 12};
  array.buffers[2] = BufferView{bytes, 3};
  EXPECT_TRUE(ValidateArray(array, "u").ok());
}

TEST(ArrayValidateTest, HugeFixedSizeBinaryWidthIsCheckedWithoutOverflow) {
  // BitWidth() was an int: a width above 2^28 bytes overflowed byte_width * 8 (the partition
  // reader's fuzzer reached it through a nested fixed_size_binary column).
  auto type = DataType::FixedSizeBinary(1 << 30);
  const uint8_t bytes[16] = {};
  ArrayData array;
  array.type = type.get();
  array.length = 1;
  array.buffers[1] = BufferView{bytes, sizeof(bytes)};
  Status status = ValidateArray(array, "w");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("values buffer"), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

// Strings are carried as bytes unless validate-utf8 asks: ValidateUtf8 then names the column,
// the value and the byte, also inside lists and structs, and only within the view.
TEST(ValidateUtf8Test, NamesTheColumnValueAndByte) {
  const auto list_of_struct =
      DataType::List(Field{"item", DataType::Struct({Field{"s", DataType::Utf8(), true}}), true});
  const auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field{"text", DataType::LargeUtf8(), true}, Field{"nested", list_of_struct, true}});
  auto builders = MakeBuilders(*schema);
  const std::string values[] = {"plain", "天地", "bad\xC3\x28", "also fine"};
  for (const std::string& value : values) {
    builders[0]->AppendBytes(value.data(), static_cast<int64_t>(value.size()));
    ArrayBuilder& element = builders[1]->child(0);
    element.child(0).AppendBytes(value.data(), static_cast<int64_t>(value.size()));
    element.AppendValid();
    builders[1]->AppendValid();
  }
  const RecordBatch batch = FinishBatch(schema, builders);
  Status text = ValidateUtf8(batch.column(0), "text");
  EXPECT_EQ(text.message(), "column 'text': value 2 is not valid UTF-8 (byte 3 of its 5)");
  Status nested = ValidateUtf8(batch.column(1), "nested");
  EXPECT_EQ(nested.message(),
            "column 'nested.item.s': value 2 is not valid UTF-8 (byte 3 of its 5)");
  // A view that leaves the bad value out is valid.
  EXPECT_TRUE(ValidateUtf8(batch.column(0).Slice(0, 2), "text").ok());
  EXPECT_TRUE(ValidateUtf8(batch.column(1).Slice(3, 1), "nested").ok());
  EXPECT_TRUE(ValidateUtf8(batch.column(0).Slice(3, 1), "text").ok());
}

}  // namespace
}  // namespace sluice
