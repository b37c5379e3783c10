// Export of schemas and batches, and round trips export -> import over every type of the model.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "format/c_data_fixture.h"
#include "sluice/format/array_compare.h"
#include "sluice/format/c_data.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

using testing::FailsWith;

// Exports `batch` with its schema and imports both back.
Result<RecordBatch> RoundTrip(const RecordBatch& batch) {
  ArrowSchema c_schema{};
  ArrowArray c_array{};
  SLUICE_RETURN_NOT_OK(ExportSchema(*batch.schema(), &c_schema));
  Status exported = ExportRecordBatch(batch, &c_array);
  if (!exported.ok()) {
    c_schema.release(&c_schema);
    return exported;
  }
  return ImportRecordBatch(&c_array, &c_schema);
}

void ExpectRoundTrips(const RecordBatch& batch, const std::string& label) {
  Result<RecordBatch> imported = RoundTrip(batch);
  ASSERT_TRUE(imported.ok()) << label << ": " << imported.status().ToString();
  std::string difference;
  EXPECT_TRUE(BatchesEqual(batch, *imported, &difference)) << label << ": " << difference;
}

TEST(CDataExportTest, RoundTripsRandomBatchesOfAllTypes) {
  const SchemaPtr schema = testing::AllTypesSchema(3);
  for (const int64_t rows : {0, 1, 2, 37, 200}) {
    for (const uint64_t seed : {1u, 2u}) {
      ExpectRoundTrips(testing::RandomBatch(schema, rows, seed),
                       "rows " + std::to_string(rows) + " seed " + std::to_string(seed));
    }
  }
}

TEST(CDataExportTest, RoundTripsBatchesWithoutNullsAndAllNulls) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  testing::RandomBatchOptions options;
  options.null_probability = 0.0;
  ExpectRoundTrips(testing::RandomBatch(schema, 50, 3, options), "no nulls");
  options.null_probability = 1.0;
  ExpectRoundTrips(testing::RandomBatch(schema, 50, 4, options), "all nulls");
}

TEST(CDataExportTest, RoundTripsSlicedBatches) {
  const SchemaPtr schema = testing::AllTypesSchema(3);
  const RecordBatch batch = testing::RandomBatch(schema, 120, 5);
  const std::vector<std::pair<int64_t, int64_t>> slices = {
      {0, 120}, {1, 50}, {7, 9}, {8, 16}, {13, 0}, {119, 1}, {0, 1}, {61, 59}, {3, 117}};
  for (const auto& [start, count] : slices) {
    const RecordBatch sliced = batch.Slice(start, count);
    ExpectRoundTrips(sliced, "slice " + std::to_string(start) + "+" + std::to_string(count));
    // A slice of a slice accumulates offsets at every level.
    if (count > 4) ExpectRoundTrips(sliced.Slice(3, count - 4), "slice of slice");
  }
}

TEST(CDataExportTest, RoundTripsRandomSchemas) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 20; ++round) {
    const SchemaPtr schema = testing::RandomSchema(rng, 6, 3);
    testing::RandomBatchOptions options;
    options.null_probability = 0.3;
    const RecordBatch batch = testing::RandomBatch(schema, 40, rng(), options);
    ExpectRoundTrips(batch, "schema " + schema->ToString());
    ExpectRoundTrips(batch.Slice(5, 30), "sliced schema " + schema->ToString());
  }
}

TEST(CDataExportTest, RoundTripsSchemaWithMetadata) {
  const Schema schema({MakeField("a", DataType::Int32(), false),
                       MakeField("m", DataType::Map(DataType::Utf8(), DataType::Float64(), false,
                                                    /*keys_sorted=*/true))},
                      {{"origin", "sluice"}, {"empty", ""}, {std::string("nul\0key", 7), "v"}});
  ArrowSchema c_schema{};
  ASSERT_TRUE(ExportSchema(schema, &c_schema).ok());
  Result<SchemaPtr> imported = ImportSchema(&c_schema);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE((*imported)->Equals(schema, /*check_metadata=*/true)) << (*imported)->ToString();
  EXPECT_EQ(c_schema.release, nullptr);
}

// Field metadata (extension types among it) at every level of nesting comes back exactly, and
// an extension type is named in a field's text.
TEST(CDataExportTest, RoundTripsFieldMetadataAndExtensionTypes) {
  const SchemaPtr schema = testing::SchemaWithFieldMetadata();
  ArrowSchema c_schema{};
  ASSERT_TRUE(ExportSchema(*schema, &c_schema).ok());
  Result<SchemaPtr> imported = ImportSchema(&c_schema);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE((*imported)->Equals(*schema, /*check_metadata=*/true)) << (*imported)->ToString();
  EXPECT_EQ((*imported)->field(0).ToString(),
            "id: extension<arrow.uuid> storage fixed_size_binary[16] not null");

  Field without = schema->field(2);
  without.metadata.clear();
  EXPECT_FALSE(Schema({without}).Equals(Schema({schema->field(2)}), /*check_metadata=*/true));
  EXPECT_TRUE(Schema({without}).Equals(Schema({schema->field(2)})));
}

TEST(CDataExportTest, WritesSpecFormatStrings) {
  const std::vector<std::pair<TypePtr, std::string>> cases = {
      {DataType::Null(), "n"},
      {DataType::Boolean(), "b"},
      {DataType::Int8(), "c"},
      {DataType::UInt16(), "S"},
      {DataType::UInt64(), "L"},
      {DataType::Float32(), "f"},
      {DataType::Date32(), "tdD"},
      {DataType::Timestamp(TimeUnit::kSecond), "tss:"},
      {DataType::Timestamp(TimeUnit::kMicro, "Europe/Paris"), "tsu:Europe/Paris"},
      {DataType::Decimal128(38, 10), "d:38,10"},
      {DataType::LargeUtf8(), "U"},
      {DataType::Binary(), "z"},
      {DataType::FixedSizeBinary(5), "w:5"},
      {DataType::LargeList(DataType::Int8()), "+L"},
  };
  for (const auto& [type, format] : cases) {
    ArrowSchema c_schema{};
    ASSERT_TRUE(ExportType(*type, &c_schema).ok());
    EXPECT_EQ(std::string(c_schema.format), format);
    EXPECT_EQ(c_schema.metadata, nullptr);
    c_schema.release(&c_schema);
  }
}

TEST(CDataExportTest, ExportsFieldNamesFlagsAndMapLayout) {
  const Field field = MakeField(
      "prices", DataType::Map(DataType::Utf8(), DataType::Int64(), true, /*keys_sorted=*/true),
      false);
  ArrowSchema c_schema{};
  ASSERT_TRUE(ExportField(field, &c_schema).ok());
  EXPECT_STREQ(c_schema.format, "+m");
  EXPECT_STREQ(c_schema.name, "prices");
  EXPECT_EQ(c_schema.flags, ARROW_FLAG_MAP_KEYS_SORTED);
  ASSERT_EQ(c_schema.n_children, 1);
  const ArrowSchema& entries = *c_schema.children[0];
  EXPECT_STREQ(entries.format, "+s");
  EXPECT_STREQ(entries.name, "entries");
  EXPECT_EQ(entries.flags, 0);
  ASSERT_EQ(entries.n_children, 2);
  EXPECT_STREQ(entries.children[0]->name, "key");
  EXPECT_EQ(entries.children[0]->flags, 0);
  EXPECT_STREQ(entries.children[1]->format, "l");
  EXPECT_EQ(entries.children[1]->flags, ARROW_FLAG_NULLABLE);
  c_schema.release(&c_schema);
  EXPECT_EQ(c_schema.release, nullptr);
}

TEST(CDataExportTest, SchemaChildrenReleaseIndependently) {
  const Schema schema(
      {MakeField("a", DataType::List(DataType::Utf8())), MakeField("b", DataType::Int32())});
  ArrowSchema c_schema{};
  ASSERT_TRUE(ExportSchema(schema, &c_schema).ok());
  ArrowSchema moved = *c_schema.children[0];
  c_schema.children[0]->release = nullptr;
  c_schema.release(&c_schema);
  Result<Field> field = ImportField(&moved);
  ASSERT_TRUE(field.ok()) << field.status().ToString();
  EXPECT_TRUE(field->Equals(schema.field(0)));
}

TEST(CDataExportTest, ExportsZeroCopy) {
  const SchemaPtr schema = testing::AllTypesSchema(1);
  const RecordBatch batch = testing::RandomBatch(schema, 30, 8);
  ArrowArray c_array{};
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array).ok());
  ASSERT_EQ(c_array.n_children, static_cast<int64_t>(batch.num_columns()));
  EXPECT_EQ(c_array.length, 30);
  EXPECT_EQ(c_array.n_buffers, 1);
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    const ArrayData& column = batch.column(i);
    const ArrowArray& exported = *c_array.children[i];
    if (column.type->id() == TypeId::kNull) continue;
    for (int b = 1; b < BufferCount(column.type->id()); ++b) {
      if (column.buffers[static_cast<size_t>(b)].data == nullptr) continue;
      EXPECT_EQ(exported.buffers[b], column.buffers[static_cast<size_t>(b)].data)
          << "column " << i << " buffer " << b;
    }
  }
  c_array.release(&c_array);
  EXPECT_EQ(c_array.release, nullptr);
}

TEST(CDataExportTest, ExportedArrayKeepsTheBatchAlive) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  ArrowArray c_array{};
  {
    const RecordBatch batch = testing::RandomBatch(schema, 64, 9);
    ASSERT_TRUE(ExportRecordBatch(batch.Slice(3, 50), &c_array).ok());
  }  // the exported array now holds the only references to the batch's memory
  Result<RecordBatch> imported = ImportRecordBatch(&c_array, schema);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  const RecordBatch expected = testing::RandomBatch(schema, 64, 9).Slice(3, 50);
  std::string difference;
  EXPECT_TRUE(BatchesEqual(expected, *imported, &difference)) << difference;
}

// A struct of columns built by hand around child arrays moved out of an exported batch.
struct MovedColumns {
  ArrowArray root{};
  std::vector<ArrowArray> columns;
  std::vector<ArrowArray*> pointers;
  std::vector<const void*> buffers{nullptr};

  static void Release(ArrowArray* array) {
    auto* self = static_cast<MovedColumns*>(array->private_data);
    for (ArrowArray& column : self->columns) {
      if (column.release != nullptr) column.release(&column);
    }
    array->release = nullptr;
  }

  ArrowArray* Wrap(int64_t length) {
    for (ArrowArray& column : columns) pointers.push_back(&column);
    root.length = length;
    root.n_buffers = 1;
    root.buffers = buffers.data();
    root.n_children = static_cast<int64_t>(columns.size());
    root.children = pointers.data();
    root.release = Release;
    root.private_data = this;
    return &root;
  }
};

TEST(CDataExportTest, MovedOutChildrenOutliveTheirParent) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  MovedColumns moved;
  std::vector<Field> kept_fields;
  {
    const RecordBatch batch = testing::RandomBatch(schema, 45, 10);
    ArrowArray c_array{};
    ASSERT_TRUE(ExportRecordBatch(batch.Slice(5, 33), &c_array).ok());
    // Keep every third column: move it out, mark the original released, release the parent.
    for (int64_t i = 0; i < c_array.n_children; i += 3) {
      moved.columns.push_back(*c_array.children[i]);
      c_array.children[i]->release = nullptr;
      kept_fields.push_back(schema->field(static_cast<size_t>(i)));
    }
    c_array.release(&c_array);
  }
  auto kept_schema = std::make_shared<Schema>(kept_fields);
  Result<RecordBatch> imported = ImportRecordBatch(moved.Wrap(33), kept_schema);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  const RecordBatch expected = testing::RandomBatch(schema, 45, 10).Slice(5, 33);
  for (size_t k = 0; k < kept_fields.size(); ++k) {
    std::string difference;
    EXPECT_TRUE(ArraysEqual(expected.column(k * 3), imported->column(k), &difference))
        << kept_fields[k].name << difference;
  }
}

TEST(CDataExportTest, ExportsSlicedStructWithOffsetZero) {
  auto type =
      DataType::Struct({MakeField("x", DataType::Int32()), MakeField("y", DataType::Utf8())});
  auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("s", type)});
  testing::RandomBatchOptions options;
  options.null_probability = 0.5;
  const RecordBatch batch = testing::RandomBatch(schema, 40, 11, options).Slice(5, 20);
  ArrowArray c_array{};
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array).ok());
  const ArrowArray& s = *c_array.children[0];
  EXPECT_EQ(s.offset, 0);
  EXPECT_EQ(s.length, 20);
  EXPECT_EQ(s.null_count, batch.column(0).null_count);
  EXPECT_EQ(s.children[0]->offset, 5);
  EXPECT_EQ(s.children[0]->length, 20);
  Result<RecordBatch> imported = ImportRecordBatch(&c_array, schema);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  std::string difference;
  EXPECT_TRUE(BatchesEqual(batch, *imported, &difference)) << difference;
}

TEST(CDataExportTest, EmptyArraysGetOffsetBuffers) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  const RecordBatch batch = testing::RandomBatch(schema, 10, 12).Slice(10, 0);
  ArrowArray c_array{};
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array).ok());
  for (int64_t i = 0; i < c_array.n_children; ++i) {
    const ArrowArray& column = *c_array.children[i];
    EXPECT_EQ(column.length, 0);
    EXPECT_EQ(column.offset, 0);
    for (int64_t b = 1; b < column.n_buffers; ++b) {
      EXPECT_NE(column.buffers[b], nullptr) << "column " << i << " buffer " << b;
    }
  }
  c_array.release(&c_array);
}

TEST(CDataExportTest, RejectsBatchWhoseColumnsDisagreeWithItsRows) {
  const SchemaPtr schema = testing::AllTypesSchema(1);
  const RecordBatch batch = testing::RandomBatch(schema, 10, 13);
  const RecordBatch wrong(schema, 11, batch.columns(), batch.owners());
  ArrowArray c_array{};
  EXPECT_TRUE(FailsWith(ExportRecordBatch(wrong, &c_array), {"column 'c0'", "11 rows"}));
}

}  // namespace
}  // namespace sluice
