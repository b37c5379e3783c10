package org.apache.spark.sql.sluice

import scala.concurrent.Future

import org.apache.spark.MapOutputStatistics
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.Statistics
import org.apache.spark.sql.catalyst.plans.physical.{HashPartitioning, Partitioning,
  RangePartitioning}
import org.apache.spark.sql.execution.{ShufflePartitionSpec, SparkPlan, SQLExecution}
import org.apache.spark.sql.execution.exchange.{ShuffleExchangeExec, ShuffleExchangeLike, ShuffleOrigin}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics, SQLShuffleReadMetricsReporter, SQLShuffleWriteMetricsReporter}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * A shuffle exchange of column batches: the columnar path of Sluice inside Spark.
 *
 * It takes the column batches of a columnar child (Spark's vectorized Parquet and ORC readers,
 * the in-memory columnar cache), the columns `columns` of each making its `output` rows, without
 * turning them into rows: each batch is copied once into
 * Arrow buffers, Spark's partition ids are computed natively (ColumnarExchangePlanning says which
 * partitionings are), and the reduce side hands its consumers column batches over the decoded
 * Arrow data (ArrowColumnView), so Spark inserts ColumnarToRow only where a consumer wants rows.
 *
 * It is a ShuffleExchangeLike, as Spark's own exchange, so adaptive execution treats it the same:
 * its statistics (the rows' size as UnsafeRows, and their count), partition coalescing, skew join
 * splitting, local shuffle reads and exchange reuse.
 */
case class SluiceColumnarExchangeExec(
    override val outputPartitioning: Partitioning,
    child: SparkPlan,
    columns: Seq[Int],
    override val output: Seq[Attribute],
    partitioning: BatchPartitioning,
    shuffleOrigin: ShuffleOrigin,
    advisoryPartitionSize: Option[Long])
  extends ShuffleExchangeLike {

  private lazy val writeMetrics =
    SQLShuffleWriteMetricsReporter.createShuffleWriteMetrics(sparkContext)
  private lazy val readMetrics =
    SQLShuffleReadMetricsReporter.createShuffleReadMetrics(sparkContext)
  override lazy val metrics: Map[String, SQLMetric] = Map(
    "dataSize" -> SQLMetrics.createSizeMetric(sparkContext, "data size"),
    "numPartitions" -> SQLMetrics.createMetric(sparkContext, "number of partitions")
  ) ++ readMetrics ++ writeMetrics

  override def nodeName: String = "SluiceColumnarExchange"

  override def supportsColumnar: Boolean = true

  @transient private lazy val inputRDD: RDD[ColumnarBatch] = child.executeColumnar()

  @transient lazy val shuffleDependency: SluiceBatchDependency = {
    val types = output.map(_.dataType)
    val schema = SparkCatalogString.ofRow(types).fold(
      reason => throw new IllegalStateException(s"Sluice: $reason"), identity)
    val selected = columns.toArray
    val batches =
      if (columns == child.output.indices) inputRDD
      else inputRDD.map(batch => new ColumnarBatch(selected.map(batch.column), batch.numRows()))
    val noBounds = Array.emptyLongArray
    val (partitionCount, rangeBounds, sparkIds) = (outputPartitioning, partitioning.kind) match {
      case (range: RangePartitioning, kind) =>
        val partitioner = RangeBounds.sample(range, output, batches)
        if (kind == "range") (partitioner.numPartitions, RangeBounds.packedBounds(partitioner), None)
        else (partitioner.numPartitions, noBounds,
          Some(new RangePartitionIds(range.ordering.map(_.child), output, partitioner)))
      case (hash: HashPartitioning, "given") =>
        (hash.numPartitions, noBounds, Some(new HashPartitionIds(hash, output)))
      case (other, _) => (other.numPartitions, noBounds, None)
    }
    val dependency = new SluiceBatchDependency(
      batches.map(batch => (0, batch): Product2[Int, ColumnarBatch]),
      new NativePartitionIds(partitionCount),
      schema,
      types.toArray,
      partitioning,
      metrics("dataSize"),
      ShuffleExchangeExec.createShuffleWriteProcessor(writeMetrics),
      rangeBounds,
      sparkIds)
    metrics("numPartitions").set(dependency.partitioner.numPartitions)
    val executionId = sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
    SQLMetrics.postDriverMetricUpdates(sparkContext, executionId, metrics("numPartitions") :: Nil)
    dependency
  }

  @transient override lazy val mapOutputStatisticsFuture: Future[MapOutputStatistics] = {
    if (inputRDD.getNumPartitions == 0) {
      Future.successful(null)
    } else {
      val action = sparkContext.submitMapStage(shuffleDependency)
      futureAction.set(Some(action))
      action
    }
  }

  override def numMappers: Int = shuffleDependency.rdd.getNumPartitions

  override def numPartitions: Int = shuffleDependency.partitioner.numPartitions

  override def shuffleId: Int = shuffleDependency.shuffleId

  override def getShuffleRDD(partitionSpecs: Array[ShufflePartitionSpec]): RDD[_] =
    new SluiceShuffledBatchRDD(shuffleDependency, readMetrics, partitionSpecs)

  override def runtimeStatistics: Statistics = Statistics(
    sizeInBytes = metrics("dataSize").value,
    rowCount = Some(metrics(SQLShuffleWriteMetricsReporter.SHUFFLE_RECORDS_WRITTEN).value))

  @transient private var cachedShuffleRDD: SluiceShuffledBatchRDD = _

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    if (cachedShuffleRDD == null) {
      cachedShuffleRDD = new SluiceShuffledBatchRDD(shuffleDependency, readMetrics)
    }
    cachedShuffleRDD
  }

  override protected def doExecute(): RDD[InternalRow] = throw new IllegalStateException(
    s"$nodeName produces column batches; Spark reads them through ColumnarToRow")

  override protected def withNewChildInternal(newChild: SparkPlan): SluiceColumnarExchangeExec =
    copy(child = newChild)
}
