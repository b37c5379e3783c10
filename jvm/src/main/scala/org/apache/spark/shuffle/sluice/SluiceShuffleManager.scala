package org.apache.spark.shuffle.sluice

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.{NarrowDependency, ShuffleDependency, SparkConf, SparkEnv, TaskContext}
import org.apache.spark.internal.config
import org.apache.spark.rdd.RDD
import org.apache.spark.shuffle._
import org.apache.spark.shuffle.sort.SortShuffleManager
import org.apache.spark.sql.execution.UnsafeRowSerializer
import org.apache.spark.sql.sluice.{ExchangeDataSize, SluiceBatchDependency, SluiceSchemaRDD}
import org.apache.spark.util.collection.OpenHashSet

/**
 * Spark's ShuffleManager with Sluice underneath: `spark.shuffle.manager=
 * org.apache.spark.shuffle.sluice.SluiceShuffleManager`.
 *
 * A shuffle of Spark SQL rows whose exchange the SQL extension (SluiceExtensions) tagged with its
 * schema is written by Sluice's native row writer and read back by its native reader; a shuffle
 * of column batches (SluiceColumnarExchangeExec, the columnar path) by its batch writer and read
 * back as batches; anything else is Spark's sort shuffle, unchanged, decided per shuffle with
 * one log line saying why.
 *
 * It extends SortShuffleManager on purpose: the fallback is the parent itself, both kinds of
 * shuffle share one IndexShuffleBlockResolver (same files, so the external shuffle service,
 * block migration and cleanup work for both), and Spark SQL's exchange recognises a sort-based
 * manager and hands rows over in one reused MutablePair instead of copying every row.
 * Partition ids are computed by Spark's exchange as always, so partitioning, AQE and retries are
 * Spark's own.
 */
private[spark] class SluiceShuffleManager(conf: SparkConf) extends SortShuffleManager(conf) {

  private val sluiceConf = new SluiceConf(conf)

  /** Why this manager cannot carry Sluice shuffles in this application, if it cannot. */
  def setupReason: Option[String] = SluiceShuffleManager.setupReason(conf, sluiceConf)

  override def registerShuffle[K, V, C](
      shuffleId: Int,
      dependency: ShuffleDependency[K, V, C]): ShuffleHandle = dependency match {
    case batches: SluiceBatchDependency =>
      // Planned only where Sluice can carry it (ColumnarExchangePlanning); Spark's sort shuffle
      // could not serialize its column batches.
      setupReason.foreach(reason => throw new IllegalStateException(
        s"Sluice: columnar shuffle $shuffleId cannot be carried: $reason"))
      SluiceStatistics.recordSluice(shuffleId)
      logInfo(s"Sluice: shuffle $shuffleId (${batches.partitioner.numPartitions} partitions) " +
        s"is written and read by Sluice as column batches, ${batches.schema}")
      new SluiceBatchShuffleHandle(shuffleId, batches)
    case _ => registerRowShuffle(shuffleId, dependency)
  }

  private def registerRowShuffle[K, V, C](
      shuffleId: Int,
      dependency: ShuffleDependency[K, V, C]): ShuffleHandle = {
    SluiceShuffleManager.sluiceSchema(conf, sluiceConf, dependency) match {
      case Right(schema) =>
        SluiceStatistics.recordSluice(shuffleId)
        logInfo(s"Sluice: shuffle $shuffleId (${dependency.partitioner.numPartitions} " +
          s"partitions) is written and read by Sluice, rows $schema")
        new SluiceShuffleHandle(
          shuffleId, dependency.asInstanceOf[ShuffleDependency[K, V, V]], schema)
      case Left(reason) =>
        SluiceStatistics.recordFallback(shuffleId, reason)
        val message = s"Sluice: shuffle $shuffleId falls back to Spark's sort shuffle: $reason"
        // An RDD shuffle is expected to fall back; a Spark SQL one is worth a warning.
        if (dependency.serializer.isInstanceOf[UnsafeRowSerializer]) logWarning(message)
        else logInfo(message)
        super.registerShuffle(shuffleId, dependency)
    }
  }

  override def getWriter[K, V](
      handle: ShuffleHandle,
      mapId: Long,
      context: TaskContext,
      metrics: ShuffleWriteMetricsReporter): ShuffleWriter[K, V] = handle match {
    case sluiceHandle: SluiceShuffleHandle[K @unchecked, V @unchecked] =>
      recordMapOutput(handle.shuffleId, mapId)
      new SluiceShuffleWriter[K, V](
        sluiceHandle, mapId, context, metrics, shuffleBlockResolver, sluiceConf)
    case batchHandle: SluiceBatchShuffleHandle[K @unchecked, V @unchecked] =>
      recordMapOutput(handle.shuffleId, mapId)
      new SluiceBatchShuffleWriter[K, V](
        batchHandle, mapId, context, metrics, shuffleBlockResolver, sluiceConf)
    case _ =>
      super.getWriter(handle, mapId, context, metrics)
  }

  /**
   * Records a map output where the parent records its own, so unregisterShuffle removes Sluice's
   * files too, and loads the native library for the writer.
   */
  private def recordMapOutput(shuffleId: Int, mapId: Long): Unit = {
    val mapIds = shuffleBlockResolver.taskIdMapsForShuffle.computeIfAbsent(
      shuffleId, _ => new OpenHashSet[Long](16))
    mapIds.synchronized { mapIds.add(mapId) }
    NativeLibrary.load()
  }

  override def getReader[K, C](
      handle: ShuffleHandle,
      startMapIndex: Int,
      endMapIndex: Int,
      startPartition: Int,
      endPartition: Int,
      context: TaskContext,
      metrics: ShuffleReadMetricsReporter): ShuffleReader[K, C] = handle match {
    case _: SluiceShuffleHandle[_, _] | _: SluiceBatchShuffleHandle[_, _] =>
      NativeLibrary.load()
      val blocksByAddress = SparkEnv.get.mapOutputTracker.getMapSizesByExecutorId(
        handle.shuffleId, startMapIndex, endMapIndex, startPartition, endPartition)
      val output = handle match {
        case rows: SluiceShuffleHandle[_, _] => SluiceShuffleReader.Rows(rows.schema)
        case batches: SluiceBatchShuffleHandle[_, _] => SluiceShuffleReader.Batches(
          batches.batchDependency.schema, batches.batchDependency.types)
      }
      new SluiceShuffleReader[K, C](
        output, blocksByAddress, context, metrics,
        SortShuffleManager.canUseBatchFetch(startPartition, endPartition, context))
    case _ =>
      super.getReader(
        handle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics)
  }
}

private[spark] object SluiceShuffleManager {
  private val DefaultShuffleDataIO = "org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO"

  /** How far up the narrow lineage of a shuffle's RDD the schema tag may sit. */
  private val MaxTagDepth = 4

  /**
   * Returns the schema of the rows of `dependency` when Sluice can carry the shuffle, or why it
   * cannot.
   */
  /** Why Sluice cannot carry shuffles under `conf`, whatever they hold, if it cannot. */
  def setupReason(conf: SparkConf, sluiceConf: SluiceConf): Option[String] = {
    if (!sluiceConf.enabled) {
      Some(s"${SluiceConf.Enabled} is false")
    } else if (conf.get(config.SHUFFLE_IO_PLUGIN_CLASS) != DefaultShuffleDataIO) {
      Some(s"${config.SHUFFLE_IO_PLUGIN_CLASS.key} is ${conf.get(config.SHUFFLE_IO_PLUGIN_CLASS)}" +
        " (Sluice writes Spark's local-disk layout only)")
    } else if (conf.get(config.PUSH_BASED_SHUFFLE_ENABLED)) {
      Some("spark.shuffle.push.enabled is true (push-based merging is Spark's format only)")
    } else {
      None
    }
  }

  def sluiceSchema(
      conf: SparkConf,
      sluiceConf: SluiceConf,
      dependency: ShuffleDependency[_, _, _]): Either[String, String] = {
    val setup = setupReason(conf, sluiceConf)
    if (setup.isDefined) {
      Left(setup.get)
    } else if (dependency.aggregator.isDefined || dependency.mapSideCombine) {
      Left("the shuffle has an aggregator (map-side combine), which works on JVM objects")
    } else if (dependency.keyOrdering.isDefined) {
      Left("the shuffle sorts by key on the reduce side (an RDD key ordering)")
    } else if (!dependency.serializer.isInstanceOf[UnsafeRowSerializer]) {
      Left(s"its records are not Spark SQL rows (serializer " +
        s"${dependency.serializer.getClass.getName}, not UnsafeRowSerializer)")
    } else if (ExchangeDataSize.of(dependency.serializer).isLeft) {
      Left(s"the exchange's dataSize metric cannot be reported (" +
        s"${ExchangeDataSize.of(dependency.serializer).swap.toOption.get}), so adaptive " +
        "execution would see an empty stage")
    } else if (dependency.partitioner.numPartitions >
        SortShuffleManager.MAX_SHUFFLE_OUTPUT_PARTITIONS_FOR_SERIALIZED_MODE) {
      Left(s"${dependency.partitioner.numPartitions} partitions exceed the 2^24 a packed " +
        "record pointer holds")
    } else {
      findSchemaTag(dependency.rdd) match {
        case None =>
          Left("no schema: the exchange was not planned with " +
            "spark.sql.extensions=org.apache.spark.sql.sluice.SluiceExtensions")
        case Some(tag) if tag.schema.isLeft =>
          Left(tag.schema.swap.toOption.get)
        case Some(tag) =>
          val schema = tag.schema.toOption.get
          try {
            NativeLibrary.load()
            Right(SluiceNative.checkSchema(schema))
          } catch {
            case NonFatal(e) => Left(s"Sluice cannot carry $schema: ${e.getMessage}")
            case e: UnsatisfiedLinkError => Left(s"the native library did not load: $e")
          }
      }
    }
  }

  /** Walks the narrow lineage of `rdd`, breadth first, to the nearest schema tag. */
  private def findSchemaTag(rdd: RDD[_]): Option[SluiceSchemaRDD] = {
    var level: Seq[RDD[_]] = Seq(rdd)
    val seen = mutable.HashSet[Int]()
    var depth = 0
    while (level.nonEmpty && depth <= MaxTagDepth) {
      level.collectFirst { case tag: SluiceSchemaRDD => tag } match {
        case found @ Some(_) => return found
        case None =>
      }
      level = level.flatMap(_.dependencies.collect {
        case narrow: NarrowDependency[_] if seen.add(narrow.rdd.id) => narrow.rdd
      })
      depth += 1
    }
    None
  }
}
