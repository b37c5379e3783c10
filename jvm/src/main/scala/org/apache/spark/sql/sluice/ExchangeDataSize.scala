package org.apache.spark.sql.sluice

import java.lang.reflect.Field

import scala.util.Try

import org.apache.spark.serializer.Serializer
import org.apache.spark.sql.execution.UnsafeRowSerializer
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * The `dataSize` metric of a shuffle exchange, which adaptive execution reads as the size of a
 * shuffle stage (ShuffleExchangeExec.runtimeStatistics) when it plans joins: a stage of 0 bytes is
 * broadcast whatever its real size.
 *
 * Spark's row serializer adds each UnsafeRow's size to the metric as it writes the row. Sluice
 * does not use that serializer, so its writer adds the same sum itself, to the metric the
 * exchange handed the serializer (UnsafeRowSerializer keeps it in a private field; Spark has no
 * other way to reach it from a shuffle dependency).
 */
object ExchangeDataSize {
  private lazy val field: Either[String, Field] = Try {
    val f = classOf[UnsafeRowSerializer].getDeclaredField("dataSize")
    f.setAccessible(true)
    f
  }.toEither.left.map(e => s"UnsafeRowSerializer has no readable dataSize field ($e)")

  /**
   * The metric `serializer` adds row sizes to (None when the exchange gave it none), or why it
   * cannot be read, in which case Sluice must not carry the shuffle: AQE would see 0 bytes.
   */
  def of(serializer: Serializer): Either[String, Option[SQLMetric]] = serializer match {
    case rows: UnsafeRowSerializer =>
      field.map(f => Option(f.get(rows).asInstanceOf[SQLMetric]))
    case other => Left(s"${other.getClass.getName} is not Spark SQL's UnsafeRowSerializer")
  }
}
