// Batches built by hand in a test, value by value: a builder per field of a schema.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/format/record_batch.h"

namespace sluice::testing {

/// Returns a schema of `fields`.
inline SchemaPtr MakeSchema(std::vector<Field> fields) {
  return std::make_shared<Schema>(std::move(fields));
}

/// A schema and a builder per field: append to `maker[i]`, then Finish().
struct BatchMaker {
  explicit BatchMaker(std::vector<Field> fields)
      : schema(MakeSchema(std::move(fields))), builders(MakeBuilders(*schema)) {}
  ArrayBuilder& operator[](size_t index) { return *builders[index]; }
  RecordBatch Finish() { return FinishBatch(schema, builders); }

  SchemaPtr schema;
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
};

}  // namespace sluice::testing
