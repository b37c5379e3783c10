package org.apache.spark.shuffle.sluice

import java.io.{BufferedOutputStream, File, FileInputStream, FileOutputStream, IOException, OutputStream}
import java.util.zip.Checksum

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.internal.Logging
import org.apache.spark.network.shuffle.checksum.ShuffleChecksumHelper
import org.apache.spark.scheduler.MapStatus
import org.apache.spark.shuffle.{IndexShuffleBlockResolver, ShuffleWriteMetricsReporter, ShuffleWriter}
import org.apache.spark.shuffle.checksum.RowBasedChecksum
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.util.Utils

/**
 * What both of Sluice's map-side writers share: a native writer per task, its memory charged to
 * the task, and the commit of its output exactly as Spark's own writers commit theirs.
 *
 * The subclass makes the native writer (SluiceShuffleWriter for rows, SluiceBatchShuffleWriter
 * for column batches) and feeds it the task's records; this class finishes it, encrypts the
 * partitions when Spark's I/O encryption is on, reports the metrics and commits.
 *
 * Native code writes only the data file, to the temporary path Spark's IndexShuffleBlockResolver
 * derives from the final one; the resolver then writes the index and checksum files and commits
 * all of them, exactly as for Spark's own writers. The checksums are computed natively with
 * Spark's configured algorithm.
 *
 * Metrics, as Spark's own shuffle reports them: the exchange's `dataSize` (the bytes the rows take
 * as UnsafeRows, which adaptive execution plans joins by, added up by the subclass in `rowBytes`)
 * and records written; write time covers every native call (conversion, encoding, compression,
 * file writes, spills); the peak memory charged to the task is its peak execution memory.
 */
private[spark] abstract class NativeShuffleWriter[K, V](
    shuffleId: Int,
    mapId: Long,
    protected val partitionCount: Int,
    protected val context: TaskContext,
    protected val writeMetrics: ShuffleWriteMetricsReporter,
    blockResolver: IndexShuffleBlockResolver,
    protected val conf: SluiceConf,
    rowBasedChecksums: Array[RowBasedChecksum],
    dataSize: Option[SQLMetric])
  extends ShuffleWriter[K, V] with Logging {

  /** The native writer's handle; 0 before it is made and after it is closed. */
  protected var writer = 0L
  protected var finished = false
  protected var stopping = false
  /** The bytes of the rows written, as UnsafeRows (the exchange's dataSize). */
  protected var rowBytes = 0L
  private var mapStatus: MapStatus = _
  private val partitionLengths: Array[Long] = new Array[Long](partitionCount)
  private val serializerManager = SparkEnv.get.serializerManager
  private var nativeNanos = 0L

  // Charges the native writer's memory to the task, and spills it when Spark asks.
  protected val memory = new TaskMemoryCharge(context, () => spillNative())

  context.addTaskCompletionListener[Unit](_ => close())

  /** Makes the native writer of the data file at `path`; returns its handle. */
  protected def createNative(path: String): Long

  /** Hands every record to the native writer. */
  protected def insertAll(records: Iterator[Product2[K, V]]): Unit

  /** Spills what the native writer holds; returns the bytes it released. */
  protected def spillHeld(): Long

  /** The bytes the native writer holds. */
  protected def heldBytes(): Long

  /** Finishes the native writer: fills the partition lengths, checksums and WRITE_* metrics. */
  protected def finishNative(lengths: Array[Long], checksums: Array[Long], metrics: Array[Long])
    : Unit

  /** Frees the native writer (removing its files unless committed). */
  protected def closeNative(handle: Long): Unit

  /** Gives back what the task borrowed from its thread; called once, at close. */
  protected def releaseThreadBuffers(): Unit = {}

  override def write(records: Iterator[Product2[K, V]]): Unit = {
    val dataFile = blockResolver.getDataFile(shuffleId, mapId)
    val temporaryFile = Utils.tempFileWith(dataFile)
    SluiceFaults.armFor(context, "map")
    writer = timed(createNative(temporaryFile.getAbsolutePath))
    try {
      insertAll(records)
      commit(temporaryFile)
    } finally {
      if (temporaryFile.exists() && !finished) temporaryFile.delete()
    }
  }

  /**
   * Acquires `bytes` from the task (spilling when it cannot have them) ahead of native memory (a
   * page, a batch).
   */
  protected def reserve(bytes: Long): Unit = {
    if (memory.bytes + bytes > conf.maxHeldBytes) spillNative()
    val got = memory.charge(bytes)
    if (got < bytes) {
      memory.release(got)
      spillNative()
      memory.chargeOrFail(bytes)
    }
  }

  /** Spills everything held natively; returns the bytes released to the task. */
  protected def spillNative(): Long = {
    if (writer == 0L || finished || stopping) return 0L
    val before = memory.bytes
    val released = spillHeld()
    memory.chargeHeld(heldBytes())
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
    timed(finishNative(partitionLengths, checksums, metrics))
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

  /**
   * Runs `call`, adding its time to the task's shuffle write time; a call inside another timed
   * call is counted once.
   */
  protected def timed[T](call: => T): T = {
    if (timing) return call
    timing = true
    val start = System.nanoTime()
    try call finally {
      nativeNanos += System.nanoTime() - start
      timing = false
    }
  }

  private var timing = false

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
    releaseThreadBuffers()
    if (writer != 0L) {
      val handleToClose = writer
      writer = 0L
      closeNative(handleToClose)
    }
    memory.releaseAll()
  }
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
