package org.apache.spark.shuffle.sluice

import org.apache.spark.TaskContext
import org.apache.spark.shuffle.{IndexShuffleBlockResolver, ShuffleWriteMetricsReporter}
import org.apache.spark.shuffle.checksum.RowBasedChecksum
import org.apache.spark.sql.sluice.ArrowBatchCopier
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Writes one map task's column batches through Sluice's native MapWriter: the map side of the
 * columnar path (SluiceColumnarExchangeExec).
 *
 * Each ColumnarBatch is copied once into Arrow buffers the native writer lends
 * (ArrowBatchCopier), in two JNI calls per batch and none per row; the native writer computes
 * Spark's partition id of every row itself (hash of the key columns, a single partition,
 * round-robin, with Spark's sort before it by ranking the task's rows) and keeps the batch until
 * it gathers partitions. Range partitioning places rows against the
 * bounds Spark sampled on the driver, which the dependency carries. Keys that are expressions
 * are evaluated here, by Spark, into each row's partition id (SparkPartitionIds). The buffers
 * are charged to the task before they are taken and what the writer holds after each batch; when
 * Spark asks for memory back the writer spills. The commit, the metrics and encryption are NativeShuffleWriter's.
 */
private[spark] class SluiceBatchShuffleWriter[K, V](
    handle: SluiceBatchShuffleHandle[K, V],
    mapId: Long,
    context: TaskContext,
    writeMetrics: ShuffleWriteMetricsReporter,
    blockResolver: IndexShuffleBlockResolver,
    conf: SluiceConf)
  extends NativeShuffleWriter[K, V](
    handle.shuffleId, mapId, handle.batchDependency.partitioner.numPartitions, context,
    writeMetrics, blockResolver, conf, Array.empty[RowBasedChecksum],
    Some(handle.batchDependency.dataSize)) {

  private val copier = new ArrowBatchCopier(handle.batchDependency.types)
  private val sparkPartitionIds = handle.batchDependency.sparkPartitionIds
  /** The partition of each row of the batch, when Spark computes them; grows to the largest. */
  private var partitionIds = Array.emptyIntArray

  override protected def createNative(path: String): Long = {
    val (keys, values) = conf.batchWriterSettings(
      handle.batchDependency.partitioning, partitionCount, context.partitionId())
    SluiceNative.batchWriterCreate(
      handle.batchDependency.schema, keys, values, path, handle.batchDependency.rangeBounds)
  }

  override protected def insertAll(records: Iterator[Product2[K, V]]): Unit = {
    val batches = records.asInstanceOf[Iterator[Product2[Int, ColumnarBatch]]]
    while (batches.hasNext) {
      val batch = batches.next()._2
      if (batch.numRows() > 0) write(batch)
    }
  }

  /** Copies a batch into native buffers and writes it; the copy counts as write time. */
  private def write(batch: ColumnarBatch): Unit = timed {
    rowBytes += copier.measure(batch)
    reserve(copier.bufferBytes().sum)
    memory.chargeHeld(
      SluiceNative.batchWriterReserve(writer, copier.bufferBytes(), copier.addresses()))
    val nodes = copier.fill(batch)
    val ids = sparkPartitionIds.map { computed =>
      if (partitionIds.length < batch.numRows()) partitionIds = new Array[Int](batch.numRows())
      computed.fill(batch, partitionIds)
      partitionIds
    }
    memory.chargeHeld(SluiceNative.batchWriterWrite(writer, batch.numRows(), nodes, ids.orNull))
    writeMetrics.incRecordsWritten(batch.numRows())
  }

  override protected def spillHeld(): Long = {
    val before = SluiceNative.batchWriterHeldBytes(writer)
    before - timed(SluiceNative.batchWriterSpill(writer))
  }

  override protected def heldBytes(): Long = SluiceNative.batchWriterHeldBytes(writer)

  override protected def finishNative(
      lengths: Array[Long], checksums: Array[Long], metrics: Array[Long]): Unit =
    SluiceNative.batchWriterFinish(writer, lengths, checksums, metrics)

  override protected def closeNative(handle: Long): Unit = SluiceNative.batchWriterClose(handle)
}
