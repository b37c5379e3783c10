#include "workload/reference_batches.h"

#include <string>

#include "sluice/format/array_builder.h"

namespace sluice::workload {

RecordBatch MixedBatch(int64_t rows, int64_t first_row) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      MakeField("c0", DataType::Int32()), MakeField("c1", DataType::Utf8()),
      MakeField("c2", DataType::Date32()), MakeField("c3", DataType::Decimal128(11, 2))});
  auto builders = MakeBuilders(*schema);
  std::string text;
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t i = first_row + row;
    builders[0]->Append<int32_t>(static_cast<int32_t>(i));
    if (i % 10 == 0) {
      builders[1]->AppendNull();
    } else {
      text = "this is string number " + std::to_string(i);
      builders[1]->AppendString(text);
    }
    builders[2]->Append<int32_t>(static_cast<int32_t>(i));
    builders[3]->Append<__int128>(static_cast<__int128>(i) * 1000000);
  }
  return FinishBatch(schema, builders);
}

RecordBatch Flat50Batch(int64_t rows, int64_t first_row) {
  std::vector<Field> fields;
  for (int c = 0; c < 50; ++c)
    fields.push_back(MakeField("c" + std::to_string(c), DataType::Int32(), false));
  auto schema = std::make_shared<Schema>(std::move(fields));
  auto builders = MakeBuilders(*schema);
  for (int c = 0; c < 50; ++c) {
    for (int64_t row = 0; row < rows; ++row) {
      builders[c]->Append<int32_t>(static_cast<int32_t>(first_row + row + c));
    }
  }
  return FinishBatch(schema, builders);
}

namespace {
TypePtr NestedType(int depth) {
  TypePtr type = DataType::Struct({MakeField("a", DataType::Int64(), false),
                                   MakeField("b", DataType::Utf8(), false),
                                   MakeField("c", DataType::Float64(), false)});
  for (int level = 1; level < depth; ++level) {
    type = DataType::Struct({MakeField("s", type, false)});
  }
  return type;
}

void AppendNested(ArrayBuilder& builder) {
  if (builder.num_children() == 3) {
    builder.child(0).Append<int64_t>(1);
    builder.child(1).AppendString("x");
    builder.child(2).Append<double>(1.0);
  } else {
    AppendNested(builder.child(0));
  }
  builder.AppendValid();
}
}  // namespace

RecordBatch NestedBatch(int64_t rows) {
  std::vector<Field> fields;
  for (int c = 0; c < 4; ++c)
    fields.push_back(MakeField("c" + std::to_string(c), NestedType(6), false));
  auto schema = std::make_shared<Schema>(std::move(fields));
  auto builders = MakeBuilders(*schema);
  for (auto& builder : builders) {
    for (int64_t row = 0; row < rows; ++row) AppendNested(*builder);
  }
  return FinishBatch(schema, builders);
}

RecordBatch AlternatingBatch(int columns, int64_t rows) {
  std::vector<Field> fields;
  for (int c = 0; c < columns; ++c) {
    fields.push_back(MakeField("c" + std::to_string(c),
                               c % 2 == 0 ? DataType::Int64() : DataType::Utf8(), false));
  }
  auto schema = std::make_shared<Schema>(std::move(fields));
  auto builders = MakeBuilders(*schema);
  std::string text;
  for (int c = 0; c < columns; ++c) {
    for (int64_t row = 0; row < rows; ++row) {
      if (c % 2 == 0) {
        builders[c]->Append<int64_t>(row);
      } else {
        text = "value_" + std::to_string(row);
        builders[c]->AppendString(text);
      }
    }
  }
  return FinishBatch(schema, builders);
}

RecordBatch WideBatch(int64_t rows, int64_t first_row) {
  std::vector<Field> fields;
  const TypePtr cycle[] = {DataType::Int64(), DataType::Float64(), DataType::Utf8(),
                           DataType::Date32()};
  for (int c = 0; c < 200; ++c) fields.push_back(MakeField("c" + std::to_string(c), cycle[c % 4]));
  auto schema = std::make_shared<Schema>(std::move(fields));
  auto builders = MakeBuilders(*schema);
  std::string text;
  for (int c = 0; c < 200; ++c) {
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t i = first_row + row;
      switch (c % 4) {
        case 0:
          builders[c]->Append<int64_t>(i * 31 + c);
          break;
        case 1:
          builders[c]->Append<double>(static_cast<double>(i) * 0.5 + c);
          break;
        case 2:
          text = "w" + std::to_string(i % 1000) + "_" + std::to_string(c);
          builders[c]->AppendString(text);
          break;
        default:
          builders[c]->Append<int32_t>(static_cast<int32_t>(18000 + i % 3650));
          break;
      }
    }
  }
  return FinishBatch(schema, builders);
}

}  // namespace sluice::workload
