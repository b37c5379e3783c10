// Dictionary-encoded columns through SegmentEncoder and SegmentDecoder: each block is preceded by
// a DictionaryBatch of the values its rows use, and decodes to the same values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "sluice/ipc/batch_concatenator.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/ipc/segment_encoder.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

// A batch of one column "d" of `type` (a dictionary of utf8) whose dictionary holds
// `dictionary` and whose rows hold `indices` (-1 for a null row).
RecordBatch DictionaryBatchOf(const TypePtr& type, const std::vector<std::string>& dictionary,
                              const std::vector<int64_t>& indices) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("d", type)});
  ArrayBuilder builder(type.get());
  for (const std::string& value : dictionary) builder.child(0).AppendString(value);
  const int64_t width = BitWidth(*type->index_type()) / 8;
  for (const int64_t index : indices) {
    if (index < 0) {
      builder.AppendNull();
    } else if (width == 1) {
      builder.Append<int8_t>(static_cast<int8_t>(index));
    } else {
      builder.Append<int32_t>(static_cast<int32_t>(index));
    }
  }
  std::vector<MemoryOwner> owners;
  ArrayData column = builder.Finish(&owners);
  return RecordBatch(schema, static_cast<int64_t>(indices.size()), {std::move(column)},
                     std::move(owners));
}

struct DecodedDictionarySegment {
  std::vector<RecordBatch> batches;
  SegmentDecoderMetrics metrics;
};

DecodedDictionarySegment DecodeDictionarySegment(const AlignedBuffer& bytes) {
  SegmentDecoder decoder;
  DecodedDictionarySegment decoded;
  Status begun = decoder.Begin(bytes.data(), bytes.size(), nullptr, "test segment");
  EXPECT_TRUE(begun.ok()) << begun.ToString();
  while (true) {
    auto next = decoder.Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) break;
    decoded.batches.push_back(std::move(**next));
  }
  decoded.metrics = decoder.metrics();
  return decoded;
}

// Rows `rows[i]` of `batches[sources[i]]` encoded as one segment, one AppendRows call.
AlignedBuffer EncodeDictionaryRows(const std::vector<RecordBatch>& batches,
                                   const std::vector<uint32_t>& sources,
                                   const std::vector<uint32_t>& rows, CompressionCodec codec) {
  SegmentEncoderOptions options;
  options.codec = codec;
  auto encoder = SegmentEncoder::Make(batches.front().schema(), options).ValueOrDie();
  std::vector<const RecordBatch*> bound;
  for (const RecordBatch& batch : batches) bound.push_back(&batch);
  encoder->BindBatches(bound);
  AlignedBuffer bytes;
  const auto schema_message = encoder->schema_message();
  bytes.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  const Status appended =
      encoder->AppendRows(sources.data(), rows.data(), static_cast<int64_t>(rows.size()), &bytes);
  EXPECT_TRUE(appended.ok()) << appended.ToString();
  bytes.Append("\xff\xff\xff\xff\0\0\0\0", 8);
  return bytes;
}

// The rows a test selected, one batch of them, built value by value as the reference.
std::vector<std::string> DictionaryValuesOf(const RecordBatch& batch) {
  std::vector<std::string> values;
  const ArrayData& column = batch.column(0);
  for (int64_t row = 0; row < column.length; ++row) {
    if (column.IsNull(row)) {
      values.push_back("null");
      continue;
    }
    const ArrayData& dictionary = column.children[0];
    const int64_t index = DictionaryIndexAt(column, row);
    const auto* offsets = dictionary.value_offsets<int32_t>();
    values.emplace_back(reinterpret_cast<const char*>(dictionary.value_bytes()) + offsets[index],
                        static_cast<size_t>(offsets[index + 1] - offsets[index]));
  }
  return values;
}

class DictionarySegmentTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(DictionarySegmentTest, ABlockCarriesOnlyTheValuesItsRowsUse) {
  const TypePtr type = DataType::Dictionary(DataType::Int32(), DataType::Utf8());
  std::vector<std::string> dictionary;
  for (int i = 0; i < 1000; ++i) dictionary.push_back("value number " + std::to_string(i));
  const RecordBatch batch = DictionaryBatchOf(type, dictionary, {900, 5, -1, 900, 17, 5});
  const AlignedBuffer bytes = EncodeDictionaryRows({batch}, {0, 0, 0, 0}, {3, 1, 2, 0}, GetParam());
  const DecodedDictionarySegment decoded = DecodeDictionarySegment(bytes);
  ASSERT_EQ(decoded.batches.size(), 1u);
  EXPECT_EQ(decoded.metrics.blocks, 1);
  EXPECT_EQ(decoded.metrics.dictionary_batches, 1);
  const RecordBatch& out = decoded.batches[0];
  EXPECT_TRUE(out.schema()->field(0).type->Equals(*type));
  // Two distinct values, numbered in order of first use.
  EXPECT_EQ(out.column(0).children[0].length, 2);
  EXPECT_EQ(DictionaryValuesOf(out), (std::vector<std::string>{"value number 900", "value number 5",
                                                               "null", "value number 900"}));
  EXPECT_EQ(DictionaryIndexAt(out.column(0), 0), 0);
  EXPECT_EQ(DictionaryIndexAt(out.column(0), 1), 1);
  // A thousand values would be about 16 KB; the segment holds two.
  EXPECT_LT(bytes.size(), 2000);
}

TEST_P(DictionarySegmentTest, BatchesSharingADictionaryShareItsValues) {
  const TypePtr type = DataType::Dictionary(DataType::Int32(), DataType::Utf8());
  const RecordBatch first = DictionaryBatchOf(type, {"a", "b", "c"}, {0, 1, 2, 1});
  // The same dictionary memory under another batch (a producer's batches usually share it).
  RecordBatch second = first.Slice(1, 3);
  // (The bytes outlive the batches, which view them when there is no codec.)
  const AlignedBuffer bytes =
      EncodeDictionaryRows({first, second}, {0, 1, 0, 1}, {1, 0, 3, 1}, GetParam());
  const DecodedDictionarySegment decoded = DecodeDictionarySegment(bytes);
  ASSERT_EQ(decoded.batches.size(), 1u);
  EXPECT_EQ(decoded.batches[0].column(0).children[0].length, 2);  // "b" and "c"
  EXPECT_EQ(DictionaryValuesOf(decoded.batches[0]), (std::vector<std::string>{"b", "b", "b", "c"}));
}

// Two batches of 100 different values each under int8 indices: one block's dictionary would
// need 200 values, which int8 cannot number, so the rows go in two blocks, each with a
// dictionary of its own, and read back the same.
TEST_P(DictionarySegmentTest, DictionariesTooManyForTheIndexTypeSplitTheBlock) {
  const TypePtr type = DataType::Dictionary(DataType::Int8(), DataType::Utf8());
  std::vector<std::string> left;
  std::vector<std::string> right;
  std::vector<int64_t> indices;
  for (int i = 0; i < 100; ++i) {
    left.push_back("left " + std::to_string(i));
    right.push_back("right " + std::to_string(i));
    indices.push_back(i);
  }
  const std::vector<RecordBatch> batches = {DictionaryBatchOf(type, left, indices),
                                            DictionaryBatchOf(type, right, indices)};
  std::vector<uint32_t> sources;
  std::vector<uint32_t> rows;
  std::vector<std::string> expected;
  for (uint32_t i = 0; i < 100; ++i) {
    for (uint32_t source = 0; source < 2; ++source) {
      sources.push_back(source);
      rows.push_back(i);
      expected.push_back((source == 0 ? left : right)[i]);
    }
  }
  const AlignedBuffer bytes = EncodeDictionaryRows(batches, sources, rows, GetParam());
  const DecodedDictionarySegment decoded = DecodeDictionarySegment(bytes);
  ASSERT_GE(decoded.batches.size(), 2u);
  std::vector<std::string> values;
  for (const RecordBatch& batch : decoded.batches) {
    EXPECT_LE(batch.column(0).children[0].length, 128);
    for (std::string& value : DictionaryValuesOf(batch)) values.push_back(std::move(value));
  }
  EXPECT_EQ(values, expected);

  // Joining them again (the reader's coalescing) splits the same way.
  auto concatenator = BatchConcatenator::Make(batches[0].schema()).ValueOrDie();
  std::vector<const RecordBatch*> pointers = {&batches[0], &batches[1]};
  EXPECT_FALSE(concatenator->Concatenate(pointers).ok());
  EXPECT_TRUE(concatenator->dictionary_overflow());
  pointers.pop_back();
  auto joined = concatenator->Concatenate(pointers);
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  EXPECT_TRUE(BatchesEqual(*joined, batches[0]));
}

// A dictionary of more rows than a dense numbering table is made for (over 2^20) is numbered
// through a map of the rows used; the block carries those values.
TEST_P(DictionarySegmentTest, AHugeDictionaryIsNumberedByTheRowsItsBlockUses) {
  const TypePtr type = DataType::Dictionary(DataType::Int32(), DataType::Int64());
  auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("d", type)});
  const int64_t size = (int64_t{1} << 20) + 7;
  ArrayBuilder builder(type.get());
  for (int64_t value = 0; value < size; ++value) builder.child(0).Append<int64_t>(value * 3);
  for (const int32_t index :
       {static_cast<int32_t>(size - 1), 5, static_cast<int32_t>(size - 1), 0}) {
    builder.Append<int32_t>(index);
  }
  std::vector<MemoryOwner> owners;
  ArrayData column = builder.Finish(&owners);
  const RecordBatch batch(schema, 4, {std::move(column)}, std::move(owners));
  const AlignedBuffer bytes = EncodeDictionaryRows({batch}, {0, 0, 0, 0}, {0, 1, 2, 3}, GetParam());
  const DecodedDictionarySegment decoded = DecodeDictionarySegment(bytes);
  ASSERT_EQ(decoded.batches.size(), 1u);
  const ArrayData& out = decoded.batches[0].column(0);
  EXPECT_EQ(out.children[0].length, 3);
  const int64_t* values = out.children[0].values<int64_t>();
  std::vector<int64_t> got;
  for (int64_t row = 0; row < 4; ++row) got.push_back(values[DictionaryIndexAt(out, row)]);
  EXPECT_EQ(got, (std::vector<int64_t>{(size - 1) * 3, 15, (size - 1) * 3, 0}));
  EXPECT_LT(bytes.size(), 1000);
}

// Every dictionary column of the all-types schema (top level, in a list, of a struct) read back
// from gathered rows of several batches, each batch with dictionaries of its own.
TEST_P(DictionarySegmentTest, GatheredRowsOfEveryDictionaryColumnReadBack) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  std::vector<RecordBatch> batches;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    batches.push_back(testing::RandomBatch(schema, 60, 40 + seed, {.null_probability = 0.2}));
  }
  std::vector<uint32_t> sources;
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < 60; i += 3) {
    for (uint32_t source = 0; source < 3; ++source) {
      sources.push_back(source);
      rows.push_back(59 - i);
    }
  }
  const AlignedBuffer bytes = EncodeDictionaryRows(batches, sources, rows, GetParam());
  const DecodedDictionarySegment decoded = DecodeDictionarySegment(bytes);
  int64_t row = 0;
  for (const RecordBatch& batch : decoded.batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r, ++row) {
      const RecordBatch& input = batches[sources[static_cast<size_t>(row)]];
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        std::string difference;
        ASSERT_TRUE(ArraysEqual(input.column(c).Slice(rows[static_cast<size_t>(row)], 1),
                                batch.column(c).Slice(r, 1), &difference))
            << "row " << row << " column " << c << difference;
      }
    }
  }
  EXPECT_EQ(row, static_cast<int64_t>(rows.size()));
}

INSTANTIATE_TEST_SUITE_P(Codecs, DictionarySegmentTest,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

}  // namespace
}  // namespace sluice
