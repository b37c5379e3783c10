package org.apache.spark.shuffle.sluice

import java.util.Locale

import org.apache.spark.SparkConf
import org.apache.spark.sql.sluice.BatchPartitioning

/**
 * The spark.sluice.* settings and how they map onto the native writer's key-value settings
 * (sluice/write/map_writer_settings.h), the one mapping every Sluice front end shares.
 *
 * | Spark setting                  | default | native key   |
 * | spark.sluice.enabled           | true    | (plugin)     |
 * | spark.sluice.codec             | lz4     | codec        |
 * | spark.sluice.blockRows         | 8192    | block-rows   |
 * | spark.sluice.blockBytes        | 4m      | block-bytes  |
 * | spark.sluice.pageBytes         | 16m     | page-bytes   |
 * | spark.sluice.flushBytes        | (native)| flush-bytes  |
 * | spark.sluice.validateUtf8      | false   | validate-utf8|
 * | spark.sluice.rowStrategy       | auto    | strategy     |
 * | spark.sluice.pointerBatchRows  | 65536   | (plugin)     |
 * | spark.sluice.maxHeldBytes      | (none)  | (plugin)     |
 * | spark.shuffle.checksum.enabled / .algorithm | true / ADLER32 | checksum |
 */
private[sluice] final class SluiceConf(conf: SparkConf) extends Serializable {
  import SluiceConf._

  val enabled: Boolean = conf.getBoolean(Enabled, defaultValue = true)
  val codec: String = conf.get(Codec, "lz4")
  val blockRows: Long = conf.getLong(BlockRows, 8192L)
  val blockBytes: Long = conf.getSizeAsBytes(BlockBytes, "4m")
  /** Bytes per native page; a row larger than a page gets a page of its own size. */
  val pageBytes: Long = conf.getSizeAsBytes(PageBytes, "16m")
  val flushBytes: Option[Long] = conf.getOption(FlushBytes).map(_ => conf.getSizeAsBytes(FlushBytes))
  /** A partition at most this large (uncompressed) is one compact segment; 0 turns it off. */
  val compactSegmentBytes: Long = conf.getSizeAsBytes(CompactSegmentBytes, "64k")
  /**
   * Whether compact segments after a map output's first are compressed against its Schema
   * message (smaller; a reader other than Sluice's then needs the codec's dictionary option).
   */
  val compactSchemaDictionary: Boolean = conf.getBoolean(CompactSchemaDictionary, defaultValue = true)
  val validateUtf8: Boolean = conf.getBoolean(ValidateUtf8, defaultValue = false)
  /** How the native writer groups rows: sort, scatter, or auto (by partitions and row width). */
  val rowStrategy: String = conf.get(RowStrategy, "auto").toLowerCase(Locale.ROOT)
  /** Packed pointers the JVM collects before handing them over (one JNI call per batch). */
  val pointerBatchRows: Int = conf.getInt(PointerBatchRows, 65536)
  /**
   * Bytes a map task may hold natively before it spills, below what Spark's memory manager
   * would grant. Unset: only the memory manager limits (tests set it to force spills).
   */
  val maxHeldBytes: Long =
    conf.getOption(MaxHeldBytes).map(_ => conf.getSizeAsBytes(MaxHeldBytes)).getOrElse(Long.MaxValue)

  /** Spark's shuffle checksum, which Sluice computes natively so Spark's files carry it. */
  val checksumAlgorithm: String =
    if (conf.getBoolean("spark.shuffle.checksum.enabled", defaultValue = true)) {
      conf.get("spark.shuffle.checksum.algorithm", "ADLER32").toUpperCase(Locale.ROOT)
    } else {
      "NONE"
    }
  def checksumEnabled: Boolean = checksumAlgorithm != "NONE"

  /** The settings of both native writers. */
  private def encoderSettings: Seq[(String, String)] = Seq(
    "codec" -> codec,
    "block-rows" -> blockRows.toString,
    "block-bytes" -> blockBytes.toString,
    "validate-utf8" -> validateUtf8.toString,
    "compact-segment-bytes" -> compactSegmentBytes.toString,
    "compact-schema-dictionary" -> compactSchemaDictionary.toString,
    // Every reduce task's reader is given the shuffle's schema (readerCreate), so no segment
    // needs to hold its Schema message, not even a data file's first.
    "readers-have-schema" -> "true",
    "checksum" -> checksumAlgorithm.toLowerCase(Locale.ROOT)) ++
    flushBytes.map(bytes => "flush-bytes" -> bytes.toString)

  /** The row writer's settings, as parallel key and value arrays (made once per executor). */
  @transient lazy val writerSettings: (Array[String], Array[String]) =
    keysAndValues(
      encoderSettings ++ Seq("page-bytes" -> pageBytes.toString, "strategy" -> rowStrategy))

  /**
   * The batch writer's settings for one map task: the encoder's, and the partitioning the native
   * writer computes (the map task's partition id seeds round-robin, as in Spark).
   */
  def batchWriterSettings(
      partitioning: BatchPartitioning,
      partitionCount: Int,
      mapPartitionId: Int): (Array[String], Array[String]) = {
    val placement = Seq(
      "partitioning" -> partitioning.kind,
      "partitions" -> partitionCount.toString,
      "map-id" -> mapPartitionId.toString) ++
      (if (partitioning.keyColumns.isEmpty) Nil
       else Seq("keys" -> partitioning.keyColumns.mkString(","))) ++
      (if (partitioning.sortOrders.isEmpty) Nil
       else Seq("sort-orders" -> partitioning.sortOrders.mkString(","))) ++
      partitioning.roundRobinMode.map("round-robin-mode" -> _)
    keysAndValues(encoderSettings ++ placement)
  }

  private def keysAndValues(settings: Seq[(String, String)]): (Array[String], Array[String]) =
    (settings.map(_._1).toArray, settings.map(_._2).toArray)
}

private[sluice] object SluiceConf {
  val Enabled = "spark.sluice.enabled"
  val Codec = "spark.sluice.codec"
  val BlockRows = "spark.sluice.blockRows"
  val BlockBytes = "spark.sluice.blockBytes"
  val PageBytes = "spark.sluice.pageBytes"
  val FlushBytes = "spark.sluice.flushBytes"
  val CompactSegmentBytes = "spark.sluice.compactSegmentBytes"
  val CompactSchemaDictionary = "spark.sluice.compactSchemaDictionary"
  val ValidateUtf8 = "spark.sluice.validateUtf8"
  val RowStrategy = "spark.sluice.rowStrategy"
  val PointerBatchRows = "spark.sluice.pointerBatchRows"
  val MaxHeldBytes = "spark.sluice.maxHeldBytes"
}
