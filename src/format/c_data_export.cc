// Export of Sluice schemas, batches and readers as Arrow C Data / C Stream structs.
//
// Arrays are exported zero-copy. Each exported node (the struct of columns, every column, every
// child) is one allocation holding its buffer pointers, its children's pointer array and structs,
// and a reference to the batch's owners; so a consumer may move any child out and release it
// after its parent. Two places differ from a plain pointer copy, both to follow the spec where
// Sluice's views are looser:
// - A struct view with an offset is exported with offset 0 and its children with their own
//   offsets (Sluice aligns struct children with the view; in C a struct's offset would apply to
//   its children too). Its validity bitmap is then advanced by whole bytes, or, when the offset is
//   not a multiple of 8, copied shifted into the node's allocation.
// - An empty array is exported with offset 0 and static zeroed buffers, so that even producers'
//   empty offsets buffers (Arrow IPC allows them) reach consumers as one zero offset.

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "sluice/base/bit_ops.h"
#include "sluice/base/failure_guard.h"
#include "sluice/format/c_data.h"

namespace sluice {

namespace {

// Stands in for the buffers of empty arrays and for buffers a view leaves null where C wants a
// pointer. 64 bytes cover the single (int64) offset of an empty array.
alignas(64) constexpr uint8_t kZeroBytes[64] = {};

// ---------------------------------------------------------------------------------------------
// Schemas

// Owns the strings and children of one exported ArrowSchema.
struct ExportedSchemaNode {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_pointers;
  /// A dictionary-encoded field's values (released with the node); unused otherwise.
  ArrowSchema dictionary{};
};

void ReleaseExportedSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* node = static_cast<ExportedSchemaNode*>(schema->private_data);
  for (ArrowSchema& child : node->children) {
    if (child.release != nullptr) child.release(&child);
  }
  if (node->dictionary.release != nullptr) node->dictionary.release(&node->dictionary);
  delete node;
  schema->release = nullptr;
}

char TimeUnitFormat(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 's';
    case TimeUnit::kMilli:
      return 'm';
    case TimeUnit::kMicro:
      return 'u';
    case TimeUnit::kNano:
      return 'n';
  }
  return 's';
}

std::string FormatString(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "n";
    case TypeId::kBoolean:
      return "b";
    case TypeId::kInt8:
      return "c";
    case TypeId::kInt16:
      return "s";
    case TypeId::kInt32:
      return "i";
    case TypeId::kInt64:
      return "l";
    case TypeId::kUInt8:
      return "C";
    case TypeId::kUInt16:
      return "S";
    case TypeId::kUInt32:
      return "I";
    case TypeId::kUInt64:
      return "L";
    case TypeId::kFloat32:
      return "f";
    case TypeId::kFloat64:
      return "g";
    case TypeId::kDate32:
      return "tdD";
    case TypeId::kTimestamp:
      return std::string("ts") + TimeUnitFormat(type.time_unit()) + ":" + type.timezone();
    case TypeId::kDecimal128:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kUtf8:
      return "u";
    case TypeId::kLargeUtf8:
      return "U";
    case TypeId::kBinary:
      return "z";
    case TypeId::kLargeBinary:
      return "Z";
    case TypeId::kBinaryView:
      return "vz";
    case TypeId::kUtf8View:
      return "vu";
    case TypeId::kFixedSizeBinary:
      return "w:" + std::to_string(type.byte_width());
    case TypeId::kFixedSizeList:
      return "+w:" + std::to_string(type.list_size());
    case TypeId::kList:
      return "+l";
    case TypeId::kLargeList:
      return "+L";
    case TypeId::kListView:
      return "+vl";
    case TypeId::kLargeListView:
      return "+vL";
    case TypeId::kStruct:
      return "+s";
    case TypeId::kMap:
      return "+m";
    case TypeId::kRunEndEncoded:
      return "+r";
    case TypeId::kDictionary:  // the indices; the values are the schema's dictionary
      return FormatString(*type.index_type());
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      std::string format = type.id() == TypeId::kSparseUnion ? "+us:" : "+ud:";
      for (size_t i = 0; i < type.type_codes().size(); ++i) {
        if (i > 0) format += ",";
        format += std::to_string(type.type_codes()[i]);
      }
      return format;
    }
    case TypeId::kFloat16:
      return "e";
    case TypeId::kDate64:
      return "tdm";
    case TypeId::kTime32:
    case TypeId::kTime64:
      return std::string("tt") + TimeUnitFormat(type.time_unit());
    case TypeId::kDuration:
      return std::string("tD") + TimeUnitFormat(type.time_unit());
    case TypeId::kIntervalYearMonth:
      return "tiM";
    case TypeId::kIntervalDayTime:
      return "tiD";
    case TypeId::kIntervalMonthDayNano:
      return "tin";
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal256:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) + "," +
             std::to_string(BitWidth(type));
  }
  return "";
}

int64_t FieldFlags(const DataType& type, bool nullable) {
  int64_t flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  if (type.id() == TypeId::kMap && type.keys_sorted()) flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  if (type.id() == TypeId::kDictionary && type.ordered()) flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  return flags;
}

// Returns OK when every key and value of `metadata` (and the pair count) fits the C interface's
// int32 lengths.
Status CheckMetadataLengths(const KeyValueMetadata& metadata, std::string_view owner) {
  constexpr auto kMaxLength = static_cast<size_t>(std::numeric_limits<int32_t>::max());
  if (metadata.size() > kMaxLength) {
    return Status::Invalid("ExportSchema: ", owner, " has too many metadata keys");
  }
  for (const auto& [key, value] : metadata) {
    if (key.size() > kMaxLength || value.size() > kMaxLength) {
      return Status::Invalid("ExportSchema: metadata key '", key.substr(0, 64), "' of ", owner,
                             " or its value is longer than an int32 length allows");
    }
  }
  return Status::OK();
}

// CheckMetadataLengths for every field under `fields`, nested ones included.
Status CheckFieldMetadataLengths(const std::vector<Field>& fields) {
  for (const Field& field : fields) {
    SLUICE_RETURN_NOT_OK(CheckMetadataLengths(field.metadata, "field '" + field.name + "'"));
    SLUICE_RETURN_NOT_OK(CheckFieldMetadataLengths(field.type->children()));
  }
  return Status::OK();
}

// Encodes metadata as the C interface wants it: an int32 pair count, then each key and value
// prefixed by its int32 length, in native byte order; empty (a NULL pointer) when there is none.
// The lengths were checked by CheckMetadataLengths.
std::string EncodedMetadata(const KeyValueMetadata& metadata) {
  std::string encoded;
  if (metadata.empty()) return encoded;
  auto append_length = [&encoded](size_t length) {
    const auto value = static_cast<int32_t>(length);
    encoded.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  append_length(metadata.size());
  for (const auto& [key, value] : metadata) {
    append_length(key.size());
    encoded.append(key);
    append_length(value.size());
    encoded.append(value);
  }
  return encoded;
}

void FillSchema(const DataType& type, std::string_view name, int64_t flags, std::string metadata,
                ArrowSchema* out) {
  auto* node =
      new ExportedSchemaNode{FormatString(type), std::string(name), std::move(metadata), {}, {}};
  const std::vector<Field>& fields = type.children();
  node->children.resize(fields.size());
  node->child_pointers.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& field = fields[i];
    FillSchema(*field.type, field.name, FieldFlags(*field.type, field.nullable),
               EncodedMetadata(field.metadata), &node->children[i]);
    node->child_pointers[i] = &node->children[i];
  }
  out->format = node->format.c_str();
  out->name = node->name.c_str();
  out->metadata = node->metadata.empty() ? nullptr : node->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<int64_t>(fields.size());
  out->children = fields.empty() ? nullptr : node->child_pointers.data();
  out->dictionary = nullptr;
  if (type.id() == TypeId::kDictionary) {
    const DataType& values = *type.value_type();
    FillSchema(values, "", FieldFlags(values, true), std::string(), &node->dictionary);
    out->dictionary = &node->dictionary;
  }
  out->release = ReleaseExportedSchema;
  out->private_data = node;
}

// ---------------------------------------------------------------------------------------------
// Arrays

// What every exported node keeps alive: the memory its buffers point into, and the types.
struct ExportKeepAlive {
  SchemaPtr schema;
  std::vector<MemoryOwner> owners;
};

// The private data of one exported ArrowArray, allocated in one block together with (in this
// order) its children's pointer array, its children's structs and, for a struct exported at a
// bit offset, the shifted validity bitmap.
struct ExportedArrayNode {
  std::shared_ptr<const ExportKeepAlive> keep_alive;
  const void* fixed_buffers[3];
  int64_t child_count;
  ArrowArray** child_pointers;
  ArrowArray* child_arrays;
  uint8_t* bitmap;
  // `fixed_buffers`, or for a view type the validity, the views, the variadic buffers and the
  // variadic buffers' sizes (`variadic_sizes`), as the C Data interface lays them out.
  const void** buffers;
  int64_t* variadic_sizes;
};
static_assert(sizeof(ExportedArrayNode) % alignof(ArrowArray) == 0);
static_assert(alignof(ArrowArray) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

// `variadic_count` >= 0 for a view type: room for its buffer pointers and sizes.
ExportedArrayNode* AllocateNode(std::shared_ptr<const ExportKeepAlive> keep_alive,
                                int64_t child_count, int64_t bitmap_bytes,
                                int64_t variadic_count = -1) {
  const auto children = static_cast<size_t>(child_count);
  const auto variadic = static_cast<size_t>(std::max<int64_t>(variadic_count, 0));
  const size_t buffer_room =
      variadic_count >= 0 ? (3 + variadic) * sizeof(void*) + variadic * sizeof(int64_t) : 0;
  // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers to the children
  const size_t size = sizeof(ExportedArrayNode) + children * sizeof(ArrowArray*) +
                      children * sizeof(ArrowArray) + buffer_room +
                      static_cast<size_t>(bitmap_bytes);
  auto* block = static_cast<uint8_t*>(::operator new(size));
  auto* node = new (block) ExportedArrayNode{
      std::move(keep_alive), {}, child_count, nullptr, nullptr, nullptr, nullptr, nullptr};
  node->buffers = node->fixed_buffers;
  uint8_t* cursor = block + sizeof(ExportedArrayNode);
  if (variadic_count >= 0) {
    node->buffers = reinterpret_cast<const void**>(cursor);
    cursor += (3 + variadic) * sizeof(void*);
    node->variadic_sizes = reinterpret_cast<int64_t*>(cursor);
    cursor += variadic * sizeof(int64_t);
  }
  node->child_pointers = reinterpret_cast<ArrowArray**>(cursor);
  cursor += children * sizeof(ArrowArray*);  // NOLINT(bugprone-sizeof-expression)
  node->child_arrays = reinterpret_cast<ArrowArray*>(cursor);
  cursor += children * sizeof(ArrowArray);
  node->bitmap = bitmap_bytes > 0 ? cursor : nullptr;
  for (size_t i = 0; i < children; ++i) {
    node->child_arrays[i] = ArrowArray{};
    node->child_pointers[i] = &node->child_arrays[i];
  }
  return node;
}

void ReleaseExportedArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* node = static_cast<ExportedArrayNode*>(array->private_data);
  for (int64_t i = 0; i < node->child_count; ++i) {
    ArrowArray& child = node->child_arrays[i];
    if (child.release != nullptr) child.release(&child);
  }
  node->~ExportedArrayNode();
  ::operator delete(static_cast<void*>(node));
  array->release = nullptr;
}

void PublishNode(ExportedArrayNode* node, int64_t length, int64_t null_count, int64_t offset,
                 int buffer_count, ArrowArray* out) {
  out->length = length;
  out->null_count = null_count;
  out->offset = offset;
  out->n_buffers = buffer_count;
  out->n_children = node->child_count;
  out->buffers = node->buffers;
  out->children = node->child_count > 0 ? node->child_pointers : nullptr;
  out->dictionary = nullptr;
  out->release = ReleaseExportedArray;
  out->private_data = node;
}

void ExportArray(const ArrayData& array, const std::shared_ptr<const ExportKeepAlive>& keep_alive,
                 ArrowArray* out) {
  const TypeId id = array.type->id();
  const int buffer_count = BufferCount(id);
  const bool empty = array.length == 0;
  int64_t offset = array.offset;
  int64_t null_count = array.null_count;
  const uint8_t* validity = null_count > 0 ? array.buffers[0].data : nullptr;
  int64_t bitmap_bytes = 0;
  if (empty) {
    offset = 0;
    null_count = 0;
    validity = nullptr;
  } else if (id == TypeId::kStruct && offset != 0) {
    offset = 0;
    if (validity != nullptr) {
      if (array.offset % 8 == 0) {
        validity += array.offset / 8;
      } else {
        bitmap_bytes = bits::BytesForBits(array.length);
      }
    }
  }
  const bool view = IsBinaryView(id);
  const auto variadic_count = static_cast<int64_t>(array.variadic_buffers.size());
  ExportedArrayNode* node = AllocateNode(keep_alive, static_cast<int64_t>(array.children.size()),
                                         bitmap_bytes, view ? variadic_count : -1);
  if (bitmap_bytes > 0) {
    std::memset(node->bitmap, 0, static_cast<size_t>(bitmap_bytes));
    bits::CopyBits(validity, array.offset, array.length, node->bitmap, 0);
    validity = node->bitmap;
  }
  if (IsUnion(id)) {
    // No validity: the type ids, then (dense) the offsets, advanced to the view's first row, so
    // that the export's offset is 0 (a sparse union's children are aligned with the view).
    offset = 0;
    node->buffers[0] = empty ? kZeroBytes : array.buffers[0].data + array.offset;
    if (id == TypeId::kDenseUnion) {
      node->buffers[1] = empty ? kZeroBytes : array.buffers[1].data + array.offset * 4;
    }
  } else if (buffer_count > 0) {
    node->buffers[0] = validity;
  }
  for (int i = IsUnion(id) ? buffer_count : 1; i < buffer_count; ++i) {
    const uint8_t* data = array.buffers[static_cast<size_t>(i)].data;
    node->buffers[i] = empty || data == nullptr ? kZeroBytes : data;
  }
  int exported_buffers = buffer_count;
  if (view) {
    // The views, then each variadic buffer, then an int64 array of their sizes.
    for (int64_t v = 0; v < variadic_count; ++v) {
      const BufferView& buffer = array.variadic_buffers[static_cast<size_t>(v)];
      node->buffers[2 + v] = buffer.data == nullptr ? kZeroBytes : buffer.data;
      node->variadic_sizes[v] = buffer.size;
    }
    node->buffers[2 + variadic_count] = node->variadic_sizes;
    exported_buffers = static_cast<int>(3 + variadic_count);
  }
  // Published before its children are filled: if one of them cannot be made, releasing `out`
  // frees this node and the children made so far (the rest are still unreleasable empties).
  PublishNode(node, array.length, null_count, offset, exported_buffers, out);
  if (id == TypeId::kDictionary) {
    // The node's one child is the dictionary: C names it apart from the children.
    out->n_children = 0;
    out->children = nullptr;
    out->dictionary = &node->child_arrays[0];
  }
  for (size_t i = 0; i < array.children.size(); ++i) {
    ExportArray(array.children[i], keep_alive, &node->child_arrays[i]);
  }
}

// ---------------------------------------------------------------------------------------------
// Streams

int ErrnoFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kIOError:
      return EIO;
    case StatusCode::kOutOfMemory:
      return ENOMEM;
    case StatusCode::kNotImplemented:
      return ENOSYS;
    case StatusCode::kCancelled:
      return ECANCELED;
    default:
      return EINVAL;
  }
}

struct ExportedStream {
  std::unique_ptr<RecordBatchReader> reader;
  std::string last_error;
};

ExportedStream* StreamState(ArrowArrayStream* stream) {
  return static_cast<ExportedStream*>(stream->private_data);
}

// Records a failure for get_last_error and returns its errno value.
int StreamFailure(ExportedStream* state, const Status& status) {
  try {
    state->last_error = status.ToString();
  } catch (const std::bad_alloc&) {
    state->last_error.clear();
  }
  return ErrnoFor(status);
}

// The callbacks below cross into C: nothing may propagate out of them.
int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  ExportedStream* state = StreamState(stream);
  const Status status = GuardFailures("exporting the schema", [&] {
    const SchemaPtr& schema = state->reader->schema();
    if (schema == nullptr) return Status::Invalid("the exported reader has no schema");
    return ExportSchema(*schema, out);
  });
  return status.ok() ? 0 : StreamFailure(state, status);
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  ExportedStream* state = StreamState(stream);
  const Status status = GuardFailures("reading the next batch", [&] {
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> next, state->reader->Next());
    if (!next.has_value()) {
      *out = ArrowArray{};  // a released array marks the end of the stream
      return Status::OK();
    }
    return ExportRecordBatch(*next, out);
  });
  return status.ok() ? 0 : StreamFailure(state, status);
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  const ExportedStream* state = StreamState(stream);
  return state->last_error.empty() ? nullptr : state->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete StreamState(stream);
  stream->release = nullptr;
}

}  // namespace

Status ExportType(const DataType& type, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportType: the output ArrowSchema is NULL");
  SLUICE_RETURN_NOT_OK(CheckFieldMetadataLengths(type.children()));
  FillSchema(type, "", FieldFlags(type, true), {}, out);
  return Status::OK();
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportField: the output ArrowSchema is NULL");
  if (field.type == nullptr) {
    return Status::Invalid("ExportField: field '", field.name, "' has no type");
  }
  SLUICE_RETURN_NOT_OK(CheckFieldMetadataLengths({field}));
  FillSchema(*field.type, field.name, FieldFlags(*field.type, field.nullable),
             EncodedMetadata(field.metadata), out);
  return Status::OK();
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportSchema: the output ArrowSchema is NULL");
  for (const Field& field : schema.fields()) {
    if (field.type == nullptr) {
      return Status::Invalid("ExportSchema: field '", field.name, "' has no type");
    }
  }
  SLUICE_RETURN_NOT_OK(CheckMetadataLengths(schema.metadata(), "the schema"));
  SLUICE_RETURN_NOT_OK(CheckFieldMetadataLengths(schema.fields()));
  // The top-level struct is a record batch, which has no nulls of its own.
  FillSchema(*DataType::Struct(schema.fields()), "", 0, EncodedMetadata(schema.metadata()), out);
  return Status::OK();
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out) {
  if (out == nullptr) return Status::Invalid("ExportRecordBatch: the output ArrowArray is NULL");
  if (batch.schema() == nullptr)
    return Status::Invalid("ExportRecordBatch: the batch has no schema");
  if (batch.num_columns() != batch.schema()->num_fields()) {
    return Status::Invalid("ExportRecordBatch: the batch has ", batch.num_columns(),
                           " columns but its schema has ", batch.schema()->num_fields(), " fields");
  }
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    const ArrayData& column = batch.column(i);
    if (column.type == nullptr || column.length != batch.num_rows()) {
      return Status::Invalid("ExportRecordBatch: column '", batch.schema()->field(i).name,
                             "' has length ", column.length, " but the batch has ",
                             batch.num_rows(), " rows");
    }
  }
  auto keep_alive =
      std::make_shared<const ExportKeepAlive>(ExportKeepAlive{batch.schema(), batch.owners()});
  ExportedArrayNode* root = AllocateNode(keep_alive, static_cast<int64_t>(batch.num_columns()), 0);
  // The struct of columns: one (absent) validity buffer, no nulls.
  PublishNode(root, batch.num_rows(), 0, 0, BufferCount(TypeId::kStruct), out);
  try {
    for (size_t i = 0; i < batch.num_columns(); ++i) {
      ExportArray(batch.column(i), keep_alive, &root->child_arrays[i]);
    }
  } catch (...) {
    out->release(out);  // what was made so far
    throw;
  }
  return Status::OK();
}

Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out) {
  if (out == nullptr) {
    return Status::Invalid("ExportRecordBatchReader: the output ArrowArrayStream is NULL");
  }
  if (reader == nullptr) return Status::Invalid("ExportRecordBatchReader: the reader is null");
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamGetLastError;
  out->release = StreamRelease;
  out->private_data = new ExportedStream{std::move(reader), {}};
  return Status::OK();
}

}  // namespace sluice
