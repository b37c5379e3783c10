package org.apache.spark.sql.sluice

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}

/**
 * Sits between a ShuffleExchangeExec and its child and passes the child's rows through
 * untouched; its RDD carries the rows' schema (SluiceSchemaRDD) for the shuffle manager, or, when
 * the session turned Sluice off (`enabled` false), the reason to use Spark's shuffle. The plan
 * shows why the exchange did not take the columnar path (`rowPathReason`).
 */
case class SluiceShuffleInputExec(
    child: SparkPlan,
    enabled: Boolean = true,
    rowPathReason: String = "")
  extends UnaryExecNode {
  override def simpleString(maxFields: Int): String =
    if (rowPathReason.isEmpty) nodeName else s"$nodeName (row path: $rowPathReason)"

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override protected def doExecute(): RDD[InternalRow] = {
    val schema =
      if (enabled) SparkCatalogString.ofRow(child.output.map(_.dataType))
      else Left("spark.sluice.enabled is false in the session")
    new SluiceSchemaRDD(child.execute(), schema)
  }

  override protected def withNewChildInternal(newChild: SparkPlan): SluiceShuffleInputExec =
    copy(child = newChild)
}
