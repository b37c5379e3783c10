package org.apache.spark.sql.sluice

import java.lang.reflect.Field

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.spark.RangePartitioner
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.MutablePair

/**
 * Spark's range bounds for a columnar exchange: the RangePartitioner Spark's own exchange makes
 * (ShuffleExchangeExec.prepareShuffleDependency), over a sample of the same rows, with the same
 * ordering and sample size, so the bounds are drawn as Spark draws them. For keys that are
 * columns the native writer places rows against the bounds (the number of bounds below the key,
 * as RangePartitioner.getPartition); for keys that are expressions the partitioner itself places
 * them in the map task (RangePartitionIds).
 */
object RangeBounds {
  /** RangePartitioner keeps its bounds in a private field; Spark has no other way to them. */
  private lazy val boundsField: Either[String, Field] = Try {
    val field = classOf[RangePartitioner[_, _]].getDeclaredField("rangeBounds")
    field.setAccessible(true)
    field
  }.toEither.left.map(e => s"RangePartitioner has no readable rangeBounds field ($e)")

  /** Why the bounds cannot be read in this Spark, if they cannot: the row path then applies. */
  def unavailableReason: Option[String] = boundsField.swap.toOption

  /**
   * Samples `batches` (rows of `output`) as Spark does for `range`; returns Spark's partitioner,
   * whose partition count is the bounds plus one (which may be fewer than asked for).
   */
  def sample(
      range: RangePartitioning,
      output: Seq[Attribute],
      batches: RDD[ColumnarBatch]): RangePartitioner[InternalRow, Null] = {
    val ordering = range.ordering
    val keys = ordering.map(_.child)
    val sampled = batches.mapPartitionsInternal { iterator =>
      val projection = UnsafeProjection.create(keys, output)
      val pair = new MutablePair[InternalRow, Null]()
      iterator.flatMap(_.rowIterator().asScala).map(row => pair.update(projection(row).copy(), null))
    }
    val boundOrdering = ordering.zipWithIndex.map { case (order, i) =>
      order.copy(child = BoundReference(i, order.dataType, order.nullable))
    }
    implicit val rowOrdering: Ordering[InternalRow] = new LazilyGeneratedOrdering(boundOrdering)
    new RangePartitioner(range.numPartitions, sampled, ascending = true,
      samplePointsPerPartitionHint = SQLConf.get.rangeExchangeSampleSizePerPartition)
  }

  /** The partitioner's bounds, packed for the native writer (packRows). */
  def packedBounds(partitioner: RangePartitioner[InternalRow, Null]): Array[Long] = {
    val field = boundsField.fold(reason => throw new IllegalStateException(reason), identity)
    val bounds = field.get(partitioner).asInstanceOf[Array[InternalRow]]
    packRows(bounds.map(_.asInstanceOf[UnsafeRow]))
  }

  /** Packs UnsafeRows as [count, each row's size in bytes, the rows' 8-byte words]. */
  def packRows(rows: Array[UnsafeRow]): Array[Long] = {
    val words = rows.map(_.getSizeInBytes / 8).sum
    val packed = new Array[Long](1 + rows.length + words)
    packed(0) = rows.length
    var at = 1 + rows.length
    for ((row, i) <- rows.zipWithIndex) {
      packed(1 + i) = row.getSizeInBytes
      val bytes = row.getBytes
      val buffer = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
      for (_ <- 0 until row.getSizeInBytes / 8) {
        packed(at) = buffer.getLong
        at += 1
      }
    }
    packed
  }
}
