package org.apache.spark.shuffle.sluice

import java.io.{BufferedOutputStream, File, FileInputStream, FileOutputStream, IOException, OutputStream}
import java.util.zip.Checksum

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.network.shuffle.checksum.ShuffleChecksumHelper
import org.apache.spark.scheduler.MapStatus
import org.apache.spark.shuffle.{IndexShuffleBlockResolver, ShuffleWriteMetricsReporter, ShuffleWriter}
import org.apache.spark.shuffle.checksum.RowBasedChecksum
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.sluice.ExchangeDataSize
import org.apache.spark.unsafe.Platform
import org.apache.spark.util.Utils

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
 *
 * Metrics, as Spark's own shuffle reports them: the exchange's `dataSize` (the bytes of the
 * UnsafeRows written, which adaptive execution plans joins by) and records written; write time
 * covers every native call (conversion, encoding, compression, file writes, spills); the peak
 * memory charged to the task is its peak execution memory.
 *
 * Native code writes only the data file, to the temporary path Spark's IndexShuffleBlockResolver
 * derives from the final one; the resolver then writes the index and checksum files and commits
 * all of them, exactly as for Spark's own writers. The checksums are computed natively with
 * Spark's configured algorithm.
 */
private[spark] class SluiceShuffleWriter[K, V](
    handle: SluiceShuffleHandle[K, V],
    mapId: Long,
    context: TaskContext,
    writeMetrics: ShuffleWriteMetricsReporter,
    blockResolver: IndexShuffleBlockResolver,
    conf: SluiceConf)
  extends ShuffleWriter[K, V] with Logging {

  private val shuffleId = handle.shuffleId
  private val partitionCount = handle.dependency.partitioner.numPartitions
  private var writer = 0L
  private var finished = false
  private var stopping = false
  private var mapStatus: MapStatus = _
  private val partitionLengths: Array[Long] = new Array[Long](partitionCount)
  private val rowBasedChecksums: Array[RowBasedChecksum] = handle.dependency.rowBasedChecksums
  private val serializerManager = SparkEnv.get.serializerManager

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

  // Charges the native writer's memory to the task, and spills it when Spark asks.
  private val memory = new TaskMemoryCharge(context, () => spillNative())

  // Spark's row serializer adds each row's size to the exchange's dataSize metric; this writer
  // adds the same sum at commit. The manager carries no shuffle whose metric it cannot reach.
  private val dataSize = ExchangeDataSize.of(handle.dependency.serializer).toOption.flatten
  private var rowBytes = 0L
  private var nativeNanos = 0L

  context.addTaskCompletionListener[Unit](_ => close())

  override def write(records: Iterator[Product2[K, V]]): Unit = {
    val dataFile = blockResolver.getDataFile(shuffleId, mapId)
    val temporaryFile = Utils.tempFileWith(dataFile)
    val (keys, values) = conf.writerSettings
    SluiceFaults.armFor(context, "map")
    writer = timed(SluiceNative.writerCreate(
      handle.schema, partitionCount, keys, values, temporaryFile.getAbsolutePath))
    try {
      insertAll(records.asInstanceOf[Iterator[Product2[Int, UnsafeRow]]])
      commit(temporaryFile)
    } finally {
      if (temporaryFile.exists() && !finished) temporaryFile.delete()
    }
  }

  private def insertAll(records: Iterator[Product2[Int, UnsafeRow]]): Unit = {
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

  /** Acquires `bytes` from the task (spilling when it cannot have them) ahead of a page. */
  private def reserve(bytes: Long): Unit = {
    if (memory.bytes + bytes > conf.maxHeldBytes) spillNative()
    val got = memory.charge(bytes)
    if (got < bytes) {
      memory.release(got)
      spillNative()
      memory.chargeOrFail(bytes)
    }
  }

  /** Spills every row held natively; returns the bytes released to the task. */
  private def spillNative(): Long = {
    if (writer == 0L || finished || stopping) return 0L
    addPointers()
    val before = memory.bytes
    val released = timed(SluiceNative.writerSpill(writer))
    // Every page is gone: the next row starts a new page.
    cursor = 0L
    pageEnd = 0L
    memory.chargeHeld(SluiceNative.writerHeldBytes(writer))
    val freed = before - memory.bytes
    if (released > 0) {
      context.taskMetrics().incMemoryBytesSpilled(released)
      logInfo(s"Sluice: shuffle $shuffleId map $mapId spilled ${Utils.bytesToString(released)}")
    }
    freed
  }

  private def commit(plainFile: File): Unit = {
    val checksums = new Array[Long](if (conf.checksumEnabled) partitionCount else 0)
    val metrics = new Array[Long](SluiceNative.WRITE_METRIC_SLOTS)
    timed(SluiceNative.writerFinish(writer, partitionLengths, checksums, metrics))
    finished = true
    memory.chargeHeld(0L)
    val temporaryFile =
      if (serializerManager.encryptionEnabled) timed(encryptPartitions(plainFile, checksums))
      else plainFile
    val outputBytes =
      if (temporaryFile eq plainFile) metrics(SluiceNative.WRITE_OUTPUT_BYTES)
      else partitionLengths.sum
    val spillBytes = metrics(SluiceNative.WRITE_SPILL_BYTES)
    writeMetrics.incBytesWritten(outputBytes)
    writeMetrics.incWriteTime(nativeNanos)
    dataSize.foreach(_.add(rowBytes))
    if (spillBytes > 0) context.taskMetrics().incDiskBytesSpilled(spillBytes)
    blockResolver.writeMetadataFileAndCommit(
      shuffleId, mapId, partitionLengths, checksums, temporaryFile)
    mapStatus = MapStatus(SparkEnv.get.blockManager.shuffleServerId, partitionLengths, mapId,
      RowBasedChecksum.getAggregatedChecksumValue(rowBasedChecksums))
  }

  /**
   * With spark.io.encryption.enabled, each non-empty partition of the plain map output becomes
   * what Spark's own writers store for it: an IV, then the bytes through Spark's cipher stream
   * with the application's key (SerializerManager.wrapForEncryption), in a new file. The
   * partition lengths and Spark's checksums become those of the stored bytes. Returns the new
   * file; the plain one is deleted, and on failure both are.
   */
  private def encryptPartitions(plain: File, checksums: Array[Long]): File = {
    val encrypted = Utils.tempFileWith(plain)
    val partitionChecksums =
      if (checksums.isEmpty) null
      else ShuffleChecksumHelper.createPartitionChecksums(partitionCount, conf.checksumAlgorithm)
    val buffer = new Array[Byte](1 << 16)
    try {
      Utils.tryWithResource(new FileInputStream(plain)) { in =>
        Utils.tryWithResource(new BufferedOutputStream(new FileOutputStream(encrypted), 1 << 16)) {
          out =>
            for (p <- 0 until partitionCount) {
              val length = partitionLengths(p)
              if (length > 0) {
                val stored = new StoredPartitionStream(
                  out, if (partitionChecksums == null) null else partitionChecksums(p))
                val cipher = serializerManager.wrapForEncryption(stored)
                var left = length
                while (left > 0) {
                  val read = in.read(buffer, 0, math.min(left, buffer.length.toLong).toInt)
                  if (read < 0) {
                    throw new IOException(s"$plain ends inside partition $p")
                  }
                  cipher.write(buffer, 0, read)
                  left -= read
                }
                cipher.close()  // the cipher's last bytes; `out` stays open
                partitionLengths(p) = stored.count
              }
              if (partitionChecksums != null) checksums(p) = partitionChecksums(p).getValue
            }
        }
      }
    } catch {
      case e: Throwable =>
        encrypted.delete()
        plain.delete()
        throw e
    }
    plain.delete()
    encrypted
  }

  /** Runs a native call, adding its time to the task's shuffle write time. */
  private def timed[T](call: => T): T = {
    val start = System.nanoTime()
    try call finally nativeNanos += System.nanoTime() - start
  }

  override def stop(success: Boolean): Option[MapStatus] = {
    try {
      if (stopping) None
      else {
        stopping = true
        context.taskMetrics().incPeakExecutionMemory(memory.peakBytes)
        if (success && mapStatus != null) Some(mapStatus) else None
      }
    } finally {
      close()
    }
  }

  override def getPartitionLengths(): Array[Long] = partitionLengths

  /** Frees the native writer (removing its files unless committed) and its memory. Idempotent. */
  private def close(): Unit = {
    if (pointers != null) {
      SluiceShuffleWriter.keepPointers(pointers)
      pointers = null
    }
    if (writer != 0L) {
      val handleToClose = writer
      writer = 0L
      SluiceNative.writerClose(handleToClose)
    }
    memory.releaseAll()
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

/**
 * The bytes of one partition on their way to the data file: counted, and added to the
 * partition's checksum. Closing it flushes and leaves the file open for the next partition.
 */
private final class StoredPartitionStream(out: OutputStream, checksum: Checksum)
  extends OutputStream {
  var count = 0L

  override def write(b: Int): Unit = {
    out.write(b)
    if (checksum != null) checksum.update(b)
    count += 1
  }

  override def write(b: Array[Byte], off: Int, len: Int): Unit = {
    out.write(b, off, len)
    if (checksum != null) checksum.update(b, off, len)
    count += len
  }

  override def flush(): Unit = out.flush()
  override def close(): Unit = flush()
}
