package org.apache.spark.sql.sluice

import java.io.{InputStream, OutputStream}
import java.nio.ByteBuffer

import scala.reflect.ClassTag

import org.apache.spark.{Partitioner, ShuffleDependency}
import org.apache.spark.rdd.RDD
import org.apache.spark.serializer.{DeserializationStream, SerializationStream, Serializer, SerializerInstance}
import org.apache.spark.shuffle.ShuffleWriteProcessor
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.DataType
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * How the columnar path's native writer places rows: its writer settings ("partitioning", "keys",
 * for range partitioning "sort-orders" such as "desc nulls last", for round-robin the
 * "round-robin-mode": "spark-sorted" when Spark sorts rows before it), Spark's partitioning
 * computed natively; "given" when Spark computes the ids (SparkPartitionIds).
 */
case class BatchPartitioning(
    kind: String,
    keyColumns: Seq[Int],
    sortOrders: Seq[String] = Nil,
    roundRobinMode: Option[String] = None)

/**
 * The shuffle of a SluiceColumnarExchangeExec: the child's column batches, each paired with an
 * unused key, and what the native writer needs to place and encode their rows. Only Sluice can
 * carry it (the shuffle manager refuses to fall back: Spark's sort shuffle cannot serialize
 * column batches).
 *
 * @param schema the Spark catalog string of the rows ("struct<c0:int,...>")
 * @param types the Spark type of each column
 * @param dataSize the exchange's data size metric, which the writer fills with the bytes the
 *                 rows take as UnsafeRows, as Spark's row serializer would
 * @param rangeBounds range partitioning: Spark's sampled bounds (RangePartitioner's), UnsafeRows
 *                    of the key columns packed as the native writer takes them
 *                    (RangeBounds.packRows); empty otherwise
 * @param sparkPartitionIds "given" partitioning: how Spark computes each row's partition, in the
 *                          map task, for keys Sluice does not evaluate natively; None otherwise
 */
class SluiceBatchDependency(
    rdd: RDD[Product2[Int, ColumnarBatch]],
    partitioner: Partitioner,
    val schema: String,
    val types: Array[DataType],
    val partitioning: BatchPartitioning,
    val dataSize: SQLMetric,
    writeProcessor: ShuffleWriteProcessor,
    val rangeBounds: Array[Long],
    val sparkPartitionIds: Option[SparkPartitionIds])
  extends ShuffleDependency[Int, ColumnarBatch, ColumnarBatch](
    rdd, partitioner, BatchesAreWrittenNatively, None, None, false, writeProcessor)(
    ClassTag.Int, ClassTag(classOf[ColumnarBatch]), ClassTag(classOf[ColumnarBatch]))

/** The partition count of a columnar shuffle; the native writer computes the partition ids. */
class NativePartitionIds(override val numPartitions: Int) extends Partitioner {
  override def getPartition(key: Any): Int =
    throw new UnsupportedOperationException("Sluice computes the partition ids of column batches")
}

/**
 * The serializer a ShuffleDependency must name. Column batches are copied into Arrow buffers and
 * encoded natively; nothing may serialize them through a JVM serializer.
 */
object BatchesAreWrittenNatively extends Serializer with Serializable {
  override def newInstance(): SerializerInstance = new SerializerInstance {
    private def refuse: Nothing = throw new UnsupportedOperationException(
      "column batches of a Sluice columnar shuffle are written natively, never serialized")
    override def serialize[T: ClassTag](t: T): ByteBuffer = refuse
    override def deserialize[T: ClassTag](bytes: ByteBuffer): T = refuse
    override def deserialize[T: ClassTag](bytes: ByteBuffer, loader: ClassLoader): T = refuse
    override def serializeStream(s: OutputStream): SerializationStream = refuse
    override def deserializeStream(s: InputStream): DeserializationStream = refuse
  }
}
