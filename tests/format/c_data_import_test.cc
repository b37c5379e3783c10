// Import of hand-built C Data structs: types, offsets at every level, null counts, dictionaries,
// lifetimes, and one test per kind of malformed struct.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "format/c_data_fixture.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "sluice/format/c_data.h"
#include "sluice/format/dictionary_values.h"

namespace sluice {
namespace {

using testing::CDataFactory;
using testing::FailsWith;
using ArrayNode = CDataFactory::ArrayNode;
using SchemaNode = CDataFactory::SchemaNode;

// Wraps one column in the struct of columns a record batch is exported as, and imports it.
Result<RecordBatch> ImportColumn(CDataFactory& factory, SchemaNode* column_schema,
                                 ArrayNode* column, int64_t length, int64_t offset = 0) {
  SchemaNode* schema = factory.Schema("+s", "", 0, {column_schema});
  ArrayNode* root = factory.Array(length, {nullptr}, {column}, 0, offset);
  return ImportRecordBatch(&root->array, &schema->schema);
}

std::vector<std::optional<int32_t>> Int32Values(const ArrayData& array) {
  std::vector<std::optional<int32_t>> values;
  for (int64_t i = 0; i < array.length; ++i) {
    if (array.IsNull(i)) {
      values.push_back(std::nullopt);
    } else {
      values.push_back(array.values<int32_t>()[i]);
    }
  }
  return values;
}

std::vector<std::optional<std::string>> StringValues(const ArrayData& array) {
  std::vector<std::optional<std::string>> values;
  for (int64_t i = 0; i < array.length; ++i) {
    if (array.IsNull(i)) {
      values.push_back(std::nullopt);
    } else {
      const int32_t* offsets = array.value_offsets<int32_t>();
      values.emplace_back(
          std::string(reinterpret_cast<const char*>(array.value_bytes()) + offsets[i],
                      static_cast<size_t>(offsets[i + 1] - offsets[i])));
    }
  }
  return values;
}

// Appends `values` to a utf8 builder, std::nullopt as null.
void AppendStrings(ArrayBuilder& builder, const std::vector<std::optional<std::string>>& values) {
  for (const auto& value : values) {
    if (value) {
      builder.AppendString(*value);
    } else {
      builder.AppendNull();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas

TEST(CDataImportTest, ImportsEveryFormatOfTheModel) {
  struct Case {
    const char* format;
    TypePtr type;
  };
  const std::vector<Case> cases = {
      {"n", DataType::Null()},
      {"b", DataType::Boolean()},
      {"c", DataType::Int8()},
      {"C", DataType::UInt8()},
      {"s", DataType::Int16()},
      {"S", DataType::UInt16()},
      {"i", DataType::Int32()},
      {"I", DataType::UInt32()},
      {"l", DataType::Int64()},
      {"L", DataType::UInt64()},
      {"f", DataType::Float32()},
      {"g", DataType::Float64()},
      {"tdD", DataType::Date32()},
      {"tss:", DataType::Timestamp(TimeUnit::kSecond)},
      {"tsm:UTC", DataType::Timestamp(TimeUnit::kMilli, "UTC")},
      {"tsu:America/New_York", DataType::Timestamp(TimeUnit::kMicro, "America/New_York")},
      {"tsn:+01:00", DataType::Timestamp(TimeUnit::kNano, "+01:00")},
      {"d:11,2", DataType::Decimal128(11, 2)},
      {"d:38,-3,128", DataType::Decimal128(38, -3)},
      {"u", DataType::Utf8()},
      {"U", DataType::LargeUtf8()},
      {"z", DataType::Binary()},
      {"Z", DataType::LargeBinary()},
      {"w:5", DataType::FixedSizeBinary(5)},
  };
  for (const Case& test_case : cases) {
    CDataFactory factory;
    SchemaNode* node = factory.Schema(test_case.format, "x");
    Result<TypePtr> type = ImportType(&node->schema);
    ASSERT_TRUE(type.ok()) << test_case.format << ": " << type.status().ToString();
    EXPECT_TRUE((*type)->Equals(*test_case.type))
        << test_case.format << " gave " << (*type)->ToString();
    EXPECT_EQ(node->releases, 1);
  }
}

TEST(CDataImportTest, ImportsNestedFormatsWithNamesAndNullability) {
  CDataFactory factory;
  SchemaNode* list =
      factory.Schema("+l", "l", ARROW_FLAG_NULLABLE, {factory.Schema("i", "item", 0)});
  SchemaNode* large_list = factory.Schema("+L", "ll", 0, {factory.Schema("u", "element")});
  SchemaNode* entries = factory.Schema(
      "+s", "entries", 0, {factory.Schema("u", "key", 0), factory.Schema("g", "value")});
  SchemaNode* map =
      factory.Schema("+m", "m", ARROW_FLAG_NULLABLE | ARROW_FLAG_MAP_KEYS_SORTED, {entries});
  SchemaNode* root = factory.Schema("+s", "", 0, {list, large_list, map});
  CDataFactory::SetMetadata(root, {{"origin", "test"}, {"empty", ""}});
  Result<SchemaPtr> schema = ImportSchema(&root->schema);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const Schema expected(
      {MakeField("l", DataType::List(DataType::Int32(), false)),
       MakeField("ll", DataType::LargeList(MakeField("element", DataType::Utf8())), false),
       MakeField("m", DataType::Map(DataType::Utf8(), DataType::Float64(), true, true))},
      {{"origin", "test"}, {"empty", ""}});
  EXPECT_TRUE((*schema)->Equals(expected, /*check_metadata=*/true)) << (*schema)->ToString();
  EXPECT_EQ(root->releases, 1);
}

TEST(CDataImportTest, DictionaryFieldsGetTheDictionaryType) {
  CDataFactory factory;
  SchemaNode* field = factory.Schema("c", "d", ARROW_FLAG_NULLABLE, {}, factory.Schema("u"));
  Result<Field> imported = ImportField(&field->schema);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE(
      imported->Equals(MakeField("d", DataType::Dictionary(DataType::Int8(), DataType::Utf8()))));
  EXPECT_EQ(imported->type->ToString(), "dictionary<values=string, indices=int8, ordered=0>");
  SchemaNode* ordered = factory.Schema(
      "I", "o", ARROW_FLAG_NULLABLE | ARROW_FLAG_DICTIONARY_ORDERED, {}, factory.Schema("i"));
  Result<Field> imported_ordered = ImportField(&ordered->schema);
  ASSERT_TRUE(imported_ordered.ok()) << imported_ordered.status().ToString();
  EXPECT_EQ(imported_ordered->type->ToString(),
            "dictionary<values=int32, indices=uint32, ordered=1>");
}

TEST(CDataImportTest, RefusesDictionaryOfDictionaries) {
  CDataFactory factory;
  SchemaNode* field = factory.Schema("c", "d", ARROW_FLAG_NULLABLE, {},
                                     factory.Schema("i", "", 2, {}, factory.Schema("u")));
  EXPECT_TRUE(FailsWith(ImportField(&field->schema).status(),
                        {"column 'd'", "dictionary-encoded values is not supported"}));
}

TEST(CDataImportTest, RejectsUnknownFormatString) {
  CDataFactory factory;
  SchemaNode* root = factory.Schema("+s", "", 0, {factory.Schema("q", "a")});
  Status status = ImportSchema(&root->schema).status();
  EXPECT_TRUE(status.IsInvalid());
  EXPECT_TRUE(
      FailsWith(status, {"column 'a'", "ArrowSchema.format", "unknown format string \"q\""}));
  EXPECT_EQ(root->releases, 1);  // consumed even on failure
}

TEST(CDataImportTest, RejectsUnionFormatsWithBadTypeIds) {
  // Repeated, out of range, fewer or more than the children, not a number.
  for (const char* format : {"+us:0,0", "+ud:0,128", "+us:0", "+ud:0,1,2", "+us:a,1", "+ud:-1,2"}) {
    CDataFactory factory;
    SchemaNode* root = factory.Schema(
        "+s", "", 0,
        {factory.Schema(format, "col", 2, {factory.Schema("i", "a"), factory.Schema("u", "b")})});
    Status status = ImportSchema(&root->schema).status();
    EXPECT_TRUE(status.IsInvalid()) << format << ": " << status.ToString();
    EXPECT_TRUE(FailsWith(status, {"column 'col'", std::string("\"") + format + "\""}))
        << status.ToString();
  }
}

TEST(CDataImportTest, ImportsEveryTemporalHalfFloatAndDecimalFormat) {
  const std::vector<std::pair<const char*, TypePtr>> cases = {
      {"e", DataType::Float16()},
      {"tdD", DataType::Date32()},
      {"tdm", DataType::Date64()},
      {"tts", DataType::Time32(TimeUnit::kSecond)},
      {"ttm", DataType::Time32(TimeUnit::kMilli)},
      {"ttu", DataType::Time64(TimeUnit::kMicro)},
      {"ttn", DataType::Time64(TimeUnit::kNano)},
      {"tDs", DataType::Duration(TimeUnit::kSecond)},
      {"tDn", DataType::Duration(TimeUnit::kNano)},
      {"tiM", DataType::IntervalYearMonth()},
      {"tiD", DataType::IntervalDayTime()},
      {"tin", DataType::IntervalMonthDayNano()},
      {"d:9,2,32", DataType::Decimal32(9, 2)},
      {"d:18,-3,64", DataType::Decimal64(18, -3)},
      {"d:38,10", DataType::Decimal128(38, 10)},
      {"d:76,40,256", DataType::Decimal256(76, 40)},
  };
  for (const auto& [format, type] : cases) {
    CDataFactory factory;
    SchemaNode* root = factory.Schema("+s", "", 0, {factory.Schema(format, "col")});
    auto schema = ImportSchema(&root->schema);
    ASSERT_TRUE(schema.ok()) << format << ": " << schema.status().ToString();
    EXPECT_TRUE((*schema)->field(0).type->Equals(*type))
        << format << " gave " << (*schema)->field(0).type->ToString();
  }
}

TEST(CDataImportTest, ImportsFixedSizeLists) {
  CDataFactory factory;
  SchemaNode* root = factory.Schema(
      "+s", "", 0, {factory.Schema("+w:3", "triple", 2, {factory.Schema("f", "coordinate", 0)})});
  auto schema = ImportSchema(&root->schema);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_TRUE((*schema)->field(0).type->Equals(
      *DataType::FixedSizeList(MakeField("coordinate", DataType::Float32(), false), 3)));
  EXPECT_EQ((*schema)->field(0).type->ToString(), "fixed_size_list<coordinate: float not null>[3]");
}

TEST(CDataImportTest, RejectsMalformedParameterizedFormats) {
  for (const char* format :
       {"d:10",      "d:10,2,7",   "d:0,0", "d:39,1", "d:x,1", "d:1,2,128,4", "d:10,2,32",
        "d:19,2,64", "d:77,2,256", "w:",    "w:-1",   "tsx:",  "ts",          "ttx",
        "tDx",       "tix",        "td",    "+w:",    "+w:-2", "+w:x",        ""}) {
    CDataFactory factory;
    SchemaNode* root = factory.Schema("+s", "", 0, {factory.Schema(format, "p")});
    Status status = ImportSchema(&root->schema).status();
    EXPECT_TRUE(status.IsInvalid()) << format << ": " << status.ToString();
    EXPECT_TRUE(FailsWith(status, {"column 'p'", "ArrowSchema.format"}));
  }
}

TEST(CDataImportTest, RejectsMapChildThatIsNotAStructOfTwoFields) {
  CDataFactory factory;
  SchemaNode* entries = factory.Schema("+s", "entries", 0, {factory.Schema("u", "key", 0)});
  SchemaNode* root = factory.Schema("+s", "", 0, {factory.Schema("+m", "m", 2, {entries})});
  Status status = ImportSchema(&root->schema).status();
  EXPECT_TRUE(FailsWith(status, {"column 'm'", "struct of two fields"}));

  CDataFactory other;
  SchemaNode* not_struct =
      other.Schema("+s", "", 0, {other.Schema("+m", "m", 2, {other.Schema("i", "entries")})});
  EXPECT_TRUE(FailsWith(ImportSchema(&not_struct->schema).status(),
                        {"column 'm'", "struct of two fields"}));
}

TEST(CDataImportTest, RejectsWrongSchemaChildCount) {
  CDataFactory factory;
  SchemaNode* root = factory.Schema("+s", "", 0, {factory.Schema("+l", "l")});
  EXPECT_TRUE(FailsWith(ImportSchema(&root->schema).status(),
                        {"column 'l'", "ArrowSchema.n_children", "expected 1", "found 0"}));
}

TEST(CDataImportTest, RejectsSchemaThatIsNotAStruct) {
  CDataFactory factory;
  SchemaNode* root = factory.Schema("i", "");
  EXPECT_TRUE(FailsWith(ImportSchema(&root->schema).status(),
                        {"top-level struct", "expected \"+s\"", "found \"i\""}));
  EXPECT_EQ(root->releases, 1);
}

TEST(CDataImportTest, RejectsReleasedSchema) {
  CDataFactory factory;
  SchemaNode* child = factory.Schema("i", "a");
  SchemaNode* root = factory.Schema("+s", "", 0, {child});
  child->schema.release = nullptr;
  EXPECT_TRUE(FailsWith(ImportSchema(&root->schema).status(),
                        {"column 'a'", "ArrowSchema.release is NULL", "released"}));
  root->schema.release = nullptr;
  EXPECT_TRUE(FailsWith(ImportSchema(&root->schema).status(), {"already released"}));
}

TEST(CDataImportTest, NamesDeepFieldsByTheirPath) {
  CDataFactory factory;
  SchemaNode* inner =
      factory.Schema("+s", "b", 2, {factory.Schema("+l", "c", 2, {factory.Schema("?", "item")})});
  SchemaNode* root = factory.Schema("+s", "", 0, {factory.Schema("+s", "a", 2, {inner})});
  EXPECT_TRUE(FailsWith(ImportSchema(&root->schema).status(), {"column 'a.b.c.item'"}));
}

// ---------------------------------------------------------------------------------------------
// Arrays

TEST(CDataImportTest, ImportsInt32ColumnWithoutCopying) {
  CDataFactory factory;
  const void* values = factory.Buffer<int32_t>({7, -1, 42});
  ArrayNode* column = factory.Array(3, {nullptr, values});
  Result<RecordBatch> batch = ImportColumn(factory, factory.Schema("i", "a"), column, 3);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_rows(), 3);
  EXPECT_EQ(batch->column(0).buffers[1].data, values);
  EXPECT_EQ(Int32Values(batch->column(0)), (std::vector<std::optional<int32_t>>{7, -1, 42}));
}

TEST(CDataImportTest, ComputesNullCountWhenProducerSaysMinusOne) {
  CDataFactory factory;
  const void* validity = factory.Bitmap({true, false, true, false, true});
  const void* values = factory.Buffer<int32_t>({1, 0, 3, 0, 5});
  ArrayNode* column = factory.Array(5, {validity, values}, {}, /*null_count=*/-1);
  Result<RecordBatch> batch = ImportColumn(factory, factory.Schema("i", "a"), column, 5);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->column(0).null_count, 2);
  EXPECT_EQ(Int32Values(batch->column(0)),
            (std::vector<std::optional<int32_t>>{1, std::nullopt, 3, std::nullopt, 5}));
}

TEST(CDataImportTest, AcceptsNullValidityBuffer) {
  CDataFactory factory;
  ArrayNode* column =
      factory.Array(2, {nullptr, factory.Buffer<int32_t>({4, 5})}, {}, /*null_count=*/-1);
  Result<RecordBatch> batch = ImportColumn(factory, factory.Schema("i", "a"), column, 2);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->column(0).null_count, 0);
}

TEST(CDataImportTest, HonoursOffsetsAtEveryLevel) {
  // The batch struct has offset 1, which applies to every column. Column s (a struct at offset
  // 1) has child x at offset 2, so row i of s is slot 2 + i of its bitmap and slot 2 + 2 + i of
  // x. Column l (a list at offset 0, so slots 1..3) indexes a child at offset 1.
  CDataFactory factory;
  const void* x_values = factory.Buffer<int32_t>({0, 0, 0, 0, 10, 11, 12, 13});
  ArrayNode* x = factory.Array(6, {nullptr, x_values}, {}, 0, /*offset=*/2);
  const void* s_validity = factory.Bitmap({true, true, false, true, true});
  ArrayNode* s = factory.Array(4, {s_validity}, {x}, -1, /*offset=*/1);

  const void* l_offsets = factory.Buffer<int32_t>({0, 1, 3, 3, 6});
  const void* item_values = factory.Buffer<int32_t>({-9, 1, 2, 3, 4, 5, 6});
  ArrayNode* item = factory.Array(6, {nullptr, item_values}, {}, 0, /*offset=*/1);
  ArrayNode* l = factory.Array(4, {nullptr, l_offsets}, {item});

  const void* u_offsets = nullptr;
  const void* u_data = factory.Strings({"skip", "ab", "", "cde", "f"}, &u_offsets);
  ArrayNode* u = factory.Array(4, {nullptr, u_offsets, u_data}, {}, 0, /*offset=*/1);

  SchemaNode* schema = factory.Schema(
      "+s", "", 0,
      {factory.Schema("+s", "s", 2, {factory.Schema("i", "x")}),
       factory.Schema("+l", "l", 2, {factory.Schema("i", "item")}), factory.Schema("u", "u")});
  ArrayNode* root = factory.Array(3, {nullptr}, {s, l, u}, 0, /*offset=*/1);
  Result<RecordBatch> batch = ImportRecordBatch(&root->array, &schema->schema);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_rows(), 3);

  const ArrayData& s_view = batch->column(0);
  EXPECT_EQ(s_view.null_count, 1);
  EXPECT_FALSE(s_view.IsValid(0));  // bitmap slot 2
  EXPECT_TRUE(s_view.IsValid(1));
  EXPECT_TRUE(s_view.IsValid(2));
  EXPECT_EQ(Int32Values(s_view.children[0]), (std::vector<std::optional<int32_t>>{10, 11, 12}));

  // l rows are list slots 1..3 (offsets 1, 3, 3, 6): [2, 3], [], [4, 5, 6] of the child.
  auto type = batch->schema()->field(1).type;
  ArrayBuilder expected(type.get());
  for (int32_t value : {2, 3}) expected.child(0).Append<int32_t>(value);
  expected.AppendValid();
  expected.AppendValid();
  for (int32_t value : {4, 5, 6}) expected.child(0).Append<int32_t>(value);
  expected.AppendValid();
  std::string difference;
  EXPECT_TRUE(ArraysEqual(batch->column(1), expected.View(), &difference)) << difference;

  EXPECT_EQ(StringValues(batch->column(2)),
            (std::vector<std::optional<std::string>>{"", "cde", "f"}));
}

TEST(CDataImportTest, NullTypeHasAllNulls) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(4, {}, {}, 0);
  Result<RecordBatch> batch = ImportColumn(factory, factory.Schema("n", "z"), column, 4);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->column(0).null_count, 4);
  EXPECT_TRUE(batch->column(0).IsNull(3));
}

TEST(CDataImportTest, EmptyArraysMayOmitBuffers) {
  CDataFactory factory;
  ArrayNode* text = factory.Array(0, {nullptr, nullptr, nullptr}, {}, 0, /*offset=*/5);
  ArrayNode* item = factory.Array(0, {nullptr, nullptr});
  ArrayNode* list = factory.Array(0, {nullptr, nullptr}, {item});
  ArrayNode* ints = factory.Array(0, {nullptr, nullptr});
  SchemaNode* schema = factory.Schema(
      "+s", "", 0,
      {factory.Schema("u", "t"), factory.Schema("+l", "l", 2, {factory.Schema("i", "item")}),
       factory.Schema("i", "i")});
  ArrayNode* root = factory.Array(0, {nullptr}, {text, list, ints});
  Result<RecordBatch> batch = ImportRecordBatch(&root->array, &schema->schema);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(batch->num_rows(), 0);
  // An imported array always has its offsets: one zero offset here.
  ASSERT_NE(batch->column(0).buffers[1].data, nullptr);
  EXPECT_EQ(batch->column(0).value_offsets<int32_t>()[0], 0);
  EXPECT_EQ(batch->column(1).value_offsets<int32_t>()[0], 0);
}

// ---------------------------------------------------------------------------------------------
// Lifetimes

TEST(CDataImportTest, ReleasesOnceAfterTheLastView) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(3, {nullptr, factory.Buffer<int32_t>({1, 2, 3})});
  SchemaNode* schema_node = factory.Schema("+s", "", 0, {factory.Schema("i", "a")});
  Result<SchemaPtr> schema = ImportSchema(&schema_node->schema);
  ASSERT_TRUE(schema.ok());
  ArrayNode* root = factory.Array(3, {nullptr}, {column});
  std::optional<RecordBatch> batch;
  {
    Result<RecordBatch> imported = ImportRecordBatch(&root->array, *schema);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    batch = std::move(imported).ValueUnsafe();
  }
  EXPECT_EQ(root->array.release, nullptr);  // moved out of the caller's struct
  std::optional<RecordBatch> slice = batch->Slice(1, 2);
  std::optional<RecordBatch> copy = *batch;
  batch.reset();
  EXPECT_EQ(root->releases, 0);
  slice.reset();
  EXPECT_EQ(root->releases, 0);
  EXPECT_EQ(Int32Values(copy->column(0)), (std::vector<std::optional<int32_t>>{1, 2, 3}));
  copy.reset();
  EXPECT_EQ(root->releases, 1);
  EXPECT_EQ(column->releases, 1);  // released by its parent, never by the importer
}

TEST(CDataImportTest, ReleasesAtOnceWhenImportFails) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(-1, {nullptr, nullptr});
  SchemaNode* schema = factory.Schema("+s", "", 0, {factory.Schema("i", "a")});
  ArrayNode* root = factory.Array(0, {nullptr}, {column});
  EXPECT_FALSE(ImportRecordBatch(&root->array, &schema->schema).ok());
  EXPECT_EQ(root->releases, 1);
  EXPECT_EQ(schema->releases, 1);
}

// ---------------------------------------------------------------------------------------------
// Malformed arrays: one defect each

TEST(CDataImportTest, RejectsWrongBufferCount) {
  CDataFactory factory;
  const void* values = factory.Buffer<int32_t>({1});
  ArrayNode* column = factory.Array(1, {nullptr, values, values});
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 1).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.n_buffers", "expected 2", "found 3"}));
}

TEST(CDataImportTest, RejectsWrongChildCount) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(1, {nullptr, factory.Buffer<int32_t>({0, 0})});
  Status status =
      ImportColumn(factory, factory.Schema("+l", "l", 2, {factory.Schema("i", "item")}), column, 1)
          .status();
  EXPECT_TRUE(FailsWith(status, {"column 'l'", "ArrowArray.n_children", "expected 1", "found 0"}));
}

TEST(CDataImportTest, RejectsNegativeLength) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(-2, {nullptr, factory.Buffer<int32_t>({1})});
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 0).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.length", "expected >= 0", "found -2"}));
}

TEST(CDataImportTest, RejectsNegativeOffset) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(1, {nullptr, factory.Buffer<int32_t>({1})}, {}, 0, -1);
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 1).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.offset", "found -1"}));
}

TEST(CDataImportTest, RejectsBadNullCount) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(1, {nullptr, factory.Buffer<int32_t>({1})}, {}, -5);
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 1).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.null_count", "found -5"}));
}

TEST(CDataImportTest, RejectsNullCountThatDisagreesWithTheBitmap) {
  CDataFactory factory;
  ArrayNode* column =
      factory.Array(3, {factory.Bitmap({true, false, true}), factory.Buffer<int32_t>({1, 2, 3})},
                    {}, /*null_count=*/2);
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 3).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "null_count is 2", "1 nulls"}));
}

TEST(CDataImportTest, RejectsMissingValuesBuffer) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(2, {nullptr, nullptr});
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 2).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.buffers[1]", "NULL"}));
}

TEST(CDataImportTest, RejectsMissingValidityWhenThereAreNulls) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(2, {nullptr, factory.Buffer<int32_t>({1, 2})}, {}, 1);
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 2).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.buffers[0]", "null_count is 1"}));
}

TEST(CDataImportTest, RejectsDecreasingOffsets) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(3, {nullptr, factory.Buffer<int32_t>({0, 3, 2, 5}),
                                        factory.Buffer<char>({'a', 'b', 'c', 'd', 'e'})});
  Status status = ImportColumn(factory, factory.Schema("u", "s"), column, 3).status();
  EXPECT_TRUE(FailsWith(status, {"column 's'", "offsets decrease at row 1", "3 then 2"}));
}

TEST(CDataImportTest, RejectsNegativeFirstOffset) {
  CDataFactory factory;
  ArrayNode* item = factory.Array(4, {nullptr, factory.Buffer<int32_t>({1, 2, 3, 4})});
  ArrayNode* column = factory.Array(1, {nullptr, factory.Buffer<int32_t>({-1, 2})}, {item});
  Status status =
      ImportColumn(factory, factory.Schema("+l", "l", 2, {factory.Schema("i", "item")}), column, 1)
          .status();
  EXPECT_TRUE(FailsWith(status, {"column 'l'", "negative"}));
}

TEST(CDataImportTest, RejectsLastOffsetPastTheChildLength) {
  CDataFactory factory;
  ArrayNode* item = factory.Array(4, {nullptr, factory.Buffer<int32_t>({1, 2, 3, 4})});
  ArrayNode* column = factory.Array(2, {nullptr, factory.Buffer<int32_t>({0, 2, 9})}, {item});
  Status status =
      ImportColumn(factory, factory.Schema("+l", "l", 2, {factory.Schema("i", "item")}), column, 2)
          .status();
  EXPECT_TRUE(FailsWith(status, {"column 'l'", "last offset 9", "child (4)"}));
}

TEST(CDataImportTest, RejectsReleasedChild) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(1, {nullptr, factory.Buffer<int32_t>({1})});
  column->array.release = nullptr;
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 1).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.release is NULL", "released"}));
}

TEST(CDataImportTest, RejectsReleasedBatch) {
  CDataFactory factory;
  ArrayNode* root = factory.Array(0, {nullptr});
  root->array.release = nullptr;
  SchemaNode* schema = factory.Schema("+s", "", 0);
  Result<SchemaPtr> imported = ImportSchema(&schema->schema);
  ASSERT_TRUE(imported.ok());
  EXPECT_TRUE(FailsWith(ImportRecordBatch(&root->array, *imported).status(),
                        {"top-level struct", "ArrowArray.release is NULL"}));
}

TEST(CDataImportTest, RejectsStructChildShorterThanTheParent) {
  CDataFactory factory;
  ArrayNode* x = factory.Array(2, {nullptr, factory.Buffer<int32_t>({1, 2})});
  ArrayNode* s = factory.Array(2, {nullptr}, {x}, 0, /*offset=*/1);
  Status status =
      ImportColumn(factory, factory.Schema("+s", "s", 2, {factory.Schema("i", "x")}), s, 2)
          .status();
  EXPECT_TRUE(
      FailsWith(status, {"column 's.x'", "ArrowArray.length", "offset 1 + length 2", "found 2"}));
}

TEST(CDataImportTest, RejectsColumnShorterThanTheBatch) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(2, {nullptr, factory.Buffer<int32_t>({1, 2})});
  Status status = ImportColumn(factory, factory.Schema("i", "a"), column, 3).status();
  EXPECT_TRUE(FailsWith(status, {"column 'a'", "ArrowArray.length"}));
}

TEST(CDataImportTest, RejectsTopLevelNulls) {
  CDataFactory factory;
  ArrayNode* column = factory.Array(2, {nullptr, factory.Buffer<int32_t>({1, 2})});
  SchemaNode* schema = factory.Schema("+s", "", 0, {factory.Schema("i", "a")});
  ArrayNode* root = factory.Array(2, {factory.Bitmap({true, false})}, {column}, -1);
  EXPECT_TRUE(FailsWith(ImportRecordBatch(&root->array, &schema->schema).status(),
                        {"top-level struct", "1 null rows"}));
}

TEST(CDataImportTest, NamesDeepArraysByTheirPath) {
  CDataFactory factory;
  ArrayNode* key = factory.Array(1, {nullptr, factory.Buffer<int32_t>({0, 1}), nullptr});
  ArrayNode* value = factory.Array(1, {nullptr, factory.Buffer<int32_t>({1})});
  ArrayNode* entries = factory.Array(1, {nullptr}, {key, value});
  ArrayNode* map = factory.Array(1, {nullptr, factory.Buffer<int32_t>({0, 1})}, {entries});
  SchemaNode* entries_schema = factory.Schema(
      "+s", "entries", 0, {factory.Schema("u", "key", 0), factory.Schema("i", "value")});
  Status status =
      ImportColumn(factory, factory.Schema("+m", "c3", 2, {entries_schema}), map, 1).status();
  EXPECT_TRUE(
      FailsWith(status, {"column 'c3.entries.key'", "ArrowArray.buffers[2] (data) is NULL"}));
}

// ---------------------------------------------------------------------------------------------
// Dictionaries

// A batch's dictionary columns unpacked to their values.
RecordBatch Unpacked(const RecordBatch& batch) {
  Result<RecordBatch> unpacked = UnpackDictionaries(batch, UnpackedSchema(batch.schema()));
  EXPECT_TRUE(unpacked.ok()) << unpacked.status().ToString();
  return unpacked.ok() ? *unpacked : batch;
}

TEST(CDataImportTest, KeepsInt8IndicesOverUtf8) {
  CDataFactory factory;
  const void* dictionary_offsets = nullptr;
  const void* dictionary_data = factory.Strings({"red", "green", "blue"}, &dictionary_offsets);
  ArrayNode* dictionary = factory.Array(3, {nullptr, dictionary_offsets, dictionary_data});
  const void* validity = factory.Bitmap({true, true, false, true, true, true});
  const void* indices = factory.Buffer<int8_t>({0, 2, 99, 1, 1, 0});
  ArrayNode* column = factory.Array(5, {validity, indices}, {}, -1, /*offset=*/1, dictionary);
  SchemaNode* field = factory.Schema("c", "color", 2, {}, factory.Schema("u"));
  Result<RecordBatch> batch = ImportColumn(factory, field, column, 5);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_TRUE(batch->schema()->field(0).Equals(
      MakeField("color", DataType::Dictionary(DataType::Int8(), DataType::Utf8()))));
  EXPECT_EQ(batch->column(0).null_count, 1);
  EXPECT_EQ(batch->column(0).children.at(0).length, 3);  // the dictionary, as given
  const RecordBatch values = Unpacked(*batch);
  EXPECT_TRUE(values.schema()->field(0).Equals(MakeField("color", DataType::Utf8())));
  EXPECT_EQ(StringValues(values.column(0)), (std::vector<std::optional<std::string>>{
                                                "blue", std::nullopt, "green", "green", "red"}));
}

TEST(CDataImportTest, KeepsUInt32IndicesAndNullDictionaryValues) {
  CDataFactory factory;
  const void* dictionary_offsets = nullptr;
  const void* dictionary_data = factory.Strings({"a", "", "ccc"}, &dictionary_offsets);
  ArrayNode* dictionary = factory.Array(
      3, {factory.Bitmap({true, false, true}), dictionary_offsets, dictionary_data}, {}, 1);
  const void* indices = factory.Buffer<uint32_t>({2, 1, 0, 2});
  ArrayNode* column = factory.Array(4, {nullptr, indices}, {}, 0, 0, dictionary);
  SchemaNode* field = factory.Schema("I", "d", 2, {}, factory.Schema("u"));
  Result<RecordBatch> batch = ImportColumn(factory, field, column, 4);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(StringValues(Unpacked(*batch).column(0)),
            (std::vector<std::optional<std::string>>{"ccc", std::nullopt, "a", "ccc"}));
}

TEST(CDataImportTest, KeepsDictionaryInsideList) {
  CDataFactory factory;
  const void* dictionary_offsets = nullptr;
  const void* dictionary_data = factory.Strings({"x", "yy"}, &dictionary_offsets);
  ArrayNode* dictionary = factory.Array(2, {nullptr, dictionary_offsets, dictionary_data});
  ArrayNode* items = factory.Array(
      4, {factory.Bitmap({true, true, false, true}), factory.Buffer<int16_t>({1, 0, 0, 1})}, {}, -1,
      0, dictionary);
  ArrayNode* list = factory.Array(3, {nullptr, factory.Buffer<int32_t>({0, 2, 2, 4})}, {items});
  SchemaNode* item_schema = factory.Schema("s", "item", 2, {}, factory.Schema("u"));
  Result<RecordBatch> batch =
      ImportColumn(factory, factory.Schema("+l", "l", 2, {item_schema}), list, 3);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();

  TypePtr type = DataType::List(DataType::Utf8());
  ArrayBuilder expected(type.get());
  AppendStrings(expected.child(0), {"yy", "x"});
  expected.AppendValid();
  expected.AppendValid();
  AppendStrings(expected.child(0), {std::nullopt, "yy"});
  expected.AppendValid();
  EXPECT_EQ(batch->schema()->field(0).type->ToString(),
            "list<item: dictionary<values=string, indices=int16, ordered=0>>");
  std::string difference;
  EXPECT_TRUE(ArraysEqual(Unpacked(*batch).column(0), expected.View(), &difference)) << difference;
}

TEST(CDataImportTest, KeepsDictionaryInsideSlicedStruct) {
  // The struct's offset (2) applies to its dictionary-encoded child: rows are indices 2.. of it.
  CDataFactory factory;
  const void* dictionary_offsets = nullptr;
  const void* dictionary_data = factory.Strings({"p", "q", "r"}, &dictionary_offsets);
  ArrayNode* dictionary = factory.Array(3, {nullptr, dictionary_offsets, dictionary_data});
  ArrayNode* child =
      factory.Array(5, {nullptr, factory.Buffer<int64_t>({0, 0, 2, 1, 0})}, {}, 0, 0, dictionary);
  ArrayNode* s = factory.Array(3, {nullptr}, {child}, 0, /*offset=*/2);
  SchemaNode* child_schema = factory.Schema("l", "v", 2, {}, factory.Schema("u"));
  Result<RecordBatch> batch =
      ImportColumn(factory, factory.Schema("+s", "s", 2, {child_schema}), s, 3);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(StringValues(Unpacked(*batch).column(0).children[0]),
            (std::vector<std::optional<std::string>>{"r", "q", "p"}));
}

TEST(CDataImportTest, KeepsDictionaryOfNestedValues) {
  CDataFactory factory;
  // Dictionary values: list<int32> [[1, 2], [], [3]].
  ArrayNode* values = factory.Array(3, {nullptr, factory.Buffer<int32_t>({1, 2, 3})});
  ArrayNode* dictionary =
      factory.Array(3, {nullptr, factory.Buffer<int32_t>({0, 2, 2, 3})}, {values});
  ArrayNode* column =
      factory.Array(3, {nullptr, factory.Buffer<uint8_t>({2, 0, 1})}, {}, 0, 0, dictionary);
  SchemaNode* value_schema = factory.Schema("+l", "", 2, {factory.Schema("i", "item")});
  Result<RecordBatch> batch =
      ImportColumn(factory, factory.Schema("C", "d", 2, {}, value_schema), column, 3);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  TypePtr type = DataType::List(DataType::Int32());
  ArrayBuilder expected(type.get());
  expected.child(0).Append<int32_t>(3);
  expected.AppendValid();
  expected.child(0).Append<int32_t>(1);
  expected.child(0).Append<int32_t>(2);
  expected.AppendValid();
  expected.AppendValid();
  std::string difference;
  EXPECT_TRUE(ArraysEqual(Unpacked(*batch).column(0), expected.View(), &difference)) << difference;
}

TEST(CDataImportTest, RejectsDictionaryIndexOutOfRange) {
  CDataFactory factory;
  const void* dictionary_offsets = nullptr;
  const void* dictionary_data = factory.Strings({"a", "b", "c"}, &dictionary_offsets);
  ArrayNode* dictionary = factory.Array(3, {nullptr, dictionary_offsets, dictionary_data});
  ArrayNode* column =
      factory.Array(3, {nullptr, factory.Buffer<int8_t>({0, 7, 1})}, {}, 0, 0, dictionary);
  Status status =
      ImportColumn(factory, factory.Schema("c", "d", 2, {}, factory.Schema("u")), column, 3)
          .status();
  EXPECT_TRUE(
      FailsWith(status, {"column 'd'", "row 1", "dictionary index 7", "dictionary's 3 values"}));
}

TEST(CDataImportTest, RejectsNegativeDictionaryIndex) {
  CDataFactory factory;
  ArrayNode* dictionary = factory.Array(1, {nullptr, factory.Buffer<int32_t>({5})});
  ArrayNode* column =
      factory.Array(2, {nullptr, factory.Buffer<int16_t>({0, -1})}, {}, 0, 0, dictionary);
  Status status =
      ImportColumn(factory, factory.Schema("s", "d", 2, {}, factory.Schema("i")), column, 2)
          .status();
  EXPECT_TRUE(FailsWith(status, {"column 'd'", "row 1", "dictionary index -1"}));
}

TEST(CDataImportTest, RejectsDictionaryArrayForAPlainSchema) {
  CDataFactory factory;
  ArrayNode* dictionary = factory.Array(1, {nullptr, factory.Buffer<int32_t>({5})});
  ArrayNode* column =
      factory.Array(1, {nullptr, factory.Buffer<int8_t>({0})}, {}, 0, 0, dictionary);
  ArrayNode* root = factory.Array(1, {nullptr}, {column});
  // The plain schema says int32: the array's dictionary cannot be read with it.
  auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("d", DataType::Int32())});
  EXPECT_TRUE(FailsWith(ImportRecordBatch(&root->array, schema).status(),
                        {"column 'd'", "ArrowArray.dictionary is set"}));
  EXPECT_EQ(root->releases, 1);
}

TEST(CDataImportTest, RejectsNonIntegerDictionaryIndexType) {
  CDataFactory factory;
  SchemaNode* root =
      factory.Schema("+s", "", 0, {factory.Schema("f", "d", 2, {}, factory.Schema("u"))});
  EXPECT_TRUE(FailsWith(ImportSchema(&root->schema).status(),
                        {"column 'd'", "index type must be", "found \"f\""}));
}

}  // namespace
}  // namespace sluice
