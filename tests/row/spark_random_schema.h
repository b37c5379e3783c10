// Random schemas of types Spark rows can carry, for the row converters' property tests.
// (support/random_batch.h draws from every Arrow type; these draw from the Spark-mappable ones,
// and its RandomBatch fills them.)
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sluice/format/schema.h"

namespace sluice::testing {

/// Returns every Spark leaf type, with a few parameter choices (decimals on both sides of the
/// 18-digit boundary, timestamps with and without a time zone).
inline std::vector<TypePtr> SparkLeafTypes() {
  return {
      DataType::Boolean(),
      DataType::Int8(),
      DataType::Int16(),
      DataType::Int32(),
      DataType::Int64(),
      DataType::Float32(),
      DataType::Float64(),
      DataType::Date32(),
      DataType::Timestamp(TimeUnit::kMicro, "UTC"),
      DataType::Timestamp(TimeUnit::kMicro, "America/New_York"),
      DataType::Timestamp(TimeUnit::kMicro),
      DataType::Decimal128(10, 2),
      DataType::Decimal128(18, 4),
      DataType::Decimal128(19, 0),
      DataType::Decimal128(38, 10),
      DataType::Utf8(),
      DataType::Binary(),
      DataType::IntervalYearMonth(),
      DataType::Duration(TimeUnit::kMicro),
      DataType::Time64(TimeUnit::kNano),
      DataType::IntervalMonthDayNano(),  // a calendar interval
      DataType::Null(),
  };
}

/// Returns a random Spark type: a leaf, or (while depth > 0) an array, struct or map whose
/// children are random types of depth - 1. Map keys are non-null leaves.
inline TypePtr RandomSparkType(std::mt19937_64& rng, int depth) {
  static const std::vector<TypePtr> leaves = SparkLeafTypes();
  std::uniform_int_distribution<int> pick(0, depth > 0 ? 5 : 2);
  const int choice = pick(rng);
  if (depth <= 0 || choice <= 2) {
    return leaves[std::uniform_int_distribution<size_t>(0, leaves.size() - 1)(rng)];
  }
  switch (choice) {
    case 3:
      return DataType::List(RandomSparkType(rng, depth - 1), (rng() & 3) != 0);
    case 4: {
      std::vector<Field> fields;
      const int count = std::uniform_int_distribution<int>(0, 4)(rng);
      for (int i = 0; i < count; ++i) {
        fields.push_back(
            MakeField("f" + std::to_string(i), RandomSparkType(rng, depth - 1), (rng() & 3) != 0));
      }
      return DataType::Struct(std::move(fields));
    }
    default: {
      // Keys: any leaf but null (the last one).
      const TypePtr key = leaves[std::uniform_int_distribution<size_t>(0, leaves.size() - 2)(rng)];
      return DataType::Map(key, RandomSparkType(rng, depth - 1), (rng() & 3) != 0);
    }
  }
}

/// Returns a schema of `columns` random Spark types nested up to `depth`.
inline SchemaPtr RandomSparkSchema(std::mt19937_64& rng, int columns, int depth) {
  std::vector<Field> fields;
  for (int i = 0; i < columns; ++i) {
    fields.push_back(
        MakeField("c" + std::to_string(i), RandomSparkType(rng, depth), (rng() & 3) != 0));
  }
  return std::make_shared<Schema>(std::move(fields));
}

/// Returns a schema with a column of every Spark leaf type and nested columns three deep:
/// struct in array in map, map in struct, arrays of arrays, all nullable at every level.
inline SchemaPtr AllSparkTypesSchema() {
  std::vector<Field> fields;
  int index = 0;
  for (const TypePtr& type : SparkLeafTypes()) {
    fields.push_back(MakeField("c" + std::to_string(index++), type));
  }
  const TypePtr leaf_struct = DataType::Struct(
      {MakeField("a", DataType::Int64()), MakeField("b", DataType::Utf8()),
       MakeField("d", DataType::Decimal128(38, 10)), MakeField("e", DataType::Boolean(), false)});
  const TypePtr level2 = DataType::Struct(
      {MakeField("s", leaf_struct), MakeField("l", DataType::List(leaf_struct)),
       MakeField("m", DataType::Map(DataType::Utf8(), DataType::List(DataType::Int16())))});
  fields.push_back(MakeField("c" + std::to_string(index++), level2));
  fields.push_back(MakeField("c" + std::to_string(index++),
                             DataType::Map(DataType::Int32(), DataType::List(level2))));
  fields.push_back(MakeField("c" + std::to_string(index++),
                             DataType::List(DataType::List(DataType::List(DataType::Utf8())))));
  fields.push_back(
      MakeField("c" + std::to_string(index++),
                DataType::List(DataType::Map(DataType::Decimal128(20, 3), DataType::Float64()))));
  fields.push_back(MakeField("c" + std::to_string(index++), DataType::Int64(), false));
  return std::make_shared<Schema>(std::move(fields));
}

}  // namespace sluice::testing
