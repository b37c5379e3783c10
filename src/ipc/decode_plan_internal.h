// DecodePlan: how the RecordBatch messages of one schema are decoded, worked out once per
// schema so that a block's decoding makes no decision the schema already settles: how many
// field nodes and buffers a block has, which columns take the short path for flat columns and in
// which groups, and which buffers assembling a block reads (so that resolving an uncompressed
// block starts exactly those loads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schema_message_internal.h"
#include "sluice/format/schema.h"

namespace sluice::ipc {

// How a top-level column is assembled and checked. Flat columns (every layout without
// children) take a short path, planned once per schema, that checks what ValidateArray would
// given what the decoder already guarantees (views inside the body, 8-byte aligned, offset 0,
// lengths and null counts in range); nested columns go through the general path and
// ValidateArray.
enum class ColumnKind : uint8_t { kNull, kFixedWidth, kBinary, kLargeBinary, kNested };

struct ColumnPlan {
  const DataType* type = nullptr;  // owned by the plan's schema
  ColumnKind kind = ColumnKind::kNested;
  int64_t bit_width = 0;  // kFixedWidth
  int buffer_count = 0;   // buffers the column takes from the message
};

// What the decoder reads of a buffer of an uncompressed block while it assembles and checks the
// columns: nothing (fixed-width values and string bytes are only bounds-checked), the whole
// buffer (validity bitmaps are counted, offsets checked), or its head and tail (nested columns,
// which ValidateArray walks in ways not planned here).
enum class BufferReads : uint8_t { kNothing, kWhole, kHeadAndTail };

// A buffer, by its index in the message, that assembling and checking a block reads.
struct PlannedRead {
  uint32_t buffer = 0;
  BufferReads reads = BufferReads::kNothing;
};

// A flat column of a schema as the short path assembles it: its place among the columns, the
// index of its first buffer in a block's message, and (fixed-width) its bit width.
struct FlatColumn {
  const DataType* type = nullptr;  // owned by the plan's schema
  uint32_t column = 0;
  uint32_t first_buffer = 0;
  int64_t bit_width = 0;
};

// The flat columns of a schema grouped by kind, so that the short path runs one loop per kind
// with no dispatch per column (filled only when every column is flat).
struct FlatColumns {
  std::vector<FlatColumn> nulls;
  std::vector<FlatColumn> fixed_width;
  std::vector<FlatColumn> binary;        // 32-bit offsets
  std::vector<FlatColumn> large_binary;  // 64-bit offsets

  void Add(const ColumnPlan& plan, uint32_t column, uint32_t first_buffer);
};

struct DecodePlan {
  std::string bytes;  // the Schema flatbuffer, by which the decoder finds the plan
  SchemaPtr schema;   // the layout of its RecordBatch messages (dictionary indices as such)
  // A stream with dictionary-encoded fields: the fields, and the schema its batches are
  // returned in (the fields' dictionary types). Empty and null otherwise.
  std::vector<DictionaryField> dictionary_fields;
  SchemaPtr encoded_schema;
  // How the DictionaryBatch messages of each dictionary id are assembled.
  std::vector<std::pair<int64_t, std::unique_ptr<DecodePlan>>> dictionary_plans;
  int node_count = 0;
  int buffer_count = 0;  // without the variadic buffers of view fields
  int view_count = 0;    // binary_view and utf8_view fields, nested ones included
  std::vector<ColumnPlan> columns;
  bool all_flat = true;  // no nested column: blocks take the short path
  FlatColumns flat;
  // The buffers assembling and checking a block reads, in message order (empty when a view
  // field's variadic buffers make the indices vary by block).
  std::vector<PlannedRead> reads;

  /// The plan of the DictionaryBatch messages of dictionary `id`, or null.
  const DecodePlan* DictionaryPlan(int64_t id) const;
};

/// Plans how blocks of `schema`, whose Schema flatbuffer is `bytes`, are decoded.
std::unique_ptr<DecodePlan> PlanDecoding(std::string bytes, SchemaPtr schema);

}  // namespace sluice::ipc
