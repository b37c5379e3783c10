package org.apache.spark.sql.sluice

import org.apache.spark.SparkEnv
import org.apache.spark.shuffle.sluice.SluiceShuffleManager
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, NullsFirst}
import org.apache.spark.sql.catalyst.plans.physical.{HashPartitioning, RangePartitioning,
  RoundRobinPartitioning, SinglePartition}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StringType, StructType}

/**
 * Decides whether a shuffle exchange takes Sluice's columnar path (SluiceColumnarExchangeExec)
 * and, when it does not, why: the reason is shown in the plan (SluiceShuffleInputExec) and logged.
 *
 * The columnar path applies when the exchange's child produces column batches (or selects columns
 * of a child that does), every column has a type the path carries (every flat type, and structs,
 * arrays and maps of them, nested in each other), and Sluice computes the partitioning natively as
 * Spark would: hash partitioning on columns (Murmur3 of the key columns, seed 42, pmod), range
 * partitioning on columns (against Spark's own sampled bounds), both for keys whose strings
 * compare by their bytes, a single partition, and round-robin, with or without Spark's sort before
 * it (spark.sql.execution.sortBeforeRepartition: the native writer ranks the task's rows by the
 * hash of their UnsafeRow form, SortedRoundRobinWriter). Hash and range keys that are expressions,
 * or strings of another collation, are evaluated by Spark into each row's partition id
 * (SparkPartitionIds), as Spark's exchange does. The session setting spark.sluice.columnar.enabled
 * (default true) turns the path off.
 */
object ColumnarExchangePlanning {
  val Enabled = "spark.sluice.columnar.enabled"

  /** The columnar exchange that replaces `exchange`, or why the row path carries it. */
  def plan(exchange: ShuffleExchangeExec): Either[String, SluiceColumnarExchangeExec] = {
    val conf = SQLConf.get
    val output = exchange.child.output
    for {
      _ <- check(conf.getConfString(Enabled, "true").toBoolean, s"$Enabled is false")
      _ <- managerReason.toLeft(())
      input <- columnarInput(exchange.child).toRight(
        s"its child (${exchange.child.nodeName}) produces rows")
      _ <- check(!conf.shuffleOrderIndependentChecksumEnabled,
        "order-independent shuffle checksums are computed over rows")
      _ <- output.map(_.dataType).find(!ArrowColumnView.supports(_)).map(t =>
        s"the columnar path does not carry ${t.catalogString} yet").toLeft(())
      partitioning <- batchPartitioning(exchange, output)
    } yield SluiceColumnarExchangeExec(exchange.outputPartitioning, input._1, input._2, output,
      partitioning, exchange.shuffleOrigin, exchange.advisoryPartitionSize)
  }

  /**
   * The columnar plan whose batches make the exchange's rows, and which of their columns: the
   * exchange's child itself, or the child of a projection that only selects, reorders or renames
   * columns (the exchange then picks the columns, and the projection disappears).
   */
  private def columnarInput(child: SparkPlan): Option[(SparkPlan, Seq[Int])] = child match {
    case columnar if columnar.supportsColumnar => Some((columnar, columnar.output.indices))
    case ProjectExec(projectList, columnar) if columnar.supportsColumnar =>
      def indexOf(attribute: Attribute) = columnar.output.indexWhere(_.exprId == attribute.exprId)
      val columns = projectList.map {
        case attribute: Attribute => indexOf(attribute)
        case Alias(attribute: Attribute, _) => indexOf(attribute)
        case _ => -1
      }
      if (columns.contains(-1)) None else Some((columnar, columns))
    case _ => None
  }

  private def check(condition: Boolean, reason: => String): Either[String, Unit] =
    if (condition) Right(()) else Left(reason)

  /** Why the executors' shuffle manager cannot carry a columnar shuffle, if it cannot. */
  private def managerReason: Option[String] = SparkEnv.get.shuffleManager match {
    case manager: SluiceShuffleManager => manager.setupReason
    case other => Some(s"the shuffle manager is ${other.getClass.getName}")
  }

  private def batchPartitioning(
      exchange: ShuffleExchangeExec,
      output: Seq[Attribute]): Either[String, BatchPartitioning] =
    exchange.outputPartitioning match {
      case SinglePartition => Right(BatchPartitioning("single", Nil))
      case HashPartitioning(expressions, _) => keyColumns(expressions, output) match {
        case Some(keys) => Right(BatchPartitioning("hash", keys))
        case None => computedBySpark(expressions)
      }
      case RoundRobinPartitioning(_) if SQLConf.get.sortBeforeRepartition =>
        Right(BatchPartitioning("round-robin", Nil, roundRobinMode = Some("spark-sorted")))
      case RoundRobinPartitioning(_) => Right(BatchPartitioning("round-robin", Nil))
      case RangePartitioning(ordering, _) =>
        keyColumns(ordering.map(_.child), output) match {
          case Some(keys) if RangeBounds.unavailableReason.isEmpty => Right(BatchPartitioning(
            "range", keys, ordering.map(order =>
              s"${if (order.isAscending) "asc" else "desc"} " +
                s"${if (order.nullOrdering == NullsFirst) "nulls first" else "nulls last"}")))
          case _ => computedBySpark(ordering.map(_.child))
        }
      case other => Left(s"${other.getClass.getSimpleName} is computed on rows")
    }

  /**
   * The column index of each key, if every key is a column Sluice hashes and orders as Spark
   * does (a string of a collation other than UTF8_BINARY is hashed and ordered by its collation
   * key, which Sluice does not compute; nested keys are left to Spark too).
   */
  private def keyColumns(keys: Seq[Expression], output: Seq[Attribute]): Option[Seq[Int]] = {
    val indices = keys.map {
      case attribute: Attribute if keyedNatively(attribute.dataType) =>
        output.indexWhere(_.exprId == attribute.exprId)
      case _ => -1
    }
    if (indices.contains(-1)) None else Some(indices)
  }

  /**
   * Keys Sluice does not evaluate natively: Spark computes each row's partition id from the
   * batch (SparkPartitionIds) and the native writer takes them ("given").
   */
  private def computedBySpark(keys: Seq[Expression]): Either[String, BatchPartitioning] =
    check(keys.forall(_.deterministic), "a partitioning key is nondeterministic")
      .map(_ => BatchPartitioning("given", Nil))

  private def keyedNatively(dataType: DataType): Boolean = dataType match {
    case string: StringType => string.isUTF8BinaryCollation
    case _: StructType | _: ArrayType | _: MapType => false
    case _ => true
  }
}
