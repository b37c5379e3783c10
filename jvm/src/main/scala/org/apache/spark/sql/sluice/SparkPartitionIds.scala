package org.apache.spark.sql.sluice

import org.apache.spark.RangePartitioner
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Spark's partition id of each row of a column batch, computed in the JVM by Spark's own
 * expressions, for partitioning keys Sluice does not evaluate natively (an expression rather than
 * a column, a string of a non-binary collation). The ids are what Spark's exchange computes for
 * the same rows (ShuffleExchangeExec.prepareShuffleDependency): the key is projected from each
 * row and placed by the partitioning's own function. The native writer takes them with each batch
 * ("given" partitioning); only the keys are evaluated per row, the rows are still copied a column
 * at a time.
 *
 * @param keys the expressions projected from each row (bound to `output`)
 * @param output the attributes of the batch's columns
 */
sealed abstract class SparkPartitionIds(keys: Seq[Expression], output: Seq[Attribute])
  extends Serializable {
  @transient private lazy val projection = UnsafeProjection.create(keys, output)

  /** The partition of a row's projected key. */
  protected def partitionOf(key: UnsafeRow): Int

  /** Writes the partition of each row of `batch` to `ids` (at least numRows long). */
  def fill(batch: ColumnarBatch, ids: Array[Int]): Unit = {
    val rows = batch.rowIterator()
    var i = 0
    while (rows.hasNext) {
      ids(i) = partitionOf(projection(rows.next()))
      i += 1
    }
  }
}

/** Hash partitioning: Spark's partition id expression, pmod(murmur3(keys), n). */
final class HashPartitionIds(partitioning: HashPartitioning, output: Seq[Attribute])
  extends SparkPartitionIds(partitioning.partitionIdExpression :: Nil, output) {
  override protected def partitionOf(key: UnsafeRow): Int = key.getInt(0)
}

/** Range partitioning: the sort keys placed by the RangePartitioner Spark's bounds came from. */
final class RangePartitionIds(
    keys: Seq[Expression],
    output: Seq[Attribute],
    partitioner: RangePartitioner[InternalRow, Null])
  extends SparkPartitionIds(keys, output) {
  override protected def partitionOf(key: UnsafeRow): Int = partitioner.getPartition(key)
}
