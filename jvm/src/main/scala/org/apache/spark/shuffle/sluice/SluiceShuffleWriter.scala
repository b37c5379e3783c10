package org.apache.spark.shuffle.sluice

import org.apache.spark.TaskContext
import org.apache.spark.shuffle.{IndexShuffleBlockResolver, ShuffleWriteMetricsReporter}
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.sluice.ExchangeDataSize
import org.apache.spark.unsafe.Platform

/**
 * Writes one map task's rows through Sluice's native RowMapWriter.
 *
 * Each UnsafeRow is copied once, by Platform.copyMemory, into a native page after an 8-byte
 * size; its packed pointer (partition:24 | page:13 | offset:27) goes into a reused long[], which
 * is handed over in one JNI call per page or per `spark.sluice.pointerBatchRows` rows. The
 * partition id is read with the Int-specialised accessor of Spark's MutablePair, so nothing is
 * boxed here, and no call crosses into native code per row.
 *
 * Memory: every page and the native pointer array are charged to the task's
 * TaskMemoryManager through a MemoryConsumer before (pages) or right after (pointer growth,
 * reported by native) they are taken. When Spark asks this consumer to spill, or a page cannot
 * be had, the native writer spills everything it holds to one file and the memory is released.
 * The commit, the metrics and encryption are NativeShuffleWriter's.
 */
private[spark] class SluiceShuffleWriter[K, V](
    handle: SluiceShuffleHandle[K, V],
    mapId: Long,
    context: TaskContext,
    writeMetrics: ShuffleWriteMetricsReporter,
    blockResolver: IndexShuffleBlockResolver,
    conf: SluiceConf)
  extends NativeShuffleWriter[K, V](
    handle.shuffleId, mapId, handle.dependency.partitioner.numPartitions, context, writeMetrics,
    blockResolver, conf, handle.dependency.rowBasedChecksums,
    // Spark's row serializer adds each row's size to the exchange's dataSize metric; this writer
    // adds the same sum at commit. The manager carries no shuffle whose metric it cannot reach.
    ExchangeDataSize.of(handle.dependency.serializer).toOption.flatten) {

  private val rowBasedChecksums = handle.dependency.rowBasedChecksums

  // The page being filled: rows go at cursor, up to pageEnd.
  private val pageOut = new Array[Long](SluiceNative.PAGE_SLOTS)
  private var pageNumber = 0L
  private var pageBase = 0L
  private var cursor = 0L
  private var pageEnd = 0L
  // Shared by the tasks of an executor thread, one at a time, and grown with the rows of a task up
  // to pointerBatchRows: thousands of small tasks allocating 512 KiB each fed the collector.
  private var pointers = SluiceShuffleWriter.threadPointers(conf.pointerBatchRows)
  private var pointerCount = 0

  override protected def createNative(path: String): Long = {
    val (keys, values) = conf.writerSettings
    SluiceNative.writerCreate(handle.schema, partitionCount, keys, values, path)
  }

  override protected def insertAll(records: Iterator[Product2[K, V]]): Unit =
    insertRows(records.asInstanceOf[Iterator[Product2[Int, UnsafeRow]]])

  private def insertRows(records: Iterator[Product2[Int, UnsafeRow]]): Unit = {
    while (records.hasNext) {
      val record = records.next()
      val partition = record._1
      val row = record._2
      // Spark's order-independent checksum of the rows of each partition, which the map status
      // carries (spark.sql.shuffle.orderIndependentChecksum.enabled), updated as Spark's own
      // writers do.
      if (rowBasedChecksums.length > 0) rowBasedChecksums(partition).update(partition, row)
      val size = row.getSizeInBytes
      val needed = 8L + size
      if (cursor + needed > pageEnd) newPage(needed)
      Platform.putLong(null, cursor, size.toLong)
      Platform.copyMemory(row.getBaseObject, row.getBaseOffset, null, cursor + 8, size)
      pointers(pointerCount) =
        (partition.toLong << 40) | (pageNumber << 27) | (cursor - pageBase)
      pointerCount += 1
      cursor += needed
      rowBytes += size
      if (pointerCount == pointers.length) {
        if (pointers.length < conf.pointerBatchRows) {
          pointers = java.util.Arrays.copyOf(pointers,
            math.min(pointers.length * 2, conf.pointerBatchRows))
        } else {
          addPointers()
        }
      }
    }
    addPointers()
  }

  /** Hands the pointers collected so far to native code. */
  private def addPointers(): Unit = {
    if (pointerCount > 0) {
      val held = timed(SluiceNative.writerAddPointers(writer, pointers, pointerCount))
      writeMetrics.incRecordsWritten(pointerCount)
      pointerCount = 0
      // Pointer-array growth happens natively and is charged here; if the task cannot give it,
      // the next page's reservation spills.
      memory.chargeHeld(held)
    }
  }

  /** Reserves memory for a page of at least `needed` bytes, then takes it from native code. */
  private def newPage(needed: Long): Unit = {
    addPointers()
    // Pages start small and double up to spark.sluice.pageBytes: a task of one row reserves
    // 64 KiB, not 16 MiB.
    reserve(SluiceNative.writerNextPageBytes(writer, needed))
    val held = timed(SluiceNative.writerNewPage(writer, needed, pageOut))
    pageNumber = pageOut(SluiceNative.PAGE_NUMBER)
    pageBase = pageOut(SluiceNative.PAGE_ADDRESS)
    cursor = pageBase
    pageEnd = pageBase + pageOut(SluiceNative.PAGE_CAPACITY)
    memory.chargeHeld(held)
  }

  override protected def spillHeld(): Long = {
    addPointers()
    val released = timed(SluiceNative.writerSpill(writer))
    // Every page is gone: the next row starts a new page.
    cursor = 0L
    pageEnd = 0L
    released
  }

  override protected def heldBytes(): Long = SluiceNative.writerHeldBytes(writer)

  override protected def finishNative(
      lengths: Array[Long], checksums: Array[Long], metrics: Array[Long]): Unit =
    SluiceNative.writerFinish(writer, lengths, checksums, metrics)

  override protected def closeNative(handle: Long): Unit = SluiceNative.writerClose(handle)

  override protected def releaseThreadBuffers(): Unit = {
    if (pointers != null) {
      SluiceShuffleWriter.keepPointers(pointers)
      pointers = null
    }
  }
}

private[sluice] object SluiceShuffleWriter {
  /** Pointers a thread's first task starts with (8 KiB); the array doubles as rows come. */
  val InitialPointers = 1024

  private val threadArray = new ThreadLocal[Array[Long]]

  /** This executor thread's pointer array (at most `limit` long), for one task at a time. */
  def threadPointers(limit: Int): Array[Long] = {
    val kept = threadArray.get()
    if (kept != null && kept.length <= limit) {
      threadArray.remove()
      kept
    } else {
      new Array[Long](math.min(InitialPointers, limit))
    }
  }

  /** Gives a task's pointer array back to its thread for the next task. */
  def keepPointers(pointers: Array[Long]): Unit = threadArray.set(pointers)
}
