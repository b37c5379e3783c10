// Spark SQL types and the Arrow types of the columnar model that carry them.
//
// The row path moves Spark UnsafeRows, whose layout is decided by Spark's type of each field, while
// the rest of Sluice speaks Arrow. This header is the one place where the two meet:
//
//   boolean <-> bool                 date          <-> date32
//   byte    <-> int8                 timestamp     <-> timestamp[us, tz=<any>]
//   short   <-> int16                timestamp_ntz <-> timestamp[us] (no time zone)
//   int     <-> int32                decimal(p,s)  <-> decimal128(p, s)
//   long    <-> int64                string        <-> utf8
//   float   <-> float32              binary        <-> binary
//   double  <-> float64              void (null)   <-> null
//   struct  <-> struct               array<T>      <-> list<T>
//   map<K,V> <-> map<K, V>
//   interval year to month (any of its fields)  <-> month_interval (int32 months)
//   interval day to second (any of its fields)  <-> duration[us]
//   time(p)                                     <-> time64[ns] (nanoseconds since midnight)
//
// Arrow types a Spark row cannot carry (unsigned integers, large_* types, fixed_size_binary,
// timestamps of a unit other than microseconds) have no Spark type: the functions below return
// NotImplemented naming the field path, which is what the row converters' factories report.
//
// A Spark type can also be written as Spark's catalog string ("struct<a:int,b:array<string>>"),
// which is how the JVM side and the tests name schemas compactly. Catalog strings carry no
// nullability, so every parsed field, array element and map value is nullable, as Spark's default.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/format/data_type.h"
#include "sluice/format/schema.h"

namespace sluice {

/// A Spark SQL data type that an UnsafeRow can hold.
enum class SparkTypeId : uint8_t {
  kNull,
  kBoolean,
  kByte,
  kShort,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDate,
  kTimestamp,     ///< Microseconds since the epoch, shown in the session time zone.
  kTimestampNtz,  ///< Microseconds since the epoch, without a time zone.
  kDecimal,
  kString,
  kBinary,
  kStruct,
  kArray,
  kMap,
  kYearMonthInterval,  ///< Months, an int.
  kDayTimeInterval,    ///< Microseconds, a long.
  kTime,               ///< Nanoseconds since midnight, a long.
  /// CalendarIntervalType: months, days and microseconds in 16 bytes of the variable region;
  /// month_day_nano_interval in Arrow (nanoseconds = microseconds * 1000, as Spark's ArrowWriter).
  kCalendarInterval,
};

/// Returns the Spark type of an Arrow type (its top level only; children are not checked), or
/// NotImplemented when Spark has no type for it.
Result<SparkTypeId> SparkTypeIdOf(const DataType& type);

/// Checks that `type` and every type nested in it has a Spark type. `path` names the field in the
/// error message ("c3.f1.item").
Status CheckSparkType(const DataType& type, std::string_view path);

/// Checks every column of `schema`, nested types included; NotImplemented names the first field
/// Spark cannot carry.
Status CheckSparkSchema(const Schema& schema);

/// Returns Spark's catalog string of `type`, such as "map<string,array<bigint>>".
Result<std::string> SparkCatalogString(const DataType& type);

/// Parses a Spark catalog string ("int", "decimal(38,10)", "array<struct<a:int,b:string>>") into
/// the Arrow type that carries it. Accepts Spark's aliases (integer, long, short, byte, null) and
/// backquoted field names; Invalid names the character offset of a syntax error.
Result<TypePtr> ArrowTypeFromSparkCatalogString(std::string_view text);

/// Parses "struct<...>" into a schema with one column per struct field.
Result<SchemaPtr> SchemaFromSparkCatalogString(std::string_view text);

}  // namespace sluice
