package org.apache.spark.sql.sluice

import org.apache.spark.{Partition, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow

/**
 * The rows of a shuffle exchange's child, unchanged, tagged with their schema so that
 * SluiceShuffleManager.registerShuffle can find it by walking the shuffle's narrow lineage.
 * `schema` is the Spark catalog string of the rows, or why Sluice cannot carry them.
 */
class SluiceSchemaRDD(prev: RDD[InternalRow], val schema: Either[String, String])
  extends RDD[InternalRow](prev) {

  override val partitioner = prev.partitioner

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] =
    firstParent[InternalRow].iterator(split, context)

  override protected def getPartitions: Array[Partition] = firstParent[InternalRow].partitions
}
