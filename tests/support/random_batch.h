// Random schemas and batches for property tests: every type of the columnar model, nested to a
// chosen depth, with nulls at every level.
#pragma once

#include <cstdint>
#include <random>

#include "sluice/format/array_builder.h"
#include "sluice/format/record_batch.h"

namespace sluice::testing {

struct RandomBatchOptions {
  /// Chance that a nullable slot is null, at every level.
  double null_probability = 0.1;
  /// Lists and maps get 0..max_list_length elements.
  int max_list_length = 4;
  /// Strings and binaries get 0..max_string_length bytes.
  int max_string_length = 12;
};

/// Returns every leaf type of the model, each with a few parameter choices.
std::vector<TypePtr> AllLeafTypes();

/// Returns a random type: a leaf, or (while depth > 0) a list, large list, struct or map whose
/// children are random types of depth - 1.
TypePtr RandomType(std::mt19937_64& rng, int depth);

/// Returns the reference "mixed" schema: c0 Int32, c1 nullable Utf8, c2 Date32,
/// c3 Decimal128(11, 2).
SchemaPtr MixedSchema();

/// Returns a small schema of three nullable columns: k Int64, s Utf8, d Float64.
SchemaPtr KeyTextValueSchema();

/// Returns a schema with one column of every leaf type and nested columns of the given depth,
/// dictionary-encoded columns among them unless `with_dictionaries` is false (for tests of
/// what a dictionary column changes: one block per gather, a decoder's arena and storage reuse,
/// the messages of a stream).
SchemaPtr AllTypesSchema(int nested_depth, bool with_dictionaries = true);

/// Returns a schema whose fields carry metadata at every level: extension types (arrow.uuid on
/// fixed_size_binary[16], arrow.json on utf8), plain keys on a list's element, a struct's child
/// and a map, and schema metadata.
SchemaPtr SchemaWithFieldMetadata();

/// Returns a schema of `columns` random types up to `depth`.
SchemaPtr RandomSchema(std::mt19937_64& rng, int columns, int depth);

/// Returns a batch of `rows` random rows for `schema`.
RecordBatch RandomBatch(const SchemaPtr& schema, int64_t rows, uint64_t seed,
                        const RandomBatchOptions& options = {});

/// Appends one random value of the builder's type (may be null when nullable).
void AppendRandomValue(ArrayBuilder& builder, bool nullable, std::mt19937_64& rng,
                       const RandomBatchOptions& options);

}  // namespace sluice::testing
