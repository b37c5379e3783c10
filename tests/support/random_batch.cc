#include "support/random_batch.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "sluice/format/array_builder.h"

namespace sluice::testing {

std::vector<TypePtr> AllLeafTypes() {
  return {
      DataType::Null(),
      DataType::Boolean(),
      DataType::Int8(),
      DataType::Int16(),
      DataType::Int32(),
      DataType::Int64(),
      DataType::UInt8(),
      DataType::UInt16(),
      DataType::UInt32(),
      DataType::UInt64(),
      DataType::Float32(),
      DataType::Float64(),
      DataType::Date32(),
      DataType::Timestamp(TimeUnit::kSecond),
      DataType::Timestamp(TimeUnit::kMilli, "UTC"),
      DataType::Timestamp(TimeUnit::kMicro, "America/New_York"),
      DataType::Timestamp(TimeUnit::kNano),
      DataType::Decimal128(11, 2),
      DataType::Decimal128(38, 10),
      DataType::Utf8(),
      DataType::LargeUtf8(),
      DataType::Binary(),
      DataType::LargeBinary(),
      DataType::FixedSizeBinary(5),
      DataType::Float16(),
      DataType::Date64(),
      DataType::Time32(TimeUnit::kSecond),
      DataType::Time32(TimeUnit::kMilli),
      DataType::Time64(TimeUnit::kMicro),
      DataType::Time64(TimeUnit::kNano),
      DataType::Duration(TimeUnit::kSecond),
      DataType::Duration(TimeUnit::kNano),
      DataType::IntervalYearMonth(),
      DataType::IntervalDayTime(),
      DataType::IntervalMonthDayNano(),
      DataType::Decimal32(7, 2),
      DataType::Decimal64(15, 3),
      DataType::Decimal256(10, 0),
      DataType::Decimal256(50, 5),
      DataType::BinaryView(),
      DataType::Utf8View(),
  };
}

TypePtr RandomType(std::mt19937_64& rng, int depth) {
  static const std::vector<TypePtr> leaves = AllLeafTypes();
  std::uniform_int_distribution<int> pick(0, depth > 0 ? 7 : 3);
  const int choice = pick(rng);
  if (depth <= 0 || choice <= 3) {
    std::uniform_int_distribution<size_t> leaf(0, leaves.size() - 1);
    return leaves[leaf(rng)];
  }
  switch (choice) {
    case 4:
      return DataType::List(RandomType(rng, depth - 1));
    case 5:
      return DataType::LargeList(RandomType(rng, depth - 1));
    case 6: {
      std::uniform_int_distribution<int> count(1, 3);
      std::vector<Field> fields;
      const int field_count = count(rng);
      for (int i = 0; i < field_count; ++i) {
        fields.push_back(
            MakeField("f" + std::to_string(i), RandomType(rng, depth - 1), (rng() & 3) != 0));
      }
      return DataType::Struct(std::move(fields));
    }
    default: {
      // Map keys are non-null leaves other than null.
      std::uniform_int_distribution<size_t> leaf(1, leaves.size() - 1);
      return DataType::Map(leaves[leaf(rng)], RandomType(rng, depth - 1));
    }
  }
}

SchemaPtr MixedSchema() {
  return std::make_shared<Schema>(std::vector<Field>{
      MakeField("c0", DataType::Int32(), false), MakeField("c1", DataType::Utf8()),
      MakeField("c2", DataType::Date32(), false),
      MakeField("c3", DataType::Decimal128(11, 2), false)});
}

SchemaPtr KeyTextValueSchema() {
  return std::make_shared<Schema>(std::vector<Field>{MakeField("k", DataType::Int64()),
                                                     MakeField("s", DataType::Utf8()),
                                                     MakeField("d", DataType::Float64())});
}

SchemaPtr SchemaWithFieldMetadata() {
  Field uuid = MakeField("id", DataType::FixedSizeBinary(16), false);
  uuid.metadata = {{"ARROW:extension:name", "arrow.uuid"}, {"ARROW:extension:metadata", ""}};
  Field json = MakeField("document", DataType::Utf8());
  json.metadata = {{"ARROW:extension:name", "arrow.json"}, {"ARROW:extension:metadata", ""}};
  Field element = MakeField("item", DataType::Int64());
  element.metadata = {{"unit", "cents"}};
  Field tags = MakeField("amounts", DataType::List(element));
  tags.metadata = {{"origin", "ledger"}, {std::string("nul\0key", 7), "v"}};
  Field inner = MakeField("inner", DataType::Float64());
  inner.metadata = {{"precision", "approximate"}};
  Field point = MakeField("point", DataType::Struct({inner, json}));
  Field lookup = MakeField("lookup", DataType::Map(DataType::Utf8(), DataType::Int32()));
  lookup.metadata = {{"description", "a map with field metadata"}};
  return std::make_shared<Schema>(std::vector<Field>{uuid, json, tags, point, lookup},
                                  KeyValueMetadata{{"writer", "sluice tests"}});
}

SchemaPtr AllTypesSchema(int nested_depth, bool with_dictionaries) {
  std::vector<Field> fields;
  int index = 0;
  for (const auto& type : AllLeafTypes()) {
    fields.push_back(MakeField("c" + std::to_string(index++), type));
  }
  // One column of every nested kind, each nested `nested_depth` deep.
  TypePtr inner =
      DataType::Struct({MakeField("a", DataType::Int64()), MakeField("b", DataType::Utf8()),
                        MakeField("c", DataType::Float64(), false)});
  for (int level = 1; level < nested_depth; ++level) {
    inner = DataType::Struct({MakeField("s", inner), MakeField("l", DataType::List(inner)),
                              MakeField("m", DataType::Map(DataType::Utf8(), inner))});
  }
  fields.push_back(MakeField("c" + std::to_string(index++), inner));
  fields.push_back(MakeField("c" + std::to_string(index++), DataType::List(inner)));
  fields.push_back(MakeField("c" + std::to_string(index++), DataType::LargeList(inner)));
  fields.push_back(
      MakeField("c" + std::to_string(index++), DataType::Map(DataType::Int32(), inner)));
  fields.push_back(
      MakeField("c" + std::to_string(index++), DataType::List(DataType::List(DataType::Utf8()))));
  fields.push_back(MakeField("c" + std::to_string(index++), DataType::FixedSizeList(inner, 2)));
  fields.push_back(MakeField("c" + std::to_string(index++),
                             DataType::FixedSizeList(DataType::Int32(), 3, false)));
  fields.push_back(MakeField("c" + std::to_string(index++), DataType::ListView(inner)));
  fields.push_back(
      MakeField("c" + std::to_string(index++), DataType::LargeListView(DataType::Utf8())));
  fields.push_back(MakeField("c" + std::to_string(index++),
                             DataType::RunEndEncoded(DataType::Int32(), DataType::Utf8())));
  fields.push_back(
      MakeField("c" + std::to_string(index++), DataType::RunEndEncoded(DataType::Int16(), inner)));
  fields.push_back(
      MakeField("c" + std::to_string(index++),
                DataType::SparseUnion({MakeField("i", DataType::Int32()),
                                       MakeField("s", DataType::Utf8()), MakeField("n", inner)},
                                      {0, 5, 2})));
  fields.push_back(MakeField(
      "c" + std::to_string(index++),
      DataType::DenseUnion({MakeField("s", DataType::Utf8()), MakeField("l", DataType::List(inner)),
                            MakeField("d", DataType::Float64())},
                           {3, 1, 7})));
  if (!with_dictionaries) {
    fields.push_back(MakeField("c" + std::to_string(index++), DataType::Int64(), false));
    return std::make_shared<Schema>(std::move(fields));
  }
  fields.push_back(MakeField("c" + std::to_string(index++),
                             DataType::Dictionary(DataType::Int32(), DataType::Utf8())));
  fields.push_back(MakeField("c" + std::to_string(index++),
                             DataType::Dictionary(DataType::Int8(), DataType::Int64())));
  fields.push_back(
      MakeField("c" + std::to_string(index++),
                DataType::List(DataType::Dictionary(DataType::UInt16(), DataType::Utf8View()))));
  fields.push_back(
      MakeField("c" + std::to_string(index++), DataType::Dictionary(DataType::UInt32(), inner)));
  fields.push_back(MakeField("c" + std::to_string(index++), DataType::Int64(), false));
  return std::make_shared<Schema>(std::move(fields));
}

SchemaPtr RandomSchema(std::mt19937_64& rng, int columns, int depth) {
  std::vector<Field> fields;
  for (int i = 0; i < columns; ++i) {
    fields.push_back(MakeField("c" + std::to_string(i), RandomType(rng, depth), (rng() & 3) != 0));
  }
  return std::make_shared<Schema>(std::move(fields));
}

namespace {

template <typename T>
T RandomInteger(std::mt19937_64& rng) {
  // Mix small values (collisions, edge partitions) with the full range.
  const uint64_t bits = rng();
  if ((bits & 3) == 0) return static_cast<T>(static_cast<int64_t>(bits >> 8) % 7 - 3);
  return static_cast<T>(rng());
}

template <typename T>
T RandomFloat(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return T(0.0);
    case 1:
      return T(-0.0);
    case 2:
      return std::numeric_limits<T>::quiet_NaN();
    case 3:
      return std::numeric_limits<T>::infinity();
    default:
      return static_cast<T>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
  }
}

std::string RandomBytes(std::mt19937_64& rng, int length, bool text) {
  std::string bytes(static_cast<size_t>(length), '\0');
  for (auto& byte : bytes) {
    byte = text ? static_cast<char>('a' + rng() % 26) : static_cast<char>(rng());
  }
  return bytes;
}

}  // namespace

void AppendRandomValue(ArrayBuilder& builder, bool nullable, std::mt19937_64& rng,
                       const RandomBatchOptions& options) {
  const DataType& type = *builder.type();
  std::bernoulli_distribution is_null(options.null_probability);
  if (type.id() == TypeId::kNull || (nullable && is_null(rng))) {
    builder.AppendNull();
    return;
  }
  switch (type.id()) {
    case TypeId::kNull:
      break;
    case TypeId::kBoolean:
      builder.Append<bool>((rng() & 1) != 0);
      break;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      builder.Append<int8_t>(RandomInteger<int8_t>(rng));
      break;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      builder.Append<int16_t>(RandomInteger<int16_t>(rng));
      break;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kDate32:
      builder.Append<int32_t>(RandomInteger<int32_t>(rng));
      break;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kTimestamp:
      builder.Append<int64_t>(RandomInteger<int64_t>(rng));
      break;
    case TypeId::kFloat32:
      builder.Append<float>(RandomFloat<float>(rng));
      break;
    case TypeId::kFloat64:
      builder.Append<double>(RandomFloat<double>(rng));
      break;
    case TypeId::kDecimal128: {
      // An unscaled value within the precision, sign-extended to 16 bytes.
      __int128 value = RandomInteger<int64_t>(rng);
      if (type.precision() > 18 && (rng() & 1)) value *= static_cast<__int128>(1000000007LL);
      builder.Append<__int128>(value);
      break;
    }
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      std::uniform_int_distribution<int> length(0, options.max_string_length);
      const bool text = type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8;
      builder.AppendString(RandomBytes(rng, length(rng), text));
      break;
    }
    case TypeId::kFixedSizeBinary:
      builder.AppendString(RandomBytes(rng, type.byte_width(), false));
      break;
    case TypeId::kBinaryView:
    case TypeId::kUtf8View: {
      // Up to three times the string length: inline values (12 bytes at most) and values in
      // the data buffer.
      std::uniform_int_distribution<int> length(0, 3 * options.max_string_length);
      builder.AppendString(RandomBytes(rng, length(rng), type.id() == TypeId::kUtf8View));
      break;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kMap: {
      std::uniform_int_distribution<int> length(0, options.max_list_length);
      const int count = length(rng);
      const Field& element = type.children()[0];
      for (int i = 0; i < count; ++i) {
        if (type.id() == TypeId::kMap) {
          // Entries are non-null structs of (non-null key, value).
          ArrayBuilder& entries = builder.child(0);
          AppendRandomValue(entries.child(0), false, rng, options);
          AppendRandomValue(entries.child(1), element.type->children()[1].nullable, rng, options);
          entries.AppendValid();
        } else {
          AppendRandomValue(builder.child(0), element.nullable, rng, options);
        }
      }
      builder.AppendValid();
      break;
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      const size_t child = rng() % type.children().size();
      AppendRandomValue(builder.child(child), type.children()[child].nullable, rng, options);
      builder.AppendUnion(child);
      break;
    }
    case TypeId::kDictionary: {
      // A row reuses a value of the dictionary half the time (always once an 8-bit index type
      // would run out), else adds one.
      ArrayBuilder& values = builder.child(0);
      const int64_t width = BitWidth(*type.index_type()) / 8;
      if (values.length() == 0 || ((rng() & 1) != 0 && !(width == 1 && values.length() >= 100))) {
        AppendRandomValue(values, true, rng, options);
        builder.AppendValid();
        break;
      }
      const auto index = static_cast<int64_t>(rng() % static_cast<uint64_t>(values.length()));
      switch (width) {
        case 1:
          builder.Append<int8_t>(static_cast<int8_t>(index));
          break;
        case 2:
          builder.Append<int16_t>(static_cast<int16_t>(index));
          break;
        case 4:
          builder.Append<int32_t>(static_cast<int32_t>(index));
          break;
        default:
          builder.Append<int64_t>(index);
          break;
      }
      break;
    }
    case TypeId::kRunEndEncoded:
      // Runs of one to a few rows: a row repeats the last run's value half the time.
      if (builder.child(1).length() == 0 || (rng() & 1) != 0) {
        AppendRandomValue(builder.child(1), true, rng, options);
      }
      builder.AppendValid();
      break;
    case TypeId::kFloat16:
      // Any half, NaNs and infinities included.
      builder.Append<int16_t>(RandomInteger<int16_t>(rng));
      break;
    case TypeId::kDate64:
      // Whole days, as Arrow asks of date64 values.
      builder.Append<int64_t>(int64_t{RandomInteger<int32_t>(rng) % 3'000'000} * 86'400'000);
      break;
    case TypeId::kTime32:
    case TypeId::kTime64: {
      const int64_t per_day = TicksPerSecond(type.time_unit()) * 86'400;
      const int64_t value = static_cast<int64_t>(rng() % static_cast<uint64_t>(per_day));
      if (type.id() == TypeId::kTime32) {
        builder.Append<int32_t>(static_cast<int32_t>(value));
      } else {
        builder.Append<int64_t>(value);
      }
      break;
    }
    case TypeId::kDuration:
      // Within 2^40 of zero, so that the duration in any other unit fits a long.
      builder.Append<int64_t>(RandomInteger<int64_t>(rng) >> 23);
      break;
    case TypeId::kIntervalYearMonth:
      builder.Append<int32_t>(RandomInteger<int32_t>(rng));
      break;
    case TypeId::kIntervalDayTime: {
      // Days within a million of zero, so that a length in microseconds fits a long.
      const int32_t parts[2] = {RandomInteger<int32_t>(rng) % 1'000'000,
                                RandomInteger<int32_t>(rng)};
      builder.AppendBytes(parts, sizeof(parts));
      break;
    }
    case TypeId::kIntervalMonthDayNano: {
      // Nanoseconds in whole microseconds, so that every value is a Spark calendar interval
      // too (the row tests carry this type as one).
      struct {
        int32_t months;
        int32_t days;
        int64_t nanoseconds;
      } value{RandomInteger<int32_t>(rng), RandomInteger<int32_t>(rng),
              RandomInteger<int64_t>(rng) / 1000 * 1000};
      builder.AppendBytes(&value, sizeof(value));
      break;
    }
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal256: {
      // An unscaled value within the precision, sign-extended to the width.
      static constexpr int64_t kPowersOfTen[] = {
          1,         10,         100,         1'000,         10'000,        100'000,
          1'000'000, 10'000'000, 100'000'000, 1'000'000'000, 10'000'000'000};
      const int32_t digits = std::min(type.precision(), 10);
      __int128 value = RandomInteger<int64_t>(rng) % kPowersOfTen[digits];
      if (type.precision() > 30 && (rng() & 1))
        value *= static_cast<__int128>(1'000'000'000'000'000'007LL);
      uint8_t bytes[32];
      std::memcpy(bytes, &value, 16);
      std::memset(bytes + 16, value < 0 ? 0xff : 0x00, 16);
      builder.AppendBytes(bytes, BitWidth(type) / 8);
      break;
    }
    case TypeId::kFixedSizeList: {
      const Field& element = type.children()[0];
      for (int32_t i = 0; i < type.list_size(); ++i) {
        AppendRandomValue(builder.child(0), element.nullable, rng, options);
      }
      builder.AppendValid();
      break;
    }
    case TypeId::kStruct: {
      for (size_t i = 0; i < builder.num_children(); ++i) {
        AppendRandomValue(builder.child(i), type.children()[i].nullable, rng, options);
      }
      builder.AppendValid();
      break;
    }
  }
}

RecordBatch RandomBatch(const SchemaPtr& schema, int64_t rows, uint64_t seed,
                        const RandomBatchOptions& options) {
  std::mt19937_64 rng(seed);
  auto builders = MakeBuilders(*schema);
  for (size_t c = 0; c < builders.size(); ++c) {
    for (int64_t row = 0; row < rows; ++row) {
      AppendRandomValue(*builders[c], schema->field(c).nullable, rng, options);
    }
  }
  return FinishBatch(schema, builders);
}

}  // namespace sluice::testing
