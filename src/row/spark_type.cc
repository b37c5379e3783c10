#include "sluice/row/spark_type.h"

#include <cctype>
#include <memory>
#include <utility>
#include <vector>

namespace sluice {

Result<SparkTypeId> SparkTypeIdOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return SparkTypeId::kNull;
    case TypeId::kBoolean:
      return SparkTypeId::kBoolean;
    case TypeId::kInt8:
      return SparkTypeId::kByte;
    case TypeId::kInt16:
      return SparkTypeId::kShort;
    case TypeId::kInt32:
      return SparkTypeId::kInt;
    case TypeId::kInt64:
      return SparkTypeId::kLong;
    case TypeId::kFloat32:
      return SparkTypeId::kFloat;
    case TypeId::kFloat64:
      return SparkTypeId::kDouble;
    case TypeId::kDate32:
      return SparkTypeId::kDate;
    case TypeId::kTimestamp:
      if (type.time_unit() != TimeUnit::kMicro) break;
      return type.timezone().empty() ? SparkTypeId::kTimestampNtz : SparkTypeId::kTimestamp;
    case TypeId::kDecimal128:
      // Spark's DecimalType allows precision 1..38 and 0 <= scale <= precision.
      if (type.precision() < 1 || type.precision() > 38 || type.scale() < 0 ||
          type.scale() > type.precision()) {
        break;
      }
      return SparkTypeId::kDecimal;
    case TypeId::kUtf8:
      return SparkTypeId::kString;
    case TypeId::kBinary:
      return SparkTypeId::kBinary;
    case TypeId::kStruct:
      return SparkTypeId::kStruct;
    case TypeId::kList:
      return SparkTypeId::kArray;
    case TypeId::kMap:
      return SparkTypeId::kMap;
    case TypeId::kIntervalYearMonth:
      return SparkTypeId::kYearMonthInterval;
    case TypeId::kDuration:
      if (type.time_unit() != TimeUnit::kMicro) break;
      return SparkTypeId::kDayTimeInterval;
    case TypeId::kTime64:
      if (type.time_unit() != TimeUnit::kNano) break;
      return SparkTypeId::kTime;
    case TypeId::kIntervalMonthDayNano:
      return SparkTypeId::kCalendarInterval;
    default:
      break;
  }
  return Status::NotImplemented("Spark rows cannot carry Arrow type ", type.ToString());
}

Status CheckSparkType(const DataType& type, std::string_view path) {
  auto spark_type = SparkTypeIdOf(type);
  if (!spark_type.ok()) {
    return Status::NotImplemented(
        "field ", path, ": Spark rows cannot carry Arrow type ", type.ToString(),
        " (supported: bool, int8..int64, float, double, date32, "
        "timestamp[us], decimal128, utf8, binary, null, month_interval, "
        "duration[us], time64[ns], month_day_nano_interval, struct, list, map)");
  }
  for (const Field& child : type.children()) {
    SLUICE_RETURN_NOT_OK(CheckSparkType(*child.type, std::string(path) + "." + child.name));
  }
  return Status::OK();
}

Status CheckSparkSchema(const Schema& schema) {
  for (const Field& field : schema.fields()) {
    SLUICE_RETURN_NOT_OK(CheckSparkType(*field.type, field.name));
  }
  return Status::OK();
}

namespace {

// Spark quotes a field name with backquotes when it is not a plain identifier.
std::string QuoteIfNeeded(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') plain = false;
  }
  if (plain) return name;
  std::string quoted = "`";
  for (char c : name) {
    if (c == '`') quoted += '`';  // a backquote inside is doubled
    quoted += c;
  }
  return quoted + "`";
}

}  // namespace

Result<std::string> SparkCatalogString(const DataType& type) {
  SLUICE_ASSIGN_OR_RAISE(SparkTypeId id, SparkTypeIdOf(type));
  switch (id) {
    case SparkTypeId::kNull:
      return std::string("void");
    case SparkTypeId::kBoolean:
      return std::string("boolean");
    case SparkTypeId::kByte:
      return std::string("tinyint");
    case SparkTypeId::kShort:
      return std::string("smallint");
    case SparkTypeId::kInt:
      return std::string("int");
    case SparkTypeId::kLong:
      return std::string("bigint");
    case SparkTypeId::kFloat:
      return std::string("float");
    case SparkTypeId::kDouble:
      return std::string("double");
    case SparkTypeId::kDate:
      return std::string("date");
    case SparkTypeId::kTimestamp:
      return std::string("timestamp");
    case SparkTypeId::kTimestampNtz:
      return std::string("timestamp_ntz");
    case SparkTypeId::kDecimal:
      return "decimal(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) +
             ")";
    case SparkTypeId::kString:
      return std::string("string");
    case SparkTypeId::kBinary:
      return std::string("binary");
    case SparkTypeId::kYearMonthInterval:
      return std::string("interval year to month");
    case SparkTypeId::kDayTimeInterval:
      return std::string("interval day to second");
    case SparkTypeId::kTime:
      return std::string("time(6)");
    case SparkTypeId::kCalendarInterval:
      return std::string("interval");
    case SparkTypeId::kArray: {
      SLUICE_ASSIGN_OR_RAISE(std::string element, SparkCatalogString(type.child_type(0)));
      return "array<" + element + ">";
    }
    case SparkTypeId::kMap: {
      const DataType& entries = type.child_type(0);
      SLUICE_ASSIGN_OR_RAISE(std::string key, SparkCatalogString(entries.child_type(0)));
      SLUICE_ASSIGN_OR_RAISE(std::string value, SparkCatalogString(entries.child_type(1)));
      return "map<" + key + "," + value + ">";
    }
    case SparkTypeId::kStruct: {
      std::string text = "struct<";
      for (size_t i = 0; i < type.children().size(); ++i) {
        if (i > 0) text += ",";
        SLUICE_ASSIGN_OR_RAISE(std::string child, SparkCatalogString(type.child_type(i)));
        text += QuoteIfNeeded(type.children()[i].name) + ":" + child;
      }
      return text + ">";
    }
  }
  return Status::NotImplemented("unknown Spark type");
}

namespace {

// A recursive-descent parser of Spark catalog strings.
class CatalogStringParser {
 public:
  explicit CatalogStringParser(std::string_view text) : text_(text) {}

  Result<TypePtr> ParseWhole() {
    SLUICE_ASSIGN_OR_RAISE(TypePtr type, ParseType());
    SkipSpaces();
    if (position_ != text_.size()) return Error("expected the end of the type");
    return type;
  }

 private:
  Status Error(std::string_view expected) const {
    return Status::Invalid("Spark type \"", text_, "\", character ", position_, ": ", expected);
  }

  void SkipSpaces() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) {
      ++position_;
    }
  }

  bool Consume(char c) {
    SkipSpaces();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }

  Status Expect(char c) {
    if (Consume(c)) return Status::OK();
    return Error(std::string("expected '") + c + "'");
  }

  // Reads a bare word of letters, digits and underscores, lower-cased.
  std::string Word() {
    SkipSpaces();
    std::string word;
    while (position_ < text_.size()) {
      const char c = text_[position_];
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') break;
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      ++position_;
    }
    return word;
  }

  Result<int32_t> Integer() {
    SkipSpaces();
    int64_t value = 0;
    const size_t start = position_;
    while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_]))) {
      value = value * 10 + (text_[position_] - '0');
      if (value > 1000) return Error("expected a small integer");
      ++position_;
    }
    if (position_ == start) return Error("expected an integer");
    return static_cast<int32_t>(value);
  }

  // A field name: a backquoted name (`` doubles a backquote) or a bare word, case kept.
  Result<std::string> FieldName() {
    SkipSpaces();
    std::string name;
    if (position_ < text_.size() && text_[position_] == '`') {
      ++position_;
      while (true) {
        if (position_ >= text_.size()) return Error("expected a closing backquote");
        const char c = text_[position_++];
        if (c == '`') {
          if (position_ < text_.size() && text_[position_] == '`') {
            name += '`';
            ++position_;
            continue;
          }
          break;
        }
        name += c;
      }
      return name;
    }
    while (position_ < text_.size()) {
      const char c = text_[position_];
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') break;
      name += c;
      ++position_;
    }
    if (name.empty()) return Error("expected a field name");
    return name;
  }

  Result<TypePtr> ParseType() {
    const size_t start = position_;
    const std::string word = Word();
    if (word == "boolean") return DataType::Boolean();
    if (word == "tinyint" || word == "byte") return DataType::Int8();
    if (word == "smallint" || word == "short") return DataType::Int16();
    if (word == "int" || word == "integer") return DataType::Int32();
    if (word == "bigint" || word == "long") return DataType::Int64();
    if (word == "float" || word == "real") return DataType::Float32();
    if (word == "double") return DataType::Float64();
    if (word == "date") return DataType::Date32();
    if (word == "timestamp" || word == "timestamp_ltz") {
      return DataType::Timestamp(TimeUnit::kMicro, "UTC");
    }
    if (word == "timestamp_ntz") return DataType::Timestamp(TimeUnit::kMicro);
    if (word == "string") return DataType::Utf8();
    if (word == "binary") return DataType::Binary();
    // A variant's bytes in a row (an int32 value length, the value, the metadata) are laid out
    // as a binary's are: it travels as binary holding exactly those bytes.
    if (word == "variant") return DataType::Binary();
    if (word == "void" || word == "null") return DataType::Null();
    if (word == "interval") return ParseIntervalFields();
    if (word == "time") {
      // Spark stores a TIME of any precision as nanoseconds since midnight.
      if (Consume('(')) {
        SLUICE_ASSIGN_OR_RAISE(const int32_t precision, Integer());
        if (precision > 6) return Error("expected a time precision of 0 to 6");
        SLUICE_RETURN_NOT_OK(Expect(')'));
      }
      return DataType::Time64(TimeUnit::kNano);
    }
    if (word == "decimal" || word == "dec" || word == "numeric") {
      // Spark's bare "decimal" is decimal(10,0).
      int32_t precision = 10;
      int32_t scale = 0;
      if (Consume('(')) {
        SLUICE_ASSIGN_OR_RAISE(precision, Integer());
        if (Consume(',')) {
          SLUICE_ASSIGN_OR_RAISE(scale, Integer());
        }
        SLUICE_RETURN_NOT_OK(Expect(')'));
      }
      if (precision < 1 || precision > 38 || scale > precision) {
        return Error("expected 1 <= precision <= 38 and scale <= precision");
      }
      return DataType::Decimal128(precision, scale);
    }
    if (word == "array") {
      SLUICE_RETURN_NOT_OK(Expect('<'));
      SLUICE_ASSIGN_OR_RAISE(TypePtr element, ParseType());
      SLUICE_RETURN_NOT_OK(Expect('>'));
      return DataType::List(std::move(element));
    }
    if (word == "map") {
      SLUICE_RETURN_NOT_OK(Expect('<'));
      SLUICE_ASSIGN_OR_RAISE(TypePtr key, ParseType());
      SLUICE_RETURN_NOT_OK(Expect(','));
      SLUICE_ASSIGN_OR_RAISE(TypePtr value, ParseType());
      SLUICE_RETURN_NOT_OK(Expect('>'));
      return DataType::Map(std::move(key), std::move(value));
    }
    if (word == "struct") {
      SLUICE_RETURN_NOT_OK(Expect('<'));
      std::vector<Field> fields;
      if (!Consume('>')) {
        do {
          SLUICE_ASSIGN_OR_RAISE(std::string name, FieldName());
          SLUICE_RETURN_NOT_OK(Expect(':'));
          SLUICE_ASSIGN_OR_RAISE(TypePtr type, ParseType());
          fields.push_back(MakeField(std::move(name), std::move(type)));
        } while (Consume(','));
        SLUICE_RETURN_NOT_OK(Expect('>'));
      }
      return DataType::Struct(std::move(fields));
    }
    position_ = start;
    SkipSpaces();
    return Error("expected a Spark type name");
  }

  // After "interval": "year [to month]" or "month" (months, an int), or "day", "hour",
  // "minute" or "second", optionally "to" a later one of them (microseconds, a long).
  Result<TypePtr> ParseIntervalFields() {
    static constexpr std::string_view kYearMonth[] = {"year", "month"};
    static constexpr std::string_view kDayTime[] = {"day", "hour", "minute", "second"};
    auto index_in = [](std::string_view word, auto& fields) {
      for (size_t i = 0; i < std::size(fields); ++i) {
        if (fields[i] == word) return static_cast<int>(i);
      }
      return -1;
    };
    const size_t start = position_;
    const std::string first = Word();
    const bool year_month = index_in(first, kYearMonth) >= 0;
    const bool day_time = index_in(first, kDayTime) >= 0;
    if (!year_month && !day_time) {
      // Spark's CalendarIntervalType: months, days and microseconds, as Spark's own Arrow
      // conversion carries it (month_day_nano, nanoseconds = microseconds * 1000).
      position_ = start;
      return DataType::IntervalMonthDayNano();
    }
    const size_t before_to = position_;
    if (Word() == "to") {
      const std::string last = Word();
      const bool ordered = year_month ? index_in(last, kYearMonth) > index_in(first, kYearMonth)
                                      : index_in(last, kDayTime) > index_in(first, kDayTime);
      if (!ordered) return Error("expected a later interval field after 'to'");
    } else {
      position_ = before_to;
    }
    return year_month ? DataType::IntervalYearMonth() : DataType::Duration(TimeUnit::kMicro);
  }

  std::string_view text_;
  size_t position_ = 0;
};

}  // namespace

Result<TypePtr> ArrowTypeFromSparkCatalogString(std::string_view text) {
  return CatalogStringParser(text).ParseWhole();
}

Result<SchemaPtr> SchemaFromSparkCatalogString(std::string_view text) {
  SLUICE_ASSIGN_OR_RAISE(TypePtr type, ArrowTypeFromSparkCatalogString(text));
  if (type->id() != TypeId::kStruct) {
    return Status::Invalid("Spark schema \"", text, "\": expected struct<...>");
  }
  return SchemaPtr(std::make_shared<Schema>(type->children()));
}

}  // namespace sluice
