package org.apache.spark.shuffle.sluice

import java.io.{FilterInputStream, IOException, InputStream}

import org.apache.spark.{InterruptibleIterator, MapOutputTracker, SparkEnv, TaskContext}
import org.apache.spark.internal.{config, Logging}
import org.apache.spark.shuffle.{ShuffleReader, ShuffleReadMetricsReporter}
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.sluice.ArrowColumnView
import org.apache.spark.sql.types.DataType
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}
import org.apache.spark.storage.{BlockId, BlockManager, BlockManagerId, ShuffleBlockFetcherIterator}
import org.apache.spark.unsafe.Platform
import org.apache.spark.util.{CompletionIterator, MutablePair}

/**
 * Reads a reduce task's partitions of a Sluice shuffle: Spark fetches the blocks (local, remote
 * or from the external shuffle service, with its own retries and flow control), Sluice decodes
 * them and converts them to UnsafeRows natively, and the JVM walks the rows in place.
 *
 * Each fetched block is one map output's bytes for the requested partitions. It is read in
 * chunks through a 64 KiB array that the tasks of an executor thread share (8,000 tiny reduce
 * tasks each allocating their own made 512 MB of garbage) and copied straight into a native
 * buffer the reader lends and recycles (a per-task 1 MiB array was a humongous allocation for
 * G1 on a 4 GiB heap, one per reduce task however small its blocks). The block is pushed to the
 * engine's PartitionReader, which decodes it (schema parsed once, codec contexts reused); each
 * batch's rows are written into a reused native buffer. One UnsafeRow is pointed at each row in
 * turn (pointTo(null, address, size)): one JNI call per batch, none per row, no Arrow data in
 * the JVM. Blocks are not wrapped in Spark's compression streams: Sluice blocks carry their own
 * codec.
 *
 * A columnar shuffle's reader (Output Batches) converts nothing: the engine's reader joins the
 * decoded batches to its target size, and each is handed to Spark as a ColumnarBatch of
 * ArrowColumnViews over the Arrow data, valid until the next batch is asked for.
 *
 * The native memory the reader holds is charged to the task's TaskMemoryManager after every
 * batch and reported in the task's peak execution memory.
 *
 * Corruption: every block passes through a SluiceBlockStream, which Spark sees as a wrapped
 * stream and so watches for corruption. When native decoding fails, the failure is raised
 * through that stream, so Spark's own handling applies: with spark.shuffle.checksum.enabled it
 * diagnoses the cause against the map output's checksum file, and the reduce task fails with a
 * FetchFailedException, which makes Spark recompute the map output.
 */
private[spark] class SluiceShuffleReader[K, C](
    output: SluiceShuffleReader.Output,
    blocksByAddress: Iterator[(BlockManagerId, collection.Seq[(BlockId, Long, Int)])],
    context: TaskContext,
    readMetrics: ShuffleReadMetricsReporter,
    shouldBatchFetch: Boolean,
    blockManager: BlockManager = SparkEnv.get.blockManager,
    mapOutputTracker: MapOutputTracker = SparkEnv.get.mapOutputTracker)
  extends ShuffleReader[K, C] with Logging {

  override def read(): Iterator[Product2[K, C]] = {
    val conf = SparkEnv.get.conf
    // Encrypted blocks (spark.io.encryption.enabled) are decrypted as Spark's reader does: each
    // partition on its own, so never fetched several partitions to a block.
    val serializerManager = SparkEnv.get.serializerManager
    val encrypted = serializerManager.encryptionEnabled
    var lastStream: SluiceBlockStream = null
    val fetcher = new ShuffleBlockFetcherIterator(
      context,
      blockManager.blockStoreClient,
      blockManager,
      mapOutputTracker,
      blocksByAddress,
      (_: BlockId, in: InputStream) => {
        lastStream = new SluiceBlockStream(
          if (encrypted) serializerManager.wrapForEncryption(in) else in)
        lastStream
      },
      conf.get(config.REDUCER_MAX_SIZE_IN_FLIGHT) * 1024 * 1024,
      conf.get(config.REDUCER_MAX_REQS_IN_FLIGHT),
      conf.get(config.REDUCER_MAX_BLOCKS_IN_FLIGHT_PER_ADDRESS),
      conf.get(config.MAX_REMOTE_BLOCK_SIZE_FETCH_TO_MEM),
      conf.get(config.SHUFFLE_MAX_ATTEMPTS_ON_NETTY_OOM),
      conf.get(config.SHUFFLE_DETECT_CORRUPT),
      conf.get(config.SHUFFLE_DETECT_CORRUPT_MEMORY),
      conf.get(config.SHUFFLE_CHECKSUM_ENABLED),
      conf.get(config.SHUFFLE_CHECKSUM_ALGORITHM),
      readMetrics,
      shouldBatchFetch && !conf.get(config.SHUFFLE_USE_OLD_FETCH_PROTOCOL) && !encrypted)

    SluiceFaults.armFor(context, "reduce")
    val records: Iterator[Product2[_, _]] with AutoCloseable = output match {
      case SluiceShuffleReader.Rows(schema) =>
        new RowIterator(new BlockFeed(fetcher, () => lastStream, batches = false),
          SluiceShuffleReader.fieldCount(schema))
      case SluiceShuffleReader.Batches(_, types) =>
        new BatchIterator(new BlockFeed(fetcher, () => lastStream, batches = true), types)
    }
    context.addTaskCompletionListener[Unit](_ => records.close())
    val completed = CompletionIterator[Product2[K, C], Iterator[Product2[K, C]]](
      records.asInstanceOf[Iterator[Product2[K, C]]], {
        records.close()
        context.taskMetrics().mergeShuffleReadMetrics()
      })
    new InterruptibleIterator[Product2[K, C]](context, completed)
  }

  /**
   * The native reader of a task and the blocks it is fed: fetched blocks are pushed to it as it
   * needs them. Its memory is charged to the task after every batch (a reader cannot spill;
   * Spark's own reader charges nothing).
   */
  private final class BlockFeed(
      fetcher: ShuffleBlockFetcherIterator,
      currentWrapper: () => SluiceBlockStream,
      batches: Boolean) {

    private var reader = SluiceNative.readerCreate(output.schema, batches)
    private val chunk = SluiceShuffleReader.threadChunk.get()
    private val memory = new TaskMemoryCharge(context, () => 0L)
    private var block: InputStream = _

    /**
     * Runs `decode` (readerNextRows or readerNextBatch on the reader) until it yields a batch,
     * pushing fetched blocks as the reader needs them, and charges `heldBytes()` after it.
     * Returns the batch's row count, or 0 after the last. A decoding failure found while the
     * reader needs no further block belongs to the block pushed last, whose stream is still open
     * to report it.
     */
    def next(decode: Long => Int, heldBytes: () => Long): Int = {
      if (reader == 0L) return 0
      while (true) {
        val count =
          try decode(reader)
          catch { case e: SluiceException => failBlock(e) }
        if (count > 0) {
          memory.chargeHeld(heldBytes())
          return count
        }
        if (count == SluiceNative.READER_END) return 0
        // READER_NEEDS_BLOCK: every block pushed so far is decoded.
        if (block != null) {
          block.close()  // releases Spark's buffer of the block
          block = null
        }
        if (fetcher.hasNext) {
          val (id, stream) = fetcher.next()
          block = stream
          val length = readIntoNative(stream)
          SluiceNative.readerPushBlock(reader, length, s"block $id")
        } else {
          SluiceNative.readerEndBlocks(reader)
        }
      }
      0
    }

    /** Copies the whole block into a native buffer the reader lends; returns its length. */
    private def readIntoNative(in: InputStream): Long = {
      var blockAddress = 0L
      var blockCapacity = 0L
      var length = 0L
      var read = in.read(chunk)
      while (read >= 0) {
        if (length + read > blockCapacity) {
          val wanted = math.max(length + read, math.max(blockCapacity * 2, chunk.length.toLong))
          blockAddress = SluiceNative.readerReserveBlock(reader, length, wanted)
          blockCapacity = wanted
        }
        Platform.copyMemory(chunk, Platform.BYTE_ARRAY_OFFSET, null, blockAddress + length, read)
        length += read
        read = in.read(chunk)
      }
      length
    }

    /**
     * Raises a decoding failure through the block's stream, so Spark diagnoses it (checksums)
     * and reports a fetch failure for that map output; rethrows it if Spark does not.
     */
    private def failBlock(e: SluiceException): Nothing = {
      val wrapper = currentWrapper()
      if (wrapper != null && block != null) {
        wrapper.fail(e)
        block.read()  // Spark's stream turns the failure into a FetchFailedException
      }
      throw e
    }

    def close(): Unit = {
      if (block != null) {
        block.close()
        block = null
      }
      if (reader != 0L) {
        val handleToClose = reader
        reader = 0L
        SluiceNative.readerClose(handleToClose)
        context.taskMetrics().incPeakExecutionMemory(memory.peakBytes)
        memory.releaseAll()
      }
    }
  }

  /** The rows of every fetched block, one reused UnsafeRow pointed at native memory. */
  private final class RowIterator(feed: BlockFeed, fieldCount: Int)
    extends Iterator[Product2[Int, UnsafeRow]] with AutoCloseable {

    private val row = new UnsafeRow(fieldCount)
    private val pair = new MutablePair[Int, UnsafeRow](0, row)
    private val addresses = new Array[Long](SluiceNative.ROWS_SLOTS)
    private val decode = (reader: Long) => SluiceNative.readerNextRows(reader, addresses)
    private val heldBytes = () => addresses(SluiceNative.ROWS_HELD_BYTES)
    private var rowsBase = 0L
    private var offsets = 0L
    private var sizes = 0L
    private var rowCount = 0
    private var rowIndex = 0

    override def hasNext: Boolean = {
      while (rowIndex >= rowCount) {
        rowCount = feed.next(decode, heldBytes)
        rowIndex = 0
        if (rowCount == 0) return false
        rowsBase = addresses(SluiceNative.ROWS_BASE)
        offsets = addresses(SluiceNative.ROWS_OFFSETS)
        sizes = addresses(SluiceNative.ROWS_SIZES)
      }
      true
    }

    override def next(): Product2[Int, UnsafeRow] = {
      if (!hasNext) throw new NoSuchElementException("no more shuffle rows")
      val offset = Platform.getLong(null, offsets + 8L * rowIndex)
      val size = Platform.getInt(null, sizes + 4L * rowIndex)
      row.pointTo(null, rowsBase + offset, size)
      rowIndex += 1
      readMetrics.incRecordsRead(1)
      pair
    }

    override def close(): Unit = {
      rowCount = 0
      rowIndex = 0
      feed.close()
    }
  }

  /**
   * The batches of every fetched block, as Spark column batches over the decoded Arrow data
   * (ArrowColumnView), each valid until the next is asked for.
   */
  private final class BatchIterator(feed: BlockFeed, types: Array[DataType])
    extends Iterator[Product2[Int, ColumnarBatch]] with AutoCloseable {

    private val out = new Array[Long](SluiceNative.BATCH_SLOTS)
    private val decode = (reader: Long) => SluiceNative.readerNextBatch(reader, out)
    private val heldBytes = () => out(SluiceNative.BATCH_HELD_BYTES)
    private val pair = new MutablePair[Int, ColumnarBatch](0, null)
    private var ready = false
    private var ended = false

    override def hasNext: Boolean = {
      if (!ready && !ended) {
        val rows = feed.next(decode, heldBytes)
        if (rows == 0) ended = true
        else {
          pair._2 = batchAt(out(SluiceNative.BATCH_ARRAY), rows)
          ready = true
        }
      }
      ready
    }

    override def next(): Product2[Int, ColumnarBatch] = {
      if (!hasNext) throw new NoSuchElementException("no more shuffle batches")
      ready = false
      readMetrics.incRecordsRead(pair._2.numRows())
      pair
    }

    /** Views the struct ArrowArray at `array` (one child per column) as a ColumnarBatch. */
    private def batchAt(array: Long, rows: Int): ColumnarBatch = {
      val children = Platform.getLong(null, array + SluiceShuffleReader.ArrowArrayChildren)
      val columns = Array.tabulate[ColumnVector](types.length) { i =>
        new ArrowColumnView(types(i), Platform.getLong(null, children + 8L * i))
      }
      new ColumnarBatch(columns, rows)
    }

    override def close(): Unit = {
      ended = true
      ready = false
      feed.close()
    }
  }
}

private[spark] object SluiceShuffleReader {
  /** What a reader returns: UnsafeRows, or column batches of `types` (the columnar path). */
  sealed trait Output { def schema: String }
  final case class Rows(schema: String) extends Output
  final case class Batches(schema: String, types: Array[DataType]) extends Output

  /** The offset of `children` in the Arrow C Data Interface's struct ArrowArray. */
  val ArrowArrayChildren = 48L

  /** Bytes of the array a task copies fetched blocks through. */
  val ChunkBytes: Int = 64 * 1024

  /** The chunk array of this executor thread, for one task at a time. */
  private val threadChunk = ThreadLocal.withInitial[Array[Byte]](() => new Array[Byte](ChunkBytes))

  /** The number of top-level fields of a "struct<c0:...,c1:...>" catalog string. */
  def fieldCount(schema: String): Int = {
    var depth = 0
    var fields = 0
    var i = 0
    while (i < schema.length) {
      schema.charAt(i) match {
        case '<' | '(' => depth += 1; if (depth == 1) fields = 1
        case '>' | ')' => depth -= 1
        case ',' if depth == 1 => fields += 1
        case _ =>
      }
      i += 1
    }
    if (schema == "struct<>") 0 else fields
  }
}

/**
 * The stream Spark's fetcher hands out for a Sluice block: the block's bytes unchanged, plus a
 * way to make the next read fail with a decoding error found natively.
 */
private[sluice] final class SluiceBlockStream(in: InputStream) extends FilterInputStream(in) {
  @volatile private var failure: IOException = _

  def fail(e: IOException): Unit = failure = e

  private def check(): Unit = if (failure != null) throw failure

  override def read(): Int = { check(); super.read() }
  override def read(b: Array[Byte], off: Int, len: Int): Int = { check(); super.read(b, off, len) }
  override def skip(n: Long): Long = { check(); super.skip(n) }
  override def available(): Int = { check(); super.available() }
}
