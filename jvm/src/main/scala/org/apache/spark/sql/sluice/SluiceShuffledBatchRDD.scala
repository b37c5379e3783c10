package org.apache.spark.sql.sluice

import org.apache.spark.{Dependency, MapOutputTrackerMaster, Partition, SparkEnv, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.shuffle.sort.SortShuffleManager
import org.apache.spark.sql.execution.{CoalescedMapperPartitionSpec, CoalescedPartitionSpec, PartialMapperPartitionSpec, PartialReducerPartitionSpec, ShufflePartitionSpec}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLShuffleReadMetricsReporter}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * The reduce side of a columnar shuffle: one partition per ShufflePartitionSpec (a range of
 * reducers, or part of one reducer's map outputs, as adaptive execution's coalescing, skew
 * splitting and local reads ask), each read by the shuffle manager's reader as column batches.
 * The specs are read as Spark's ShuffledRowRDD reads them, so every AQE plan works the same.
 */
class SluiceShuffledBatchRDD(
    var dependency: SluiceBatchDependency,
    metrics: Map[String, SQLMetric],
    partitionSpecs: Array[ShufflePartitionSpec])
  extends RDD[ColumnarBatch](dependency.rdd.context, Nil) {

  def this(dependency: SluiceBatchDependency, metrics: Map[String, SQLMetric]) =
    this(dependency, metrics, Array.tabulate[ShufflePartitionSpec](
      dependency.partitioner.numPartitions)(i => CoalescedPartitionSpec(i, i + 1)))

  // As Spark's ShuffledRowRDD: whether a reader may fetch contiguous partitions as one block.
  dependency.rdd.context.setLocalProperty(
    SortShuffleManager.FETCH_SHUFFLE_BLOCKS_IN_BATCH_ENABLED_KEY,
    SQLConf.get.fetchShuffleBlocksInBatch.toString)

  override def getDependencies: Seq[Dependency[_]] = List(dependency)

  override def getPartitions: Array[Partition] =
    Array.tabulate[Partition](partitionSpecs.length)(i => ShuffledBatchPartition(i, partitionSpecs(i)))

  override def getPreferredLocations(partition: Partition): Seq[String] = {
    val tracker = SparkEnv.get.mapOutputTracker.asInstanceOf[MapOutputTrackerMaster]
    partition.asInstanceOf[ShuffledBatchPartition].spec match {
      case CoalescedPartitionSpec(startReducerIndex, endReducerIndex, _) =>
        startReducerIndex.until(endReducerIndex).flatMap { reducer =>
          tracker.getPreferredLocationsForShuffle(dependency, reducer)
        }
      case PartialReducerPartitionSpec(_, startMapIndex, endMapIndex, _) =>
        tracker.getMapLocation(dependency, startMapIndex, endMapIndex)
      case PartialMapperPartitionSpec(mapIndex, _, _) =>
        tracker.getMapLocation(dependency, mapIndex, mapIndex + 1)
      case CoalescedMapperPartitionSpec(startMapIndex, endMapIndex, _) =>
        tracker.getMapLocation(dependency, startMapIndex, endMapIndex)
    }
  }

  override def compute(split: Partition, context: TaskContext): Iterator[ColumnarBatch] = {
    val reporter = new SQLShuffleReadMetricsReporter(
      context.taskMetrics().createTempShuffleReadMetrics(), metrics)
    val manager = SparkEnv.get.shuffleManager
    val handle = dependency.shuffleHandle
    val reader = split.asInstanceOf[ShuffledBatchPartition].spec match {
      case CoalescedPartitionSpec(startReducerIndex, endReducerIndex, _) =>
        manager.getReader(handle, startReducerIndex, endReducerIndex, context, reporter)
      case PartialReducerPartitionSpec(reducer, startMapIndex, endMapIndex, _) =>
        manager.getReader(
          handle, startMapIndex, endMapIndex, reducer, reducer + 1, context, reporter)
      case PartialMapperPartitionSpec(mapIndex, startReducerIndex, endReducerIndex) =>
        manager.getReader(
          handle, mapIndex, mapIndex + 1, startReducerIndex, endReducerIndex, context, reporter)
      case CoalescedMapperPartitionSpec(startMapIndex, endMapIndex, reducers) =>
        manager.getReader(handle, startMapIndex, endMapIndex, 0, reducers, context, reporter)
    }
    reader.read().asInstanceOf[Iterator[Product2[Int, ColumnarBatch]]].map(_._2)
  }

  override def clearDependencies(): Unit = {
    super.clearDependencies()
    dependency = null
  }
}

/** One reduce task of a columnar shuffle: the part of the map outputs `spec` names. */
private final case class ShuffledBatchPartition(index: Int, spec: ShufflePartitionSpec)
  extends Partition
