// Import of Arrow C Data / C Stream structs into Sluice schemas, batches and readers.
// The rules this file follows (what is borrowed, what is computed, what is rejected) are listed at
// the top of c_data.h.

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/bit_ops.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/c_data.h"
#include "sluice/format/dictionary_values.h"

namespace sluice {

namespace {

// Stands in for buffers a producer may omit (those of empty arrays), so that an imported view
// never has a missing values or offsets buffer. 64 bytes hold the single offset of an empty array.
alignas(64) constexpr uint8_t kZeroBytes[64] = {};

// Names what an error is about: a column by its path, or the top-level struct.
std::string Subject(std::string_view path) {
  if (path.empty()) return "top-level struct";
  std::string subject = "column '";
  subject.append(path).append("'");
  return subject;
}

template <typename... Parts>
Status Invalid(std::string_view path, Parts&&... parts) {
  return Status::Invalid(Subject(path), ": ", std::forward<Parts>(parts)...);
}

template <typename... Parts>
Status NotImplemented(std::string_view path, Parts&&... parts) {
  return Status::NotImplemented(Subject(path), ": ", std::forward<Parts>(parts)...);
}

std::string JoinPath(std::string_view parent, std::string_view name) {
  std::string path(parent);
  if (!path.empty()) path.append(".");
  path.append(name);
  return path;
}

// Releases a base structure the importer has taken ownership of, whatever happens.
class SchemaReleaser {
 public:
  explicit SchemaReleaser(ArrowSchema* schema) : schema_(schema) {}
  ~SchemaReleaser() {
    if (schema_ != nullptr && schema_->release != nullptr) schema_->release(schema_);
  }
  SchemaReleaser(const SchemaReleaser&) = delete;
  SchemaReleaser& operator=(const SchemaReleaser&) = delete;

 private:
  ArrowSchema* schema_;
};

// ---------------------------------------------------------------------------------------------
// Schemas

// Parses a decimal int32 (optionally negative) that makes up all of `text`.
bool ParseInt32(std::string_view text, int32_t* value) {
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  int64_t result = 0;
  for (const char digit : text) {
    if (digit < '0' || digit > '9') return false;
    result = result * 10 + (digit - '0');
    if (result > INT32_MAX) return false;
  }
  *value = static_cast<int32_t>(negative ? -result : result);
  return true;
}

// The type of dictionary indices of `id` (a signed or unsigned integer type).
TypePtr IndexType(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return DataType::Int8();
    case TypeId::kUInt8:
      return DataType::UInt8();
    case TypeId::kInt16:
      return DataType::Int16();
    case TypeId::kUInt16:
      return DataType::UInt16();
    case TypeId::kInt32:
      return DataType::Int32();
    case TypeId::kUInt32:
      return DataType::UInt32();
    case TypeId::kInt64:
      return DataType::Int64();
    default:
      return DataType::UInt64();
  }
}

// Returns the index type of a dictionary-encoded field from its format string.
std::optional<TypeId> ParseIndexFormat(std::string_view format) {
  if (format.size() != 1) return std::nullopt;
  switch (format[0]) {
    case 'c':
      return TypeId::kInt8;
    case 'C':
      return TypeId::kUInt8;
    case 's':
      return TypeId::kInt16;
    case 'S':
      return TypeId::kUInt16;
    case 'i':
      return TypeId::kInt32;
    case 'I':
      return TypeId::kUInt32;
    case 'l':
      return TypeId::kInt64;
    case 'L':
      return TypeId::kUInt64;
    default:
      return std::nullopt;
  }
}

// Returns the leaf type of a one-character format, or null.
TypePtr ParsePrimitiveFormat(char format) {
  switch (format) {
    case 'n':
      return DataType::Null();
    case 'b':
      return DataType::Boolean();
    case 'c':
      return DataType::Int8();
    case 'C':
      return DataType::UInt8();
    case 's':
      return DataType::Int16();
    case 'S':
      return DataType::UInt16();
    case 'i':
      return DataType::Int32();
    case 'I':
      return DataType::UInt32();
    case 'l':
      return DataType::Int64();
    case 'L':
      return DataType::UInt64();
    case 'f':
      return DataType::Float32();
    case 'e':
      return DataType::Float16();
    case 'g':
      return DataType::Float64();
    case 'z':
      return DataType::Binary();
    case 'Z':
      return DataType::LargeBinary();
    case 'u':
      return DataType::Utf8();
    case 'U':
      return DataType::LargeUtf8();
    default:
      return nullptr;
  }
}

// The time unit a format letter names (s, m, u, n: timestamps, times, durations), if any.
std::optional<TimeUnit> TimeUnitOfFormat(char letter) {
  switch (letter) {
    case 's':
      return TimeUnit::kSecond;
    case 'm':
      return TimeUnit::kMilli;
    case 'u':
      return TimeUnit::kMicro;
    case 'n':
      return TimeUnit::kNano;
  }
  return std::nullopt;
}

// The type of a date, time, duration or interval format without parameters ("tdD", "tts",
// "tDn", "tiM"...), or null.
TypePtr ParseTemporalFormat(std::string_view format) {
  if (format.size() != 3 || format[0] != 't') return nullptr;
  if (format == "tdD") return DataType::Date32();
  if (format == "tdm") return DataType::Date64();
  if (format == "tiM") return DataType::IntervalYearMonth();
  if (format == "tiD") return DataType::IntervalDayTime();
  if (format == "tin") return DataType::IntervalMonthDayNano();
  const std::optional<TimeUnit> unit = TimeUnitOfFormat(format[2]);
  if (!unit) return nullptr;
  if (format[1] == 'D') return DataType::Duration(*unit);
  if (format[1] == 't') {
    const bool seconds_or_millis = *unit == TimeUnit::kSecond || *unit == TimeUnit::kMilli;
    return seconds_or_millis ? DataType::Time32(*unit) : DataType::Time64(*unit);
  }
  return nullptr;
}

// Parses the type ids of "+us:I,J,..." or "+ud:I,J,...": one per child, distinct, 0 to 127.
Status ParseUnionTypeCodes(std::string_view list, size_t children, const std::string& path,
                           std::string_view format, std::vector<int8_t>* codes) {
  std::array<bool, 128> seen{};
  while (codes->size() <= children) {
    const size_t comma = list.find(',');
    int32_t code = 0;
    if (!ParseInt32(list.substr(0, comma), &code) || code < 0 || code > 127 ||
        seen[static_cast<size_t>(code)]) {
      return Invalid(path, "ArrowSchema.format: expected distinct union type ids 0 to 127 in \"",
                     format, "\"");
    }
    seen[static_cast<size_t>(code)] = true;
    codes->push_back(static_cast<int8_t>(code));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  if (codes->size() != children) {
    return Invalid(path, "ArrowSchema.format \"", format, "\" names ", codes->size(),
                   " type ids for ", children, " children");
  }
  return Status::OK();
}

Status ParseDecimalFormat(std::string_view format, const std::string& path, TypePtr* type) {
  // "d:precision,scale" or "d:precision,scale,bit_width".
  std::vector<std::string_view> parts;
  std::string_view parameters = format.substr(2);
  while (parts.size() < 4) {
    const size_t comma = parameters.find(',');
    parts.push_back(parameters.substr(0, comma));
    if (comma == std::string_view::npos) break;
    parameters.remove_prefix(comma + 1);
  }
  const size_t part_count = parts.size();
  int32_t precision = 0;
  int32_t scale = 0;
  int32_t bit_width = 128;
  if (part_count < 2 || part_count > 3 || !ParseInt32(parts[0], &precision) ||
      !ParseInt32(parts[1], &scale) || (part_count == 3 && !ParseInt32(parts[2], &bit_width))) {
    return Invalid(path, "ArrowSchema.format: expected \"d:precision,scale[,bit_width]\", found \"",
                   format, "\"");
  }
  if (bit_width != 32 && bit_width != 64 && bit_width != 128 && bit_width != 256) {
    return Invalid(path, "ArrowSchema.format \"", format,
                   "\": expected a decimal bit width of 32, 64, 128 or 256, found ", bit_width);
  }
  TypePtr decimal = DataType::Decimal(bit_width, precision, scale);
  // decimal32 holds at most 9 digits, decimal64 18, decimal128 38, decimal256 76.
  const int32_t max_precision = MaxDecimalPrecision(decimal->id());
  if (precision < 1 || precision > max_precision) {
    return Invalid(path, "ArrowSchema.format \"", format, "\": expected a decimal", bit_width,
                   " precision in [1, ", max_precision, "], found ", precision);
  }
  *type = std::move(decimal);
  return Status::OK();
}

// Parses the int32-length-prefixed key-value encoding of ArrowSchema.metadata.
Status ParseMetadata(const char* metadata, KeyValueMetadata* pairs) {
  if (metadata == nullptr) return Status::OK();
  const char* cursor = metadata;
  auto read_length = [&cursor](int32_t* length) {
    *length = bits::LoadUnaligned<int32_t>(cursor);
    cursor += sizeof(int32_t);
    return *length >= 0;
  };
  int32_t count = 0;
  if (!read_length(&count)) {
    return Invalid("", "ArrowSchema.metadata: expected a pair count >= 0, found ", count);
  }
  pairs->reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    int32_t key_length = 0;
    if (!read_length(&key_length)) {
      return Invalid("", "ArrowSchema.metadata: key ", i, " has a negative length (", key_length,
                     ")");
    }
    std::string key(cursor, static_cast<size_t>(key_length));
    cursor += key_length;
    int32_t value_length = 0;
    if (!read_length(&value_length)) {
      return Invalid("", "ArrowSchema.metadata: the value of key '", key,
                     "' has a negative length (", value_length, ")");
    }
    std::string value(cursor, static_cast<size_t>(value_length));
    cursor += value_length;
    pairs->emplace_back(std::move(key), std::move(value));
  }
  return Status::OK();
}

Status ImportTypeNode(const ArrowSchema* schema, const std::string& path, int depth, TypePtr* type);

Status ImportFieldNode(const ArrowSchema* schema, std::string_view parent_path, int64_t index,
                       int depth, Field* field) {
  if (schema == nullptr) {
    return Invalid(parent_path, "ArrowSchema.children[", index, "] is NULL");
  }
  field->name = schema->name != nullptr ? schema->name : "";
  field->nullable = (schema->flags & ARROW_FLAG_NULLABLE) != 0;
  SLUICE_RETURN_NOT_OK(ParseMetadata(schema->metadata, &field->metadata));
  return ImportTypeNode(schema, JoinPath(parent_path, field->name), depth, &field->type);
}

Status ImportChildren(const ArrowSchema* schema, const std::string& path, int depth,
                      std::vector<Field>* fields) {
  const auto count = static_cast<size_t>(schema->n_children);
  fields->resize(count);
  for (size_t i = 0; i < count; ++i) {
    SLUICE_RETURN_NOT_OK(ImportFieldNode(schema->children[i], path, static_cast<int64_t>(i),
                                         depth + 1, &(*fields)[i]));
  }
  return Status::OK();
}

Status ExpectChildren(const ArrowSchema* schema, const std::string& path, int64_t expected) {
  if (schema->n_children != expected) {
    return Invalid(path, "ArrowSchema.n_children: expected ", expected, " for format \"",
                   schema->format, "\", found ", schema->n_children);
  }
  return Status::OK();
}

Status ImportTypeNode(const ArrowSchema* schema, const std::string& path, int depth,
                      TypePtr* type) {
  if (depth > kMaxNestingDepth) {
    return Invalid(path, "the type is nested deeper than ", kMaxNestingDepth, " levels");
  }
  if (schema->release == nullptr) {
    return Invalid(path, "ArrowSchema.release is NULL: the schema was already released");
  }
  if (schema->format == nullptr) return Invalid(path, "ArrowSchema.format is NULL");
  if (schema->n_children < 0) {
    return Invalid(path, "ArrowSchema.n_children: expected >= 0, found ", schema->n_children);
  }
  if (schema->n_children > 0 && schema->children == nullptr) {
    return Invalid(path, "ArrowSchema.children is NULL but ArrowSchema.n_children is ",
                   schema->n_children);
  }
  const std::string_view format(schema->format);

  if (schema->dictionary != nullptr) {
    // The format names the index type; the dictionary describes the values, which Sluice keeps.
    const std::optional<TypeId> index_type = ParseIndexFormat(format);
    if (!index_type) {
      return Invalid(path,
                     "ArrowSchema.format: a dictionary index type must be a signed or unsigned "
                     "integer (c, C, s, S, i, I, l or L), found \"",
                     format, "\"");
    }
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
    TypePtr value_type;
    SLUICE_RETURN_NOT_OK(ImportTypeNode(schema->dictionary, path, depth + 1, &value_type));
    if (HasDictionary(*value_type)) {
      return Invalid(path,
                     "a dictionary whose values are (or hold) dictionary-encoded values is "
                     "not supported");
    }
    *type = DataType::Dictionary(IndexType(*index_type), std::move(value_type),
                                 (schema->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
    return Status::OK();
  }

  if (format.size() == 1) {
    if (TypePtr primitive = ParsePrimitiveFormat(format[0])) {
      SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
      *type = std::move(primitive);
      return Status::OK();
    }
  }
  if (format == "vz" || format == "vu") {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
    *type = format == "vz" ? DataType::BinaryView() : DataType::Utf8View();
    return Status::OK();
  }
  if (TypePtr temporal = ParseTemporalFormat(format)) {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
    *type = std::move(temporal);
    return Status::OK();
  }
  if (format.size() >= 4 && format.substr(0, 2) == "ts" && format[3] == ':') {
    const std::optional<TimeUnit> unit = TimeUnitOfFormat(format[2]);
    if (!unit) {
      return Invalid(path, "ArrowSchema.format: expected a timestamp unit s, m, u or n in \"",
                     format, "\"");
    }
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
    *type = DataType::Timestamp(*unit, std::string(format.substr(4)));
    return Status::OK();
  }
  if (format.substr(0, 2) == "d:") {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
    return ParseDecimalFormat(format, path, type);
  }
  if (format.substr(0, 2) == "w:") {
    int32_t byte_width = 0;
    if (!ParseInt32(format.substr(2), &byte_width) || byte_width < 0) {
      return Invalid(path,
                     "ArrowSchema.format: expected \"w:byte_width\" with a width >= 0, found \"",
                     format, "\"");
    }
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 0));
    *type = DataType::FixedSizeBinary(byte_width);
    return Status::OK();
  }
  if (format == "+l" || format == "+L") {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 1));
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    *type = format == "+l" ? DataType::List(std::move(fields[0]))
                           : DataType::LargeList(std::move(fields[0]));
    return Status::OK();
  }
  if (format == "+vl" || format == "+vL") {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 1));
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    *type = format == "+vl" ? DataType::ListView(std::move(fields[0]))
                            : DataType::LargeListView(std::move(fields[0]));
    return Status::OK();
  }
  if (format.substr(0, 3) == "+w:") {
    int32_t list_size = 0;
    if (!ParseInt32(format.substr(3), &list_size) || list_size < 0) {
      return Invalid(path,
                     "ArrowSchema.format: expected \"+w:list_size\" with a size >= 0, found \"",
                     format, "\"");
    }
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 1));
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    *type = DataType::FixedSizeList(std::move(fields[0]), list_size);
    return Status::OK();
  }
  if (format.substr(0, 4) == "+us:" || format.substr(0, 4) == "+ud:") {
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    std::vector<int8_t> codes;
    if (format.size() > 4 || !fields.empty()) {
      SLUICE_RETURN_NOT_OK(
          ParseUnionTypeCodes(format.substr(4), fields.size(), path, format, &codes));
    }
    *type = format[2] == 's' ? DataType::SparseUnion(std::move(fields), std::move(codes))
                             : DataType::DenseUnion(std::move(fields), std::move(codes));
    return Status::OK();
  }
  if (format == "+r") {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 2));
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    if (!IsRunEndType(fields[0].type->id())) {
      return Invalid(path,
                     "ArrowSchema.children[0]: run_end_encoded run ends must be int16, int32 or "
                     "int64, found ",
                     fields[0].ToString());
    }
    *type = DataType::RunEndEncoded(std::move(fields[0].type), std::move(fields[1].type));
    return Status::OK();
  }
  if (format == "+s") {
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    *type = DataType::Struct(std::move(fields));
    return Status::OK();
  }
  if (format == "+m") {
    SLUICE_RETURN_NOT_OK(ExpectChildren(schema, path, 1));
    std::vector<Field> fields;
    SLUICE_RETURN_NOT_OK(ImportChildren(schema, path, depth, &fields));
    const Field& entries = fields[0];
    if (entries.type->id() != TypeId::kStruct || entries.type->children().size() != 2) {
      return Invalid(path,
                     "ArrowSchema.children[0]: a map's child must be a struct of two fields "
                     "(key, value), found ",
                     entries.ToString());
    }
    *type = DataType::Map(std::move(fields[0]), (schema->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
    return Status::OK();
  }
  return Invalid(path, "ArrowSchema.format: unknown format string \"", format, "\"");
}

Status CheckBaseSchema(const ArrowSchema* schema, const char* function) {
  if (schema == nullptr) return Status::Invalid(function, ": the ArrowSchema is NULL");
  if (schema->release == nullptr) {
    return Status::Invalid(function,
                           ": ArrowSchema.release is NULL: the schema was already released");
  }
  return Status::OK();
}

Result<SchemaPtr> ImportTopLevelSchema(const ArrowSchema* schema) {
  if (schema->format == nullptr || std::string_view(schema->format) != "+s" ||
      schema->dictionary != nullptr) {
    return Invalid(
        "",
        "ArrowSchema.format: expected \"+s\" (a struct whose children are the "
        "columns), found ",
        schema->format == nullptr ? std::string("NULL") : "\"" + std::string(schema->format) + "\"",
        schema->dictionary != nullptr ? " with a dictionary" : "");
  }
  TypePtr struct_type;
  SLUICE_RETURN_NOT_OK(ImportTypeNode(schema, "", 0, &struct_type));
  KeyValueMetadata metadata;
  SLUICE_RETURN_NOT_OK(ParseMetadata(schema->metadata, &metadata));
  return SchemaPtr(std::make_shared<Schema>(struct_type->children(), std::move(metadata)));
}

// ---------------------------------------------------------------------------------------------
// Arrays

// Imports C arrays into views (a dictionary-encoded array's dictionary as its child).
class ArrayImporter {
 public:
  // Imports `array` as a view of `type`. For a struct's child, `parent_length` >= 0 and the view
  // covers rows [parent_offset, parent_offset + parent_length) of the array (the struct's offset
  // applies to its children); otherwise (parent_length < 0) the view is the whole array.
  Status Import(const ArrowArray* array, const DataType* type, int64_t parent_offset,
                int64_t parent_length, const std::string& path, int depth, ArrayData* out);

 private:
  Status ImportDictionary(const ArrowArray* array, const DataType* type, const uint8_t* validity,
                          int64_t view_offset, int64_t view_length, const std::string& path,
                          int depth, ArrayData* out);
  Status ImportOffsets(const ArrowArray* array, int offset_width, const std::string& path,
                       ArrayData* out);
  Status ImportViews(const ArrowArray* array, int64_t view_offset, int64_t view_length,
                     const std::string& path, ArrayData* out);
  Status ImportUnion(const ArrowArray* array, const DataType* type, int64_t view_offset,
                     int64_t view_length, const std::string& path, int depth, ArrayData* out);
  Status ImportRunEndEncoded(const ArrowArray* array, const DataType* type, int64_t view_offset,
                             int64_t view_length, const std::string& path, int depth,
                             ArrayData* out);
};

Status CheckArrayHeader(const ArrowArray* array, const std::string& path) {
  if (array->release == nullptr) {
    return Invalid(path, "ArrowArray.release is NULL: the array was already released or moved");
  }
  if (array->length < 0) {
    return Invalid(path, "ArrowArray.length: expected >= 0, found ", array->length);
  }
  if (array->offset < 0) {
    return Invalid(path, "ArrowArray.offset: expected >= 0, found ", array->offset);
  }
  int64_t end = 0;
  if (__builtin_add_overflow(array->offset, array->length, &end)) {
    return Invalid(path, "ArrowArray.offset + ArrowArray.length overflows (", array->offset, " + ",
                   array->length, ")");
  }
  if (array->null_count < -1 || array->null_count > array->length) {
    return Invalid(path, "ArrowArray.null_count: expected -1 or a count in [0, length ",
                   array->length, "], found ", array->null_count);
  }
  return Status::OK();
}

Status CheckCounts(const ArrowArray* array, int64_t buffer_count, int64_t child_count,
                   const std::string& path, std::string_view what) {
  if (array->n_buffers != buffer_count) {
    return Invalid(path, "ArrowArray.n_buffers: expected ", buffer_count, " for ", what, ", found ",
                   array->n_buffers);
  }
  if (buffer_count > 0 && array->buffers == nullptr) {
    return Invalid(path, "ArrowArray.buffers is NULL but ArrowArray.n_buffers is ", buffer_count);
  }
  if (array->n_children != child_count) {
    return Invalid(path, "ArrowArray.n_children: expected ", child_count, " for ", what, ", found ",
                   array->n_children);
  }
  if (child_count > 0 && array->children == nullptr) {
    return Invalid(path, "ArrowArray.children is NULL but ArrowArray.n_children is ", child_count);
  }
  for (int64_t i = 0; i < child_count; ++i) {
    if (array->children[i] == nullptr) {
      return Invalid(path, "ArrowArray.children[", i, "] is NULL");
    }
  }
  return Status::OK();
}

// Returns the number of nulls of the view [view_offset, view_offset + view_length) of `array`,
// or sets *validity to null when there are none.
int64_t ViewNullCount(const ArrowArray* array, int64_t view_offset, int64_t view_length,
                      const uint8_t** validity) {
  if (*validity == nullptr || array->null_count == 0) {
    *validity = nullptr;
    return 0;
  }
  if (view_offset == array->offset && view_length == array->length && array->null_count > 0) {
    return array->null_count;  // ValidateArray checks it against the bitmap
  }
  if (array->null_count == array->length) return view_length;
  return view_length - bits::CountSetBits(*validity, view_offset, view_length);
}

Status ArrayImporter::ImportOffsets(const ArrowArray* array, int offset_width,
                                    const std::string& path, ArrayData* out) {
  const int64_t end = out->offset + out->length;
  if (out->length == 0) {
    out->offset = 0;
    out->buffers[1] = BufferView{kZeroBytes, offset_width};
    return Status::OK();
  }
  const auto* offsets = static_cast<const uint8_t*>(array->buffers[1]);
  if (offsets == nullptr) {
    return Invalid(path, "ArrowArray.buffers[1] (offsets) is NULL but the array has ", out->length,
                   " values");
  }
  int64_t size = 0;
  if (__builtin_mul_overflow(end + 1, static_cast<int64_t>(offset_width), &size)) {
    return Invalid(path, "ArrowArray.offset + ArrowArray.length of offsets overflows");
  }
  out->buffers[1] = BufferView{offsets, size};
  return Status::OK();
}

// The views of rows [view_offset, view_offset + view_length) and every variadic buffer, sized
// by the int64 array that ends the buffers (ValidateArray checks each view against them).
Status ArrayImporter::ImportViews(const ArrowArray* array, int64_t view_offset, int64_t view_length,
                                  const std::string& path, ArrayData* out) {
  const int64_t variadic_count = array->n_buffers - 3;
  const auto* sizes = static_cast<const int64_t*>(array->buffers[array->n_buffers - 1]);
  if (sizes == nullptr && variadic_count > 0) {
    return Invalid(path, "ArrowArray.buffers[", array->n_buffers - 1,
                   "] (the variadic buffer sizes) is NULL");
  }
  out->variadic_buffers.resize(static_cast<size_t>(variadic_count));
  for (int64_t v = 0; v < variadic_count; ++v) {
    const auto* data = static_cast<const uint8_t*>(array->buffers[2 + v]);
    const int64_t size = sizes[v];
    if (size < 0 || (data == nullptr && size > 0)) {
      return Invalid(path, "ArrowArray.buffers[", 2 + v, "] (variadic buffer ", v, "): size ", size,
                     data == nullptr ? " but the buffer is NULL" : "");
    }
    out->variadic_buffers[static_cast<size_t>(v)] =
        BufferView{data != nullptr ? data : kZeroBytes, size};
  }
  if (view_length == 0) {
    out->offset = 0;
    out->buffers[1] = BufferView{kZeroBytes, 0};
    return Status::OK();
  }
  const auto* views = static_cast<const uint8_t*>(array->buffers[1]);
  if (views == nullptr) {
    return Invalid(path, "ArrowArray.buffers[1] (views) is NULL but the array has ", view_length,
                   " values");
  }
  out->buffers[1] = BufferView{views, (view_offset + view_length) * 16};
  return Status::OK();
}

Status ArrayImporter::Import(const ArrowArray* array, const DataType* type, int64_t parent_offset,
                             int64_t parent_length, const std::string& path, int depth,
                             ArrayData* out) {
  if (depth > kMaxNestingDepth) {
    return Invalid(path, "the array is nested deeper than ", kMaxNestingDepth, " levels");
  }
  SLUICE_RETURN_NOT_OK(CheckArrayHeader(array, path));
  int64_t view_offset = array->offset;
  int64_t view_length = array->length;
  if (parent_length >= 0) {
    int64_t needed = 0;
    if (__builtin_add_overflow(parent_offset, parent_length, &needed) || needed > array->length) {
      return Invalid(path, "ArrowArray.length: a struct child must hold the parent's offset ",
                     parent_offset, " + length ", parent_length, " rows, found ", array->length);
    }
    view_offset = array->offset + parent_offset;
    view_length = parent_length;
  }

  const bool dictionary_encoded = type->id() == TypeId::kDictionary;
  if (array->dictionary != nullptr && !dictionary_encoded) {
    return Invalid(path,
                   "ArrowArray.dictionary is set but the schema does not describe the field as "
                   "dictionary-encoded");
  }
  if (dictionary_encoded && array->dictionary == nullptr) {
    return Invalid(path, "ArrowArray.dictionary is NULL but the field is dictionary-encoded");
  }

  const TypeId id = type->id();
  if (dictionary_encoded) {
    SLUICE_RETURN_NOT_OK(CheckCounts(array, 2, 0, path, "dictionary indices"));
  } else if (IsBinaryView(id)) {
    // The validity, the views, the variadic data buffers, and an int64 array of their sizes.
    if (array->n_buffers < 3) {
      return Invalid(path, "ArrowArray.n_buffers: expected at least 3 for ", type->ToString(),
                     ", found ", array->n_buffers);
    }
    SLUICE_RETURN_NOT_OK(CheckCounts(array, array->n_buffers, 0, path, type->ToString()));
  } else {
    SLUICE_RETURN_NOT_OK(CheckCounts(array, BufferCount(id),
                                     static_cast<int64_t>(type->children().size()), path,
                                     type->ToString()));
  }

  if (id == TypeId::kRunEndEncoded) {
    return ImportRunEndEncoded(array, type, view_offset, view_length, path, depth, out);
  }
  if (IsUnion(id)) {
    return ImportUnion(array, type, view_offset, view_length, path, depth, out);
  }
  const uint8_t* validity = nullptr;
  if (id != TypeId::kNull || dictionary_encoded) {
    validity = static_cast<const uint8_t*>(array->buffers[0]);
    if (validity == nullptr && array->null_count > 0) {
      return Invalid(path, "ArrowArray.buffers[0] (validity) is NULL but ArrowArray.null_count is ",
                     array->null_count);
    }
  }
  if (view_length == 0) validity = nullptr;
  if (dictionary_encoded) {
    return ImportDictionary(array, type, validity, view_offset, view_length, path, depth, out);
  }

  out->type = type;
  out->offset = view_offset;
  out->length = view_length;
  out->buffers = {};
  out->children.clear();
  if (id == TypeId::kNull) {
    out->null_count = view_length;
    return Status::OK();
  }
  out->null_count = ViewNullCount(array, view_offset, view_length, &validity);
  if (validity != nullptr) {
    out->buffers[0] = BufferView{validity, bits::BytesForBits(view_offset + view_length)};
  }

  if (IsFixedWidth(id)) {
    if (view_length == 0) {
      out->offset = 0;
      out->buffers[1] = BufferView{kZeroBytes, 0};
      return Status::OK();
    }
    int64_t bit_count = 0;
    if (__builtin_mul_overflow(view_offset + view_length, static_cast<int64_t>(BitWidth(*type)),
                               &bit_count)) {
      return Invalid(path, "ArrowArray.offset + ArrowArray.length of ", type->ToString(),
                     " values overflows");
    }
    const int64_t size = bit_count / 8 + (bit_count % 8 != 0);
    const auto* values = static_cast<const uint8_t*>(array->buffers[1]);
    if (values == nullptr && size > 0) {
      return Invalid(path, "ArrowArray.buffers[1] (values) is NULL but the array has ", view_length,
                     " values");
    }
    out->buffers[1] = BufferView{values != nullptr ? values : kZeroBytes, size};
    return Status::OK();
  }

  if (IsBinaryLike(id)) {
    const int offset_width = HasLargeOffsets(id) ? 8 : 4;
    SLUICE_RETURN_NOT_OK(ImportOffsets(array, offset_width, path, out));
    if (out->length == 0) {
      out->buffers[2] = BufferView{kZeroBytes, 0};
      return Status::OK();
    }
    // The C interface carries no sizes: the data buffer holds what the last offset says.
    const uint8_t* last_entry = out->buffers[1].data + (view_offset + view_length) * offset_width;
    const int64_t last = offset_width == 8 ? bits::LoadUnaligned<int64_t>(last_entry)
                                           : bits::LoadUnaligned<int32_t>(last_entry);
    const auto* data = static_cast<const uint8_t*>(array->buffers[2]);
    if (data == nullptr && last > 0) {
      return Invalid(path, "ArrowArray.buffers[2] (data) is NULL but the offsets reference ", last,
                     " bytes");
    }
    out->buffers[2] =
        BufferView{data != nullptr ? data : kZeroBytes, data != nullptr && last > 0 ? last : 0};
    return Status::OK();
  }

  if (IsBinaryView(id)) return ImportViews(array, view_offset, view_length, path, out);

  if (id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap) {
    SLUICE_RETURN_NOT_OK(ImportOffsets(array, HasLargeOffsets(id) ? 8 : 4, path, out));
    const Field& element = type->children()[0];
    out->children.resize(1);
    return Import(array->children[0], element.type.get(), 0, -1, JoinPath(path, element.name),
                  depth + 1, &out->children[0]);
  }

  if (IsListView(id)) {
    // Offsets and sizes, one of each per row of the view (ValidateArray checks each non-null
    // row's range against the whole child).
    const int64_t width = id == TypeId::kLargeListView ? 8 : 4;
    for (size_t b = 1; b <= 2; ++b) {
      if (view_length == 0) {
        out->buffers[b] = BufferView{kZeroBytes, 0};
        continue;
      }
      const auto* data = static_cast<const uint8_t*>(array->buffers[b]);
      if (data == nullptr) {
        return Invalid(path, "ArrowArray.buffers[", b, "] (", b == 1 ? "offsets" : "sizes",
                       ") is NULL but the array has ", view_length, " values");
      }
      int64_t size = 0;
      if (__builtin_mul_overflow(view_offset + view_length, width, &size)) {
        return Invalid(path, "ArrowArray.offset + ArrowArray.length of offsets overflows");
      }
      out->buffers[b] = BufferView{data, size};
    }
    if (view_length == 0) out->offset = 0;
    const Field& element = type->children()[0];
    out->children.resize(1);
    return Import(array->children[0], element.type.get(), 0, -1, JoinPath(path, element.name),
                  depth + 1, &out->children[0]);
  }

  if (id == TypeId::kFixedSizeList) {
    // No offsets: row i's elements are child rows [i * size, (i + 1) * size) of the whole child,
    // which ValidateArray checks holds them.
    const Field& element = type->children()[0];
    out->children.resize(1);
    return Import(array->children[0], element.type.get(), 0, -1, JoinPath(path, element.name),
                  depth + 1, &out->children[0]);
  }

  // Struct: the children are aligned with this view, so the view's rows are pushed down.
  if (view_length == 0) out->offset = 0;
  const size_t child_count = type->children().size();
  out->children.resize(child_count);
  for (size_t i = 0; i < child_count; ++i) {
    const Field& field = type->children()[i];
    SLUICE_RETURN_NOT_OK(Import(array->children[i], field.type.get(),
                                view_length == 0 ? 0 : view_offset, view_length,
                                JoinPath(path, field.name), depth + 1, &out->children[i]));
  }
  return Status::OK();
}

// The type ids (buffers[0]) and a dense union's offsets (buffers[1]) of the view's rows; a
// sparse union's children are aligned with the view as a struct's are, a dense union's are
// imported whole (ValidateArray checks the ids and offsets against them).
Status ArrayImporter::ImportUnion(const ArrowArray* array, const DataType* type,
                                  int64_t view_offset, int64_t view_length, const std::string& path,
                                  int depth, ArrayData* out) {
  if (array->null_count > 0) {
    return Invalid(path, "ArrowArray.null_count: a union has no nulls of its own, found ",
                   array->null_count);
  }
  const bool dense = type->id() == TypeId::kDenseUnion;
  out->type = type;
  out->offset = view_length == 0 ? 0 : view_offset;
  out->length = view_length;
  out->null_count = 0;
  out->buffers = {};
  const int64_t end = view_offset + view_length;
  for (int b = 0; b < (dense ? 2 : 1); ++b) {
    const auto* data = static_cast<const uint8_t*>(array->buffers[b]);
    if (view_length == 0) {
      out->buffers[b] = BufferView{kZeroBytes, 0};
      continue;
    }
    if (data == nullptr) {
      return Invalid(path, "ArrowArray.buffers[", b, "] (", b == 0 ? "type ids" : "offsets",
                     ") is NULL but the union has ", view_length, " rows");
    }
    int64_t size = 0;
    if (__builtin_mul_overflow(end, b == 0 ? 1 : 4, &size)) {
      return Invalid(path, "ArrowArray.offset + ArrowArray.length of offsets overflows");
    }
    out->buffers[b] = BufferView{data, size};
  }
  const size_t child_count = type->children().size();
  out->children.resize(child_count);
  for (size_t i = 0; i < child_count; ++i) {
    const Field& field = type->children()[i];
    SLUICE_RETURN_NOT_OK(
        Import(array->children[i], field.type.get(), dense || view_length == 0 ? 0 : view_offset,
               dense ? -1 : view_length, JoinPath(path, field.name), depth + 1, &out->children[i]));
  }
  return Status::OK();
}

// No buffers: the view's offset and length are logical rows; the run ends and values are
// imported whole (ValidateArray checks that the runs cover the view).
Status ArrayImporter::ImportRunEndEncoded(const ArrowArray* array, const DataType* type,
                                          int64_t view_offset, int64_t view_length,
                                          const std::string& path, int depth, ArrayData* out) {
  if (array->null_count > 0) {
    return Invalid(path, "ArrowArray.null_count: a run_end_encoded array has no nulls of its own, ",
                   "found ", array->null_count);
  }
  out->type = type;
  out->offset = view_length == 0 ? 0 : view_offset;
  out->length = view_length;
  out->null_count = 0;
  out->buffers = {};
  out->children.resize(2);
  for (size_t i = 0; i < 2; ++i) {
    const Field& field = type->children()[i];
    SLUICE_RETURN_NOT_OK(Import(array->children[i], field.type.get(), 0, -1,
                                JoinPath(path, field.name), depth + 1, &out->children[i]));
  }
  return Status::OK();
}

Status ArrayImporter::ImportDictionary(const ArrowArray* array, const DataType* type,
                                       const uint8_t* validity, int64_t view_offset,
                                       int64_t view_length, const std::string& path, int depth,
                                       ArrayData* out) {
  if (array->null_count == 0) validity = nullptr;
  const std::string dictionary_path = path + "[dictionary]";
  ArrayData dictionary;
  SLUICE_RETURN_NOT_OK(Import(array->dictionary, type->value_type().get(), 0, -1, dictionary_path,
                              depth + 1, &dictionary));
  const auto* indices = static_cast<const uint8_t*>(array->buffers[1]);
  if (indices == nullptr && view_length > 0) {
    return Invalid(path, "ArrowArray.buffers[1] (dictionary indices) is NULL but the array has ",
                   view_length, " values");
  }
  // The indices with the view's validity, and the dictionary as the one child (ValidateArray
  // checks every index against it).
  out->type = type;
  out->offset = view_length == 0 ? 0 : view_offset;
  out->length = view_length;
  out->null_count = ViewNullCount(array, view_offset, view_length, &validity);
  out->buffers = {};
  if (validity != nullptr) {
    out->buffers[0] = BufferView{validity, bits::BytesForBits(view_offset + view_length)};
  }
  const int64_t width = BitWidth(*type->index_type()) / 8;
  int64_t indices_size = 0;
  if (__builtin_mul_overflow(view_offset + view_length, width, &indices_size)) {
    return Invalid(path, "ArrowArray.offset + length of ", width, "-byte indices overflows");
  }
  out->buffers[1] =
      view_length == 0 ? BufferView{kZeroBytes, 0} : BufferView{indices, indices_size};
  out->children.assign(1, dictionary);
  return Status::OK();
}

// Owns an imported ArrowArray and releases it when the last batch viewing it is gone.
std::shared_ptr<ArrowArray> TakeArray(ArrowArray* array) {
  auto* moved = new ArrowArray(*array);
  array->release = nullptr;  // moved, as the spec describes: the source is marked released
  return std::shared_ptr<ArrowArray>(moved, [](ArrowArray* owned) {
    if (owned->release != nullptr) owned->release(owned);
    delete owned;
  });
}

// ---------------------------------------------------------------------------------------------
// Streams

std::string_view ErrnoName(int code) {
  switch (code) {
    case EINVAL:
      return "EINVAL";
    case ENOMEM:
      return "ENOMEM";
    case EIO:
      return "EIO";
    case ENOSYS:
      return "ENOSYS";
    case ECANCELED:
      return "ECANCELED";
    default:
      return "error";
  }
}

class ImportedStreamReader final : public RecordBatchReader {
 public:
  explicit ImportedStreamReader(ArrowArrayStream* stream) : stream_(*stream) {
    stream->release = nullptr;  // moved
  }
  ~ImportedStreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }
  ImportedStreamReader(const ImportedStreamReader&) = delete;
  ImportedStreamReader& operator=(const ImportedStreamReader&) = delete;

  Status Open() {
    if (stream_.get_schema == nullptr || stream_.get_next == nullptr ||
        stream_.get_last_error == nullptr) {
      return Status::Invalid(
          "ArrowArrayStream: a callback (get_schema, get_next or "
          "get_last_error) is NULL");
    }
    ArrowSchema schema{};
    const int code = stream_.get_schema(&stream_, &schema);
    if (code != 0) return StreamError("get_schema", code);
    SLUICE_ASSIGN_OR_RAISE(schema_, ImportSchema(&schema));
    return Status::OK();
  }

  const SchemaPtr& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (!error_.ok()) return error_;
    if (finished_) return std::optional<RecordBatch>();
    ArrowArray array{};
    const int code = stream_.get_next(&stream_, &array);
    if (code != 0) {
      error_ = StreamError("get_next", code);
      return error_;
    }
    if (array.release == nullptr) {
      finished_ = true;
      return std::optional<RecordBatch>();
    }
    Result<RecordBatch> batch = ImportRecordBatch(&array, schema_);
    if (!batch.ok()) {
      error_ = batch.status();
      return error_;
    }
    return std::optional<RecordBatch>(std::move(batch).ValueUnsafe());
  }

 private:
  Status StreamError(const char* callback, int code) {
    const char* text = stream_.get_last_error(&stream_);
    std::string message = std::string("ArrowArrayStream.") + callback + " failed with " +
                          std::string(ErrnoName(code)) + " (" + std::to_string(code) + ")" +
                          (text != nullptr ? std::string(": ") + text : std::string());
    switch (code) {
      case ENOMEM:
        return Status::OutOfMemory(message);
      case ENOSYS:
        return Status::NotImplemented(message);
      case ECANCELED:
        return Status::Cancelled(message);
      case EINVAL:
        return Status::Invalid(message);
      default:
        return Status::IOError(message);
    }
  }

  ArrowArrayStream stream_;
  SchemaPtr schema_;
  bool finished_ = false;
  Status error_;
};

}  // namespace

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  SLUICE_RETURN_NOT_OK(CheckBaseSchema(schema, "ImportSchema"));
  SchemaReleaser releaser(schema);
  return ImportTopLevelSchema(schema);
}

Result<Field> ImportField(ArrowSchema* schema) {
  SLUICE_RETURN_NOT_OK(CheckBaseSchema(schema, "ImportField"));
  SchemaReleaser releaser(schema);
  Field field;
  SLUICE_RETURN_NOT_OK(ImportFieldNode(schema, "", 0, 0, &field));
  return field;
}

Result<TypePtr> ImportType(ArrowSchema* schema) {
  SLUICE_ASSIGN_OR_RAISE(Field field, ImportField(schema));
  return field.type;
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, const SchemaPtr& schema) {
  if (array == nullptr) return Status::Invalid("ImportRecordBatch: the ArrowArray is NULL");
  if (array->release == nullptr) {
    return Invalid("", "ArrowArray.release is NULL: the array was already released or moved");
  }
  std::shared_ptr<ArrowArray> owned = TakeArray(array);
  if (schema == nullptr) return Status::Invalid("ImportRecordBatch: the schema is null");
  const Schema& columns_schema = *schema;
  const ArrowArray* root = owned.get();
  SLUICE_RETURN_NOT_OK(CheckArrayHeader(root, ""));
  SLUICE_RETURN_NOT_OK(CheckCounts(root, 1, static_cast<int64_t>(columns_schema.num_fields()), "",
                                   "a struct of the schema's columns"));
  if (root->dictionary != nullptr) {
    return Invalid("", "ArrowArray.dictionary is set on the struct of columns");
  }
  const auto* validity = static_cast<const uint8_t*>(root->buffers[0]);
  if (validity != nullptr && root->null_count != 0 && root->length > 0) {
    const int64_t nulls = root->length - bits::CountSetBits(validity, root->offset, root->length);
    if (nulls > 0) {
      return Invalid("", "the struct of columns has ", nulls,
                     " null rows; a record batch has no null rows");
    }
  } else if (validity == nullptr && root->null_count > 0) {
    return Invalid("", "ArrowArray.buffers[0] (validity) is NULL but ArrowArray.null_count is ",
                   root->null_count);
  }

  std::vector<MemoryOwner> owners;
  owners.push_back(owned);
  ArrayImporter importer;
  std::vector<ArrayData> columns(columns_schema.num_fields());
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& field = columns_schema.field(i);
    SLUICE_RETURN_NOT_OK(importer.Import(root->children[i], field.type.get(), root->offset,
                                         root->length, field.name, 1, &columns[i]));
    SLUICE_RETURN_NOT_OK(ValidateArray(columns[i], field.name));
  }
  return RecordBatch(schema, root->length, std::move(columns), std::move(owners));
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  Result<SchemaPtr> imported = ImportSchema(schema);
  if (!imported.ok()) {
    if (array != nullptr && array->release != nullptr) array->release(array);
    return imported.status();
  }
  return ImportRecordBatch(array, *imported);
}

Result<std::unique_ptr<RecordBatchReader>> ImportArrayStream(ArrowArrayStream* stream) {
  if (stream == nullptr) return Status::Invalid("ImportArrayStream: the ArrowArrayStream is NULL");
  if (stream->release == nullptr) {
    return Status::Invalid(
        "ImportArrayStream: ArrowArrayStream.release is NULL: the stream was already released");
  }
  auto reader = std::make_unique<ImportedStreamReader>(stream);
  SLUICE_RETURN_NOT_OK(reader->Open());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

}  // namespace sluice
