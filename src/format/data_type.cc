#include "sluice/format/data_type.h"

#include <sstream>

namespace sluice {

bool Field::Equals(const Field& other) const {
  return name == other.name && nullable == other.nullable && type->Equals(*other.type);
}

std::string Field::ToString() const {
  std::string text = name + ": ";
  for (const auto& [key, value] : metadata) {
    if (key == "ARROW:extension:name") text += "extension<" + value + "> storage ";
  }
  text += type->ToString();
  if (!nullable) text += " not null";
  return text;
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_ || time_unit_ != other.time_unit_ || precision_ != other.precision_ ||
      scale_ != other.scale_ || byte_width_ != other.byte_width_ ||
      list_size_ != other.list_size_ || keys_sorted_ != other.keys_sorted_ ||
      type_codes_ != other.type_codes_ || timezone_ != other.timezone_ ||
      children_.size() != other.children_.size() || ordered_ != other.ordered_) {
    return false;
  }
  if (id_ == TypeId::kDictionary &&
      (!index_type_->Equals(*other.index_type_) || !value_type_->Equals(*other.value_type_))) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i].Equals(other.children_[i])) return false;
  }
  return true;
}

std::string DataType::ToString() const {
  std::ostringstream text;
  text << TypeIdName(id_);
  switch (id_) {
    case TypeId::kTimestamp:
      text << "[" << TimeUnitName(time_unit_);
      if (!timezone_.empty()) text << ", tz=" << timezone_;
      text << "]";
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      text << "[" << TimeUnitName(time_unit_) << "]";
      break;
    case TypeId::kDate64:
      text << "[ms]";
      break;
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      text << "(" << precision_ << ", " << scale_ << ")";
      break;
    case TypeId::kFixedSizeBinary:
      text << "[" << byte_width_ << "]";
      break;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kStruct:
    case TypeId::kMap: {
      text << "<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) text << ", ";
        text << children_[i].ToString();
      }
      text << ">";
      if (keys_sorted_) text << " keys_sorted";
      break;
    }
    case TypeId::kFixedSizeList:
      text << "<" << children_[0].ToString() << ">[" << list_size_ << "]";
      break;
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:  // as Arrow writes it: sparse_union<a: int32=0, b: string=1>
      text << "<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) text << ", ";
        text << children_[i].ToString() << "=" << int{type_codes_[i]};
      }
      text << ">";
      break;
    case TypeId::kRunEndEncoded:  // as Arrow writes it: no field names' nullability
      text << "<run_ends: " << children_[0].type->ToString()
           << ", values: " << children_[1].type->ToString() << ">";
      break;
    case TypeId::kDictionary:  // as Arrow writes it
      text << "<values=" << value_type_->ToString() << ", indices=" << index_type_->ToString()
           << ", ordered=" << (ordered_ ? 1 : 0) << ">";
      break;
    default:
      break;
  }
  return text.str();
}

// Parameterless types are built once; every call returns the same instance.
#define SLUICE_SIMPLE_TYPE(Name, Id)                         \
  TypePtr DataType::Name() {                                 \
    static const TypePtr instance(new DataType(TypeId::Id)); \
    return instance;                                         \
  }
SLUICE_SIMPLE_TYPE(Null, kNull)
SLUICE_SIMPLE_TYPE(Boolean, kBoolean)
SLUICE_SIMPLE_TYPE(Int8, kInt8)
SLUICE_SIMPLE_TYPE(Int16, kInt16)
SLUICE_SIMPLE_TYPE(Int32, kInt32)
SLUICE_SIMPLE_TYPE(Int64, kInt64)
SLUICE_SIMPLE_TYPE(UInt8, kUInt8)
SLUICE_SIMPLE_TYPE(UInt16, kUInt16)
SLUICE_SIMPLE_TYPE(UInt32, kUInt32)
SLUICE_SIMPLE_TYPE(UInt64, kUInt64)
SLUICE_SIMPLE_TYPE(Float16, kFloat16)
SLUICE_SIMPLE_TYPE(Float32, kFloat32)
SLUICE_SIMPLE_TYPE(Float64, kFloat64)
SLUICE_SIMPLE_TYPE(Date32, kDate32)
SLUICE_SIMPLE_TYPE(Date64, kDate64)
SLUICE_SIMPLE_TYPE(IntervalYearMonth, kIntervalYearMonth)
SLUICE_SIMPLE_TYPE(IntervalDayTime, kIntervalDayTime)
SLUICE_SIMPLE_TYPE(IntervalMonthDayNano, kIntervalMonthDayNano)
SLUICE_SIMPLE_TYPE(Utf8, kUtf8)
SLUICE_SIMPLE_TYPE(LargeUtf8, kLargeUtf8)
SLUICE_SIMPLE_TYPE(Binary, kBinary)
SLUICE_SIMPLE_TYPE(LargeBinary, kLargeBinary)
SLUICE_SIMPLE_TYPE(BinaryView, kBinaryView)
SLUICE_SIMPLE_TYPE(Utf8View, kUtf8View)
#undef SLUICE_SIMPLE_TYPE

TypePtr DataType::Timestamp(TimeUnit unit, std::string timezone) {
  auto* type = new DataType(TypeId::kTimestamp);
  type->time_unit_ = unit;
  type->timezone_ = std::move(timezone);
  return TypePtr(type);
}

TypePtr DataType::WithTimeUnit(TypeId id, TimeUnit unit) {
  auto* type = new DataType(id);
  type->time_unit_ = unit;
  return TypePtr(type);
}

TypePtr DataType::Time32(TimeUnit unit) {
  return WithTimeUnit(TypeId::kTime32, unit);
}
TypePtr DataType::Time64(TimeUnit unit) {
  return WithTimeUnit(TypeId::kTime64, unit);
}
TypePtr DataType::Duration(TimeUnit unit) {
  return WithTimeUnit(TypeId::kDuration, unit);
}

TypePtr DataType::Decimal(int32_t bit_width, int32_t precision, int32_t scale) {
  TypeId id = TypeId::kDecimal128;
  switch (bit_width) {
    case 32:
      id = TypeId::kDecimal32;
      break;
    case 64:
      id = TypeId::kDecimal64;
      break;
    case 256:
      id = TypeId::kDecimal256;
      break;
    default:
      break;
  }
  auto* type = new DataType(id);
  type->precision_ = precision;
  type->scale_ = scale;
  return TypePtr(type);
}
TypePtr DataType::Decimal32(int32_t precision, int32_t scale) {
  return Decimal(32, precision, scale);
}
TypePtr DataType::Decimal64(int32_t precision, int32_t scale) {
  return Decimal(64, precision, scale);
}
TypePtr DataType::Decimal128(int32_t precision, int32_t scale) {
  return Decimal(128, precision, scale);
}
TypePtr DataType::Decimal256(int32_t precision, int32_t scale) {
  return Decimal(256, precision, scale);
}

TypePtr DataType::FixedSizeBinary(int32_t byte_width) {
  auto* type = new DataType(TypeId::kFixedSizeBinary);
  type->byte_width_ = byte_width;
  return TypePtr(type);
}

TypePtr DataType::List(TypePtr element, bool element_nullable) {
  return List(Field{"item", std::move(element), element_nullable});
}

TypePtr DataType::List(Field element) {
  auto* type = new DataType(TypeId::kList);
  type->children_.push_back(std::move(element));
  return TypePtr(type);
}

TypePtr DataType::LargeList(TypePtr element, bool element_nullable) {
  return LargeList(Field{"item", std::move(element), element_nullable});
}

TypePtr DataType::LargeList(Field element) {
  auto* type = new DataType(TypeId::kLargeList);
  type->children_.push_back(std::move(element));
  return TypePtr(type);
}

TypePtr DataType::ListView(TypePtr element, bool element_nullable) {
  return ListView(Field{"item", std::move(element), element_nullable});
}

TypePtr DataType::ListView(Field element) {
  auto* type = new DataType(TypeId::kListView);
  type->children_.push_back(std::move(element));
  return TypePtr(type);
}

TypePtr DataType::LargeListView(TypePtr element, bool element_nullable) {
  return LargeListView(Field{"item", std::move(element), element_nullable});
}

TypePtr DataType::LargeListView(Field element) {
  auto* type = new DataType(TypeId::kLargeListView);
  type->children_.push_back(std::move(element));
  return TypePtr(type);
}

TypePtr DataType::FixedSizeList(TypePtr element, int32_t list_size, bool element_nullable) {
  return FixedSizeList(Field{"item", std::move(element), element_nullable}, list_size);
}

TypePtr DataType::FixedSizeList(Field element, int32_t list_size) {
  auto* type = new DataType(TypeId::kFixedSizeList);
  type->list_size_ = list_size;
  type->children_.push_back(std::move(element));
  return TypePtr(type);
}

TypePtr DataType::RunEndEncoded(TypePtr run_end_type, TypePtr value_type) {
  auto* type = new DataType(TypeId::kRunEndEncoded);
  type->children_.push_back(Field{"run_ends", std::move(run_end_type), false});
  type->children_.push_back(Field{"values", std::move(value_type), true});
  return TypePtr(type);
}

TypePtr DataType::Dictionary(TypePtr index_type, TypePtr value_type, bool ordered) {
  auto* type = new DataType(TypeId::kDictionary);
  type->index_type_ = std::move(index_type);
  type->value_type_ = std::move(value_type);
  type->ordered_ = ordered;
  return TypePtr(type);
}

TypePtr DataType::Union(TypeId id, std::vector<Field> fields, std::vector<int8_t> type_codes) {
  auto* type = new DataType(id);
  type->children_ = std::move(fields);
  type->type_codes_ = std::move(type_codes);
  type->child_for_code_.fill(-1);
  for (size_t i = 0; i < type->type_codes_.size(); ++i) {
    const int8_t code = type->type_codes_[i];
    if (code >= 0) type->child_for_code_[static_cast<uint8_t>(code)] = static_cast<int8_t>(i);
  }
  return TypePtr(type);
}

TypePtr DataType::SparseUnion(std::vector<Field> fields, std::vector<int8_t> type_codes) {
  return Union(TypeId::kSparseUnion, std::move(fields), std::move(type_codes));
}

TypePtr DataType::DenseUnion(std::vector<Field> fields, std::vector<int8_t> type_codes) {
  return Union(TypeId::kDenseUnion, std::move(fields), std::move(type_codes));
}

TypePtr DataType::Struct(std::vector<Field> fields) {
  auto* type = new DataType(TypeId::kStruct);
  type->children_ = std::move(fields);
  return TypePtr(type);
}

TypePtr DataType::Map(TypePtr key, TypePtr value, bool value_nullable, bool keys_sorted) {
  std::vector<Field> entries_fields;
  entries_fields.push_back(Field{"key", std::move(key), false});
  entries_fields.push_back(Field{"value", std::move(value), value_nullable});
  return Map(Field{"entries", Struct(std::move(entries_fields)), false}, keys_sorted);
}

TypePtr DataType::Map(Field entries, bool keys_sorted) {
  auto* type = new DataType(TypeId::kMap);
  type->keys_sorted_ = keys_sorted;
  type->children_.push_back(std::move(entries));
  return TypePtr(type);
}

std::string_view TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBoolean:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kDate32:
      return "date32";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kDecimal128:
      return "decimal128";
    case TypeId::kUtf8:
      return "string";
    case TypeId::kLargeUtf8:
      return "large_string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kLargeBinary:
      return "large_binary";
    case TypeId::kFixedSizeBinary:
      return "fixed_size_binary";
    case TypeId::kList:
      return "list";
    case TypeId::kLargeList:
      return "large_list";
    case TypeId::kStruct:
      return "struct";
    case TypeId::kMap:
      return "map";
    case TypeId::kFloat16:
      return "halffloat";
    case TypeId::kDate64:
      return "date64";
    case TypeId::kTime32:
      return "time32";
    case TypeId::kTime64:
      return "time64";
    case TypeId::kDuration:
      return "duration";
    case TypeId::kIntervalYearMonth:
      return "month_interval";
    case TypeId::kIntervalDayTime:
      return "day_time_interval";
    case TypeId::kIntervalMonthDayNano:
      return "month_day_nano_interval";
    case TypeId::kDecimal32:
      return "decimal32";
    case TypeId::kDecimal64:
      return "decimal64";
    case TypeId::kDecimal256:
      return "decimal256";
    case TypeId::kFixedSizeList:
      return "fixed_size_list";
    case TypeId::kBinaryView:
      return "binary_view";
    case TypeId::kUtf8View:
      return "string_view";
    case TypeId::kListView:
      return "list_view";
    case TypeId::kLargeListView:
      return "large_list_view";
    case TypeId::kRunEndEncoded:
      return "run_end_encoded";
    case TypeId::kSparseUnion:
      return "sparse_union";
    case TypeId::kDenseUnion:
      return "dense_union";
    case TypeId::kDictionary:
      return "dictionary";
  }
  return "unknown";
}

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "?";
}

bool IsFixedWidth(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kDecimal128:
    case TypeId::kFixedSizeBinary:
    case TypeId::kFloat16:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
    case TypeId::kIntervalYearMonth:
    case TypeId::kIntervalDayTime:
    case TypeId::kIntervalMonthDayNano:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal256:
      return true;
    default:
      return false;
  }
}

int64_t BitWidth(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kFloat16:
      return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kIntervalYearMonth:
    case TypeId::kDecimal32:
      return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kDuration:
    case TypeId::kIntervalDayTime:
    case TypeId::kDecimal64:
      return 64;
    case TypeId::kDecimal128:
    case TypeId::kIntervalMonthDayNano:
      return 128;
    case TypeId::kDecimal256:
      return 256;
    case TypeId::kFixedSizeBinary:
      return int64_t{type.byte_width()} * 8;
    default:
      return 0;
  }
}

bool IsDecimal(TypeId id) {
  return id == TypeId::kDecimal32 || id == TypeId::kDecimal64 || id == TypeId::kDecimal128 ||
         id == TypeId::kDecimal256;
}

int32_t MaxDecimalPrecision(TypeId id) {
  switch (id) {
    case TypeId::kDecimal32:
      return 9;
    case TypeId::kDecimal64:
      return 18;
    case TypeId::kDecimal128:
      return 38;
    case TypeId::kDecimal256:
      return 76;
    default:
      return 0;
  }
}

bool IsBinaryLike(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

bool IsBinaryView(TypeId id) {
  return id == TypeId::kBinaryView || id == TypeId::kUtf8View;
}

int CountBinaryViews(const DataType& type) {
  int count = IsBinaryView(type.id()) ? 1 : 0;
  for (const Field& child : type.children()) count += CountBinaryViews(*child.type);
  return count;
}

bool HasLargeOffsets(TypeId id) {
  return id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary || id == TypeId::kLargeList;
}

bool IsListView(TypeId id) {
  return id == TypeId::kListView || id == TypeId::kLargeListView;
}

bool IsRunEndType(TypeId id) {
  return id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

bool IsUnion(TypeId id) {
  return id == TypeId::kSparseUnion || id == TypeId::kDenseUnion;
}

bool IsInteger(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return true;
    default:
      return false;
  }
}

bool HasDictionary(const DataType& type) {
  if (type.id() == TypeId::kDictionary) return true;
  for (const Field& child : type.children()) {
    if (HasDictionary(*child.type)) return true;
  }
  return false;
}

TypePtr WithChildren(const DataType& type, std::vector<Field> children) {
  switch (type.id()) {
    case TypeId::kList:
      return DataType::List(std::move(children[0]));
    case TypeId::kLargeList:
      return DataType::LargeList(std::move(children[0]));
    case TypeId::kFixedSizeList:
      return DataType::FixedSizeList(std::move(children[0]), type.list_size());
    case TypeId::kMap:
      return DataType::Map(std::move(children[0]), type.keys_sorted());
    case TypeId::kListView:
      return DataType::ListView(std::move(children[0]));
    case TypeId::kLargeListView:
      return DataType::LargeListView(std::move(children[0]));
    case TypeId::kRunEndEncoded:
      return DataType::RunEndEncoded(std::move(children[0].type), std::move(children[1].type));
    case TypeId::kSparseUnion:
      return DataType::SparseUnion(std::move(children), type.type_codes());
    case TypeId::kDenseUnion:
      return DataType::DenseUnion(std::move(children), type.type_codes());
    default:
      return DataType::Struct(std::move(children));
  }
}

int BufferCount(TypeId id) {
  if (id == TypeId::kNull || id == TypeId::kRunEndEncoded) return 0;
  if (id == TypeId::kSparseUnion) return 1;
  if (id == TypeId::kStruct || id == TypeId::kFixedSizeList) return 1;
  if (IsBinaryLike(id) || IsListView(id)) return 3;
  return 2;
}

}  // namespace sluice
