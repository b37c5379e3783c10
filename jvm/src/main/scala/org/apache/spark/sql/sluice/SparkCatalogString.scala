package org.apache.spark.sql.sluice

import org.apache.spark.sql.types._

/**
 * Writes the schema of shuffled rows as the catalog string Sluice's native side parses
 * (sluice/row/spark_type.h). Field names are generated (c0, c1, ... and f0, f1, ... inside
 * structs): an UnsafeRow is positional, and generated names need no quoting.
 */
object SparkCatalogString {

  /** Returns "struct<c0:...,c1:...>" for a row of `types`, or why a type cannot be carried. */
  def ofRow(types: Seq[DataType]): Either[String, String] = {
    val fields = types.zipWithIndex.map { case (t, i) => of(t).map(s => s"c$i:$s") }
    fields.collectFirst { case Left(reason) => reason } match {
      case Some(reason) => Left(reason)
      case None => Right(fields.map(_.toOption.get).mkString("struct<", ",", ">"))
    }
  }

  /** Returns the catalog string of one type, or why it has no Sluice equivalent. */
  def of(dataType: DataType): Either[String, String] = dataType match {
    case BooleanType => Right("boolean")
    case ByteType => Right("tinyint")
    case ShortType => Right("smallint")
    case IntegerType => Right("int")
    case LongType => Right("bigint")
    case FloatType => Right("float")
    case DoubleType => Right("double")
    case DateType => Right("date")
    case TimestampType => Right("timestamp")
    case TimestampNTZType => Right("timestamp_ntz")
    case d: DecimalType => Right(s"decimal(${d.precision},${d.scale})")
    // Every collation stores UTF-8 bytes; char(n) and varchar(n) are strings in rows.
    case _: StringType => Right("string")
    case BinaryType => Right("binary")
    case NullType => Right("void")
    // ANSI intervals and TIME: an int of months, a long of microseconds, a long of nanoseconds
    // since midnight, whatever their fields or precision.
    case _: YearMonthIntervalType => Right("interval year to month")
    case _: DayTimeIntervalType => Right("interval day to second")
    case _: TimeType => Right("time(6)")
    // Months, days and microseconds: month_day_nano natively, as in Spark's own Arrow form.
    case CalendarIntervalType => Right("interval")
    // A variant's row bytes (value length, value, metadata) travel as a binary's.
    case VariantType => Right("variant")
    // Geometries and geographies are their well-known binary in rows.
    case _: GeometryType | _: GeographyType => Right("binary")
    // A user-defined type is stored in rows as its SQL type.
    case udt: UserDefinedType[_] => of(udt.sqlType)
    case struct: StructType =>
      val fields = struct.fields.toSeq.zipWithIndex.map { case (f, i) =>
        of(f.dataType).map(s => s"f$i:$s")
      }
      fields.collectFirst { case Left(reason) => reason } match {
        case Some(reason) => Left(reason)
        case None => Right(fields.map(_.toOption.get).mkString("struct<", ",", ">"))
      }
    case ArrayType(element, _) => of(element).map(e => s"array<$e>")
    case MapType(key, value, _) =>
      for (k <- of(key); v <- of(value)) yield s"map<$k,$v>"
    case other => Left(s"the type ${other.catalogString} has no Sluice equivalent yet")
  }
}
