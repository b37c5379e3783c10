#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "schema_message_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::ipc {

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

fb::TimeUnit ToFlatbuffer(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

Offset<fb::IntType> IntTypeOf(FlatBufferBuilder& builder, int bits, bool is_signed) {
  return fb::CreateIntType(builder, bits, is_signed);
}

// Builds the type union member of a field; returns its tag and offset.
std::pair<fb::Type, Offset<void>> TypeToFlatbuffer(FlatBufferBuilder& builder,
                                                   const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return {fb::Type::NullType, fb::CreateNullType(builder).Union()};
    case TypeId::kBoolean:
      return {fb::Type::BoolType, fb::CreateBoolType(builder).Union()};
    case TypeId::kInt8:
      return {fb::Type::IntType, IntTypeOf(builder, 8, true).Union()};
    case TypeId::kInt16:
      return {fb::Type::IntType, IntTypeOf(builder, 16, true).Union()};
    case TypeId::kInt32:
      return {fb::Type::IntType, IntTypeOf(builder, 32, true).Union()};
    case TypeId::kInt64:
      return {fb::Type::IntType, IntTypeOf(builder, 64, true).Union()};
    case TypeId::kUInt8:
      return {fb::Type::IntType, IntTypeOf(builder, 8, false).Union()};
    case TypeId::kUInt16:
      return {fb::Type::IntType, IntTypeOf(builder, 16, false).Union()};
    case TypeId::kUInt32:
      return {fb::Type::IntType, IntTypeOf(builder, 32, false).Union()};
    case TypeId::kUInt64:
      return {fb::Type::IntType, IntTypeOf(builder, 64, false).Union()};
    case TypeId::kFloat32:
      return {fb::Type::FloatType,
              fb::CreateFloatType(builder, fb::FloatPrecision::SINGLE).Union()};
    case TypeId::kFloat64:
      return {fb::Type::FloatType,
              fb::CreateFloatType(builder, fb::FloatPrecision::DOUBLE).Union()};
    case TypeId::kDate32:
      return {fb::Type::DateType, fb::CreateDateType(builder, fb::DateUnit::DAY).Union()};
    case TypeId::kTimestamp: {
      Offset<flatbuffers::String> timezone;
      if (!type.timezone().empty()) timezone = builder.CreateString(type.timezone());
      return {fb::Type::TimestampType,
              fb::CreateTimestampType(builder, ToFlatbuffer(type.time_unit()), timezone).Union()};
    }
    case TypeId::kDecimal128:
      return {fb::Type::DecimalType,
              fb::CreateDecimalType(builder, type.precision(), type.scale(), 128).Union()};
    case TypeId::kUtf8:
      return {fb::Type::Utf8Type, fb::CreateUtf8Type(builder).Union()};
    case TypeId::kLargeUtf8:
      return {fb::Type::LargeUtf8Type, fb::CreateLargeUtf8Type(builder).Union()};
    case TypeId::kBinary:
      return {fb::Type::BinaryType, fb::CreateBinaryType(builder).Union()};
    case TypeId::kLargeBinary:
      return {fb::Type::LargeBinaryType, fb::CreateLargeBinaryType(builder).Union()};
    case TypeId::kBinaryView:
      return {fb::Type::BinaryViewType, fb::CreateBinaryViewType(builder).Union()};
    case TypeId::kUtf8View:
      return {fb::Type::Utf8ViewType, fb::CreateUtf8ViewType(builder).Union()};
    case TypeId::kFixedSizeBinary:
      return {fb::Type::FixedSizeBinaryType,
              fb::CreateFixedSizeBinaryType(builder, type.byte_width()).Union()};
    case TypeId::kList:
      return {fb::Type::ListType, fb::CreateListType(builder).Union()};
    case TypeId::kLargeList:
      return {fb::Type::LargeListType, fb::CreateLargeListType(builder).Union()};
    case TypeId::kListView:
      return {fb::Type::ListViewType, fb::CreateListViewType(builder).Union()};
    case TypeId::kLargeListView:
      return {fb::Type::LargeListViewType, fb::CreateLargeListViewType(builder).Union()};
    case TypeId::kStruct:
      return {fb::Type::StructType, fb::CreateStructType(builder).Union()};
    case TypeId::kMap:
      return {fb::Type::MapType, fb::CreateMapType(builder, type.keys_sorted()).Union()};
    case TypeId::kFixedSizeList:
      return {fb::Type::FixedSizeListType,
              fb::CreateFixedSizeListType(builder, type.list_size()).Union()};
    case TypeId::kRunEndEncoded:
      return {fb::Type::RunEndEncodedType, fb::CreateRunEndEncodedType(builder).Union()};
    case TypeId::kDictionary:  // a field's type is its values' (FieldToFlatbuffer)
      return TypeToFlatbuffer(builder, *type.value_type());
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      const std::vector<int32_t> ids(type.type_codes().begin(), type.type_codes().end());
      return {fb::Type::UnionType,
              fb::CreateUnionType(
                  builder,
                  type.id() == TypeId::kDenseUnion ? fb::UnionMode::Dense : fb::UnionMode::Sparse,
                  builder.CreateVector(ids))
                  .Union()};
    }
    case TypeId::kFloat16:
      return {fb::Type::FloatType, fb::CreateFloatType(builder, fb::FloatPrecision::HALF).Union()};
    case TypeId::kDate64:
      return {fb::Type::DateType, fb::CreateDateType(builder, fb::DateUnit::MILLISECOND).Union()};
    case TypeId::kTime32:
    case TypeId::kTime64:
      return {fb::Type::TimeType, fb::CreateTimeType(builder, ToFlatbuffer(type.time_unit()),
                                                     static_cast<int32_t>(BitWidth(type)))
                                      .Union()};
    case TypeId::kDuration:
      return {fb::Type::DurationType,
              fb::CreateDurationType(builder, ToFlatbuffer(type.time_unit())).Union()};
    case TypeId::kIntervalYearMonth:
      return {fb::Type::IntervalType,
              fb::CreateIntervalType(builder, fb::IntervalUnit::YEAR_MONTH).Union()};
    case TypeId::kIntervalDayTime:
      return {fb::Type::IntervalType,
              fb::CreateIntervalType(builder, fb::IntervalUnit::DAY_TIME).Union()};
    case TypeId::kIntervalMonthDayNano:
      return {fb::Type::IntervalType,
              fb::CreateIntervalType(builder, fb::IntervalUnit::MONTH_DAY_NANO).Union()};
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal256:
      return {fb::Type::DecimalType, fb::CreateDecimalType(builder, type.precision(), type.scale(),
                                                           static_cast<int32_t>(BitWidth(type)))
                                         .Union()};
  }
  return {fb::Type::NullType, fb::CreateNullType(builder).Union()};
}

Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> MetadataToFlatbuffer(
    FlatBufferBuilder& builder, const KeyValueMetadata& metadata) {
  std::vector<Offset<fb::KeyValue>> pairs;
  pairs.reserve(metadata.size());
  for (const auto& [key, value] : metadata) {
    // Whole strings: a key or value may hold a NUL byte.
    auto key_offset = builder.CreateString(key.data(), key.size());
    auto value_offset = builder.CreateString(value.data(), value.size());
    pairs.push_back(fb::CreateKeyValue(builder, key_offset, value_offset));
  }
  return builder.CreateVector(pairs);
}

// Builds a field; a dictionary-encoded one is its values' type with a DictionaryEncoding whose
// id is the next of `next_dictionary_id` (ids count up in pre-order, as the encoder's
// DictionaryBatch messages do).
Offset<fb::Field> FieldToFlatbuffer(FlatBufferBuilder& builder, const Field& field,
                                    int64_t* next_dictionary_id) {
  const bool dictionary = field.type->id() == TypeId::kDictionary;
  const DataType& layout = dictionary ? *field.type->value_type() : *field.type;
  Offset<fb::DictionaryEncoding> encoding;
  if (dictionary) {
    const DataType& index = *field.type->index_type();
    const bool is_signed = index.id() == TypeId::kInt8 || index.id() == TypeId::kInt16 ||
                           index.id() == TypeId::kInt32 || index.id() == TypeId::kInt64;
    auto index_type = IntTypeOf(builder, static_cast<int>(BitWidth(index)), is_signed);
    encoding = fb::CreateDictionaryEncoding(builder, (*next_dictionary_id)++, index_type,
                                            field.type->ordered());
  }
  std::vector<Offset<fb::Field>> children;
  children.reserve(layout.children().size());
  for (const auto& child : layout.children()) {
    children.push_back(FieldToFlatbuffer(builder, child, next_dictionary_id));
  }
  auto name = builder.CreateString(field.name);
  auto [type_tag, type_offset] = TypeToFlatbuffer(builder, layout);
  auto children_offset = builder.CreateVector(children);
  Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> metadata_offset;
  if (!field.metadata.empty()) metadata_offset = MetadataToFlatbuffer(builder, field.metadata);
  fb::FieldBuilder field_builder(builder);
  field_builder.add_name(name);
  field_builder.add_nullable(field.nullable);
  field_builder.add_type_type(type_tag);
  field_builder.add_type(type_offset);
  if (dictionary) field_builder.add_dictionary(encoding);
  field_builder.add_children(children_offset);
  if (!field.metadata.empty()) field_builder.add_custom_metadata(metadata_offset);
  return field_builder.Finish();
}

}  // namespace

void AppendFramedMessage(const uint8_t* flatbuffer, int64_t size, AlignedBuffer* out) {
  const int64_t padded = bits::RoundUp(size, kBufferAlignment);
  uint8_t* start = out->AppendUninitialized(kMessagePrefixSize + padded);
  bits::StoreUnaligned<uint32_t>(start, kContinuationMarker);
  bits::StoreUnaligned<int32_t>(start + 4, static_cast<int32_t>(padded));
  std::memcpy(start + kMessagePrefixSize, flatbuffer, static_cast<size_t>(size));
  std::memset(start + kMessagePrefixSize + size, 0, static_cast<size_t>(padded - size));
}

Status AppendSchemaMessage(const Schema& schema, AlignedBuffer* out) {
  FlatBufferBuilder builder(1024);
  std::vector<Offset<fb::Field>> fields;
  fields.reserve(schema.num_fields());
  int64_t next_dictionary_id = 0;
  for (const auto& field : schema.fields()) {
    fields.push_back(FieldToFlatbuffer(builder, field, &next_dictionary_id));
  }
  auto fields_offset = builder.CreateVector(fields);
  Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> metadata_offset;
  if (!schema.metadata().empty())
    metadata_offset = MetadataToFlatbuffer(builder, schema.metadata());
  auto schema_offset =
      fb::CreateSchema(builder, fb::Endianness::Little, fields_offset, metadata_offset);
  auto message = fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                                   schema_offset.Union(), 0);
  builder.Finish(message);
  AppendFramedMessage(builder.GetBufferPointer(), builder.GetSize(), out);
  return Status::OK();
}

namespace {

Result<TimeUnit> TimeUnitFromFlatbuffer(fb::TimeUnit unit, const std::string& path) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND:
      return TimeUnit::kNano;
  }
  return Status::Corrupt("field '", path, "': unknown time unit ", static_cast<int>(unit));
}

// Where the walk over a schema's fields is: the child indices from the top-level column down,
// and the dictionary-encoded fields found so far (null when the caller refuses them).
struct FieldWalk {
  std::vector<int> index_path;
  std::vector<DictionaryField>* dictionaries = nullptr;
};

Result<Field> FieldFromFlatbuffer(const fb::Field* field, const std::string& parent_path, int depth,
                                  FieldWalk* walk);

Result<std::vector<Field>> ChildrenFromFlatbuffer(const fb::Field& field, const std::string& path,
                                                  int depth, FieldWalk* walk) {
  std::vector<Field> children;
  if (field.children() == nullptr) return children;
  children.reserve(field.children()->size());
  for (const fb::Field* child : *field.children()) {
    walk->index_path.push_back(static_cast<int>(children.size()));
    SLUICE_ASSIGN_OR_RAISE(Field converted, FieldFromFlatbuffer(child, path, depth + 1, walk));
    walk->index_path.pop_back();
    children.push_back(std::move(converted));
  }
  return children;
}

Status ExpectChildren(const std::vector<Field>& children, size_t expected, const std::string& path,
                      std::string_view type_name) {
  if (children.size() != expected) {
    return Status::Corrupt("field '", path, "': a ", type_name, " has ", expected,
                           " child field(s), found ", children.size());
  }
  return Status::OK();
}

// Nested types deeper than this are refused: real schemas are far shallower, and the limit
// bounds recursion on untrusted metadata.
constexpr int kMaxNestingDepth = 64;

// The pairs of a schema's or a field's custom_metadata (none when absent); a pair without a key
// or value has an empty one.
KeyValueMetadata MetadataFromFlatbuffer(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* pairs) {
  KeyValueMetadata metadata;
  if (pairs == nullptr) return metadata;
  metadata.reserve(pairs->size());
  for (const fb::KeyValue* pair : *pairs) {
    if (pair == nullptr) continue;
    metadata.emplace_back(pair->key() != nullptr ? pair->key()->str() : std::string(),
                          pair->value() != nullptr ? pair->value()->str() : std::string());
  }
  return metadata;
}

Status Unsupported(const fb::Field& field, const std::string& path) {
  return Status::NotImplemented(
      "field '", path, "': a type this Arrow format version does not define (Type union tag ",
      static_cast<int>(field.type_type()), ") is not supported by Sluice");
}

// A union type from its flatbuffer: the type ids given (one per child, distinct, 0 to 127) or,
// when a writer gives none, the child indices.
Result<TypePtr> UnionFromFlatbuffer(const fb::UnionType& type, std::vector<Field> children,
                                    const std::string& path) {
  const bool dense = type.mode() == fb::UnionMode::Dense;
  const char* name = dense ? "dense_union" : "sparse_union";
  std::vector<int8_t> codes;
  if (type.type_ids() == nullptr) {
    if (children.size() > 128) {
      return Status::Corrupt("field '", path, "': a ", name, " of ", children.size(),
                             " children (at most 128)");
    }
    for (size_t i = 0; i < children.size(); ++i) codes.push_back(static_cast<int8_t>(i));
  } else {
    if (type.type_ids()->size() != children.size()) {
      return Status::Corrupt("field '", path, "': a ", name, " of ", children.size(),
                             " children has ", type.type_ids()->size(), " type ids");
    }
    std::array<bool, 128> seen{};
    for (const int32_t id : *type.type_ids()) {
      if (id < 0 || id > 127 || seen[static_cast<size_t>(id)]) {
        return Status::Corrupt("field '", path, "': ", name, " type id ", id,
                               " is outside 0 to 127 or repeated");
      }
      seen[static_cast<size_t>(id)] = true;
      codes.push_back(static_cast<int8_t>(id));
    }
  }
  return dense ? DataType::DenseUnion(std::move(children), std::move(codes))
               : DataType::SparseUnion(std::move(children), std::move(codes));
}

// Records a dictionary-encoded field (its type is the values' type) in `walk`, or refuses it
// when the caller does not take dictionaries.
Status AddDictionaryField(const fb::DictionaryEncoding& dictionary, const TypePtr& value_type,
                          const std::string& path, FieldWalk* walk) {
  const fb::IntType* index = dictionary.index_type();
  const int bits = index != nullptr ? index->bit_width() : 32;
  const bool is_signed = index == nullptr || index->is_signed();
  // Named as Arrow names it: dictionary<values=string, indices=int8>.
  const std::string name = "dictionary<values=" + value_type->ToString() +
                           ", indices=" + (is_signed ? "int" : "uint") + std::to_string(bits) + ">";
  if (walk->dictionaries == nullptr) {
    return Status::NotImplemented("field '", path, "': ", name,
                                  " is not supported by Sluice in a partition segment");
  }
  TypePtr index_type;
  switch (bits) {
    case 8:
      index_type = is_signed ? DataType::Int8() : DataType::UInt8();
      break;
    case 16:
      index_type = is_signed ? DataType::Int16() : DataType::UInt16();
      break;
    case 32:
      index_type = is_signed ? DataType::Int32() : DataType::UInt32();
      break;
    case 64:
      index_type = is_signed ? DataType::Int64() : DataType::UInt64();
      break;
    default:
      return Status::Corrupt("field '", path, "': dictionary index bit width ", bits,
                             " is not 8, 16, 32 or 64");
  }
  for (const DictionaryField& found : *walk->dictionaries) {
    // Fields below this one were walked first.
    if (found.index_path.size() > walk->index_path.size() &&
        std::equal(walk->index_path.begin(), walk->index_path.end(), found.index_path.begin())) {
      return Status::NotImplemented("field '", path, "': ", name,
                                    " holds a dictionary-encoded field in its values ('",
                                    found.path, "'), which Sluice does not support");
    }
    if (found.id == dictionary.id() && !found.value_type->Equals(*value_type)) {
      return Status::Corrupt("field '", path, "': dictionary id ", dictionary.id(), " is used by '",
                             found.path, "' for values of type ", found.value_type->ToString(),
                             ", here for ", value_type->ToString());
    }
  }
  walk->dictionaries->push_back(DictionaryField{dictionary.id(), walk->index_path, path,
                                                std::move(index_type), value_type,
                                                dictionary.is_ordered()});
  return Status::OK();
}

// The integer type of an IntType.
Result<TypePtr> IntTypeFromFlatbuffer(const fb::IntType& int_type, const std::string& path) {
  const bool is_signed = int_type.is_signed();
  switch (int_type.bit_width()) {
    case 8:
      return is_signed ? DataType::Int8() : DataType::UInt8();
    case 16:
      return is_signed ? DataType::Int16() : DataType::UInt16();
    case 32:
      return is_signed ? DataType::Int32() : DataType::UInt32();
    case 64:
      return is_signed ? DataType::Int64() : DataType::UInt64();
    default:
      return Status::Corrupt("field '", path, "': integer bit width ", int_type.bit_width(),
                             " is not 8, 16, 32 or 64");
  }
}

Result<TypePtr> FloatTypeFromFlatbuffer(const fb::FloatType& float_type, const std::string& path) {
  switch (float_type.precision()) {
    case fb::FloatPrecision::HALF:
      return DataType::Float16();
    case fb::FloatPrecision::SINGLE:
      return DataType::Float32();
    case fb::FloatPrecision::DOUBLE:
      return DataType::Float64();
    default:
      return Status::Corrupt("field '", path, "': unknown floating point precision ",
                             static_cast<int>(float_type.precision()));
  }
}

Result<TypePtr> DateTypeFromFlatbuffer(const fb::DateType& date, const std::string& path) {
  switch (date.unit()) {
    case fb::DateUnit::DAY:
      return DataType::Date32();
    case fb::DateUnit::MILLISECOND:
      return DataType::Date64();
    default:
      return Status::Corrupt("field '", path, "': unknown date unit ",
                             static_cast<int>(date.unit()));
  }
}

Result<TypePtr> TimeTypeFromFlatbuffer(const fb::TimeType& time, const std::string& path) {
  SLUICE_ASSIGN_OR_RAISE(TimeUnit unit, TimeUnitFromFlatbuffer(time.unit(), path));
  const bool seconds_or_millis = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
  if (time.bit_width() == 32 && seconds_or_millis) return DataType::Time32(unit);
  if (time.bit_width() == 64 && !seconds_or_millis) return DataType::Time64(unit);
  return Status::Corrupt("field '", path, "': time of ", time.bit_width(), " bits in ",
                         TimeUnitName(unit), " (Arrow's times are time32[s|ms] and time64[us|ns])");
}

Result<TypePtr> IntervalTypeFromFlatbuffer(const fb::IntervalType& interval,
                                           const std::string& path) {
  switch (interval.unit()) {
    case fb::IntervalUnit::YEAR_MONTH:
      return DataType::IntervalYearMonth();
    case fb::IntervalUnit::DAY_TIME:
      return DataType::IntervalDayTime();
    case fb::IntervalUnit::MONTH_DAY_NANO:
      return DataType::IntervalMonthDayNano();
    default:
      return Status::Corrupt("field '", path, "': unknown interval unit ",
                             static_cast<int>(interval.unit()));
  }
}

Result<TypePtr> DecimalTypeFromFlatbuffer(const fb::DecimalType& decimal, const std::string& path) {
  const int32_t bits = decimal.bit_width();
  if (bits != 32 && bits != 64 && bits != 128 && bits != 256) {
    return Status::Corrupt("field '", path, "': decimal bit width ", bits,
                           " is not 32, 64, 128 or 256");
  }
  TypePtr type = DataType::Decimal(bits, decimal.precision(), decimal.scale());
  const int32_t max_precision = MaxDecimalPrecision(type->id());
  if (decimal.precision() < 1 || decimal.precision() > max_precision ||
      decimal.scale() > max_precision || decimal.scale() < -max_precision) {
    return Status::Corrupt("field '", path, "': ", type->ToString(),
                           " is out of range (precision 1 to ", max_precision, ")");
  }
  return type;
}

// The type of a nested field (one with children), from its flatbuffer and its `children`.
Result<TypePtr> NestedTypeFromFlatbuffer(const fb::Field& field, std::vector<Field> children,
                                         const std::string& path) {
  switch (field.type_type()) {
    case fb::Type::FixedSizeListType: {
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 1, path, "fixed_size_list"));
      const int32_t list_size = field.type_as_FixedSizeListType()->list_size();
      if (list_size < 0) {
        return Status::Corrupt("field '", path, "': fixed_size_list of ", list_size, " elements");
      }
      return DataType::FixedSizeList(std::move(children[0]), list_size);
    }
    case fb::Type::ListType:
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 1, path, "list"));
      return DataType::List(std::move(children[0]));
    case fb::Type::LargeListType:
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 1, path, "large_list"));
      return DataType::LargeList(std::move(children[0]));
    case fb::Type::ListViewType:
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 1, path, "list_view"));
      return DataType::ListView(std::move(children[0]));
    case fb::Type::LargeListViewType:
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 1, path, "large_list_view"));
      return DataType::LargeListView(std::move(children[0]));
    case fb::Type::StructType:
      return DataType::Struct(std::move(children));
    case fb::Type::UnionType:
      return UnionFromFlatbuffer(*field.type_as_UnionType(), std::move(children), path);
    case fb::Type::RunEndEncodedType: {
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 2, path, "run_end_encoded"));
      if (!IsRunEndType(children[0].type->id())) {
        return Status::Corrupt("field '", path,
                               "': run_end_encoded run ends must be int16, int32 or int64, found ",
                               children[0].type->ToString());
      }
      return DataType::RunEndEncoded(std::move(children[0].type), std::move(children[1].type));
    }
    case fb::Type::MapType: {
      SLUICE_RETURN_NOT_OK(ExpectChildren(children, 1, path, "map"));
      const Field& entries = children[0];
      if (entries.type->id() != TypeId::kStruct || entries.type->children().size() != 2) {
        return Status::Corrupt("field '", path,
                               "': a map's child must be a struct of key and value, found ",
                               entries.type->ToString());
      }
      return DataType::Map(std::move(children[0]), field.type_as_MapType()->keys_sorted());
    }
    default:
      return Unsupported(field, path);
  }
}

// The type of `field`, whose child fields are `children`.
Result<TypePtr> TypeFromFlatbuffer(const fb::Field& field, std::vector<Field> children,
                                   const std::string& path) {
  switch (field.type_type()) {
    case fb::Type::NullType:
      return DataType::Null();
    case fb::Type::BoolType:
      return DataType::Boolean();
    case fb::Type::IntType:
      return IntTypeFromFlatbuffer(*field.type_as_IntType(), path);
    case fb::Type::FloatType:
      return FloatTypeFromFlatbuffer(*field.type_as_FloatType(), path);
    case fb::Type::DateType:
      return DateTypeFromFlatbuffer(*field.type_as_DateType(), path);
    case fb::Type::TimeType:
      return TimeTypeFromFlatbuffer(*field.type_as_TimeType(), path);
    case fb::Type::DurationType: {
      SLUICE_ASSIGN_OR_RAISE(TimeUnit unit,
                             TimeUnitFromFlatbuffer(field.type_as_DurationType()->unit(), path));
      return DataType::Duration(unit);
    }
    case fb::Type::IntervalType:
      return IntervalTypeFromFlatbuffer(*field.type_as_IntervalType(), path);
    case fb::Type::TimestampType: {
      const fb::TimestampType* timestamp = field.type_as_TimestampType();
      SLUICE_ASSIGN_OR_RAISE(TimeUnit unit, TimeUnitFromFlatbuffer(timestamp->unit(), path));
      return DataType::Timestamp(
          unit, timestamp->timezone() != nullptr ? timestamp->timezone()->str() : std::string());
    }
    case fb::Type::DecimalType:
      return DecimalTypeFromFlatbuffer(*field.type_as_DecimalType(), path);
    case fb::Type::Utf8Type:
      return DataType::Utf8();
    case fb::Type::LargeUtf8Type:
      return DataType::LargeUtf8();
    case fb::Type::BinaryType:
      return DataType::Binary();
    case fb::Type::LargeBinaryType:
      return DataType::LargeBinary();
    case fb::Type::BinaryViewType:
      return DataType::BinaryView();
    case fb::Type::Utf8ViewType:
      return DataType::Utf8View();
    case fb::Type::FixedSizeBinaryType: {
      const int width = field.type_as_FixedSizeBinaryType()->byte_width();
      if (width < 0) {
        return Status::Corrupt("field '", path, "': fixed_size_binary width ", width,
                               " is negative");
      }
      return DataType::FixedSizeBinary(width);
    }
    default:
      return NestedTypeFromFlatbuffer(field, std::move(children), path);
  }
}

Result<Field> FieldFromFlatbuffer(const fb::Field* field, const std::string& parent_path, int depth,
                                  FieldWalk* walk) {
  if (field == nullptr) return Status::Corrupt("field under '", parent_path, "' is missing");
  const std::string name = field->name() != nullptr ? field->name()->str() : std::string();
  const std::string path = parent_path.empty() ? name : parent_path + "." + name;
  if (depth > kMaxNestingDepth) {
    return Status::Corrupt("field '", path, "' is nested deeper than ", kMaxNestingDepth);
  }
  if (field->type() == nullptr) {
    // Type parameters live in the union's table; a field without one is malformed.
    return Status::Corrupt("field '", path, "' has no type table");
  }
  SLUICE_ASSIGN_OR_RAISE(std::vector<Field> children,
                         ChildrenFromFlatbuffer(*field, path, depth, walk));
  SLUICE_ASSIGN_OR_RAISE(TypePtr type, TypeFromFlatbuffer(*field, std::move(children), path));
  if (type->children().empty() && walk->dictionaries != nullptr) {
    // Child fields under a type that has none (malformed metadata) are not part of the type;
    // neither are dictionaries found among them.
    std::erase_if(*walk->dictionaries, [&](const DictionaryField& found) {
      return found.index_path.size() > walk->index_path.size() &&
             std::equal(walk->index_path.begin(), walk->index_path.end(), found.index_path.begin());
    });
  }
  if (const fb::DictionaryEncoding* dictionary = field->dictionary()) {
    SLUICE_RETURN_NOT_OK(AddDictionaryField(*dictionary, type, path, walk));
  }
  return Field{name, std::move(type), field->nullable(),
               MetadataFromFlatbuffer(field->custom_metadata())};
}

}  // namespace

Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema& schema, std::string_view context,
                                       std::vector<DictionaryField>* dictionaries) {
  if (schema.endianness() != fb::Endianness::Little) {
    return Status::NotImplemented(context, ": big-endian data is not supported");
  }
  std::vector<Field> fields;
  if (schema.fields() != nullptr) {
    fields.reserve(schema.fields()->size());
    FieldWalk walk;
    walk.dictionaries = dictionaries;
    for (const fb::Field* field : *schema.fields()) {
      walk.index_path.assign(1, static_cast<int>(fields.size()));
      auto converted = FieldFromFlatbuffer(field, "", 0, &walk);
      if (!converted.ok()) return converted.status().WithContext(context);
      fields.push_back(std::move(converted).ValueUnsafe());
    }
  }
  return std::make_shared<const Schema>(std::move(fields),
                                        MetadataFromFlatbuffer(schema.custom_metadata()));
}

}  // namespace sluice::ipc
