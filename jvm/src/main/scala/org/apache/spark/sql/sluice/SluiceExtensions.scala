package org.apache.spark.sql.sluice

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CollectLimitExec, ColumnarRule, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.internal.SQLConf

/**
 * The SQL side of the plugin: `spark.sql.extensions=org.apache.spark.sql.sluice.SluiceExtensions`.
 *
 * It hands each shuffle exchange's row schema to the shuffle manager by putting a
 * SluiceShuffleInputExec under it, and changes nothing else: the exchange stays Spark's own
 * ShuffleExchangeExec (partition ids, AQE statistics, coalescing, skew splits, reuse and stage
 * retries are Spark's). The rule runs as a query-stage preparation rule (adaptive execution, on
 * the whole plan after EnsureRequirements) and as a columnar rule before transitions (without
 * adaptive execution); it is idempotent, so running in both places is harmless.
 */
class SluiceExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectQueryStagePrepRule(_ => TagShuffleInputs)
    extensions.injectColumnar(_ => TagShuffleInputsColumnarRule)
  }
}

/**
 * Replaces each shuffle exchange that can take Sluice's columnar path by a
 * SluiceColumnarExchangeExec (ColumnarExchangePlanning), and puts a SluiceShuffleInputExec under
 * every other shuffle exchange that has none, and under the two
 * operators that shuffle their child's rows themselves when executed as an RDD (a limit or a
 * top-K inside a subquery, or under Dataset.rdd: CollectLimitExec and TakeOrderedAndProjectExec
 * build a single-partition shuffle of the child's rows in doExecute). The session setting
 * spark.sluice.enabled (default true) turns Sluice off for the session's later queries: their
 * exchanges are tagged as declined, so they use Spark's sort shuffle.
 */
object TagShuffleInputs extends Rule[SparkPlan] with Logging {
  override def apply(plan: SparkPlan): SparkPlan = {
    val enabled = SQLConf.get.getConfString("spark.sluice.enabled", "true").toBoolean
    plan.transformUp {
      case exchange: ShuffleExchangeExec
          if !exchange.child.isInstanceOf[SluiceShuffleInputExec] =>
        val columnar =
          if (enabled) ColumnarExchangePlanning.plan(exchange)
          else Left("spark.sluice.enabled is false in the session")
        columnar match {
          case Right(columnarExchange) => columnarExchange
          case Left(reason) =>
            logInfo(s"Sluice: row path for ${exchange.outputPartitioning}: $reason")
            exchange.withNewChildren(
              Seq(SluiceShuffleInputExec(exchange.child, enabled, rowPathReason = reason)))
        }
      case limit: CollectLimitExec if !limit.child.isInstanceOf[SluiceShuffleInputExec] =>
        limit.withNewChildren(Seq(SluiceShuffleInputExec(limit.child, enabled)))
      case topK: TakeOrderedAndProjectExec if !topK.child.isInstanceOf[SluiceShuffleInputExec] =>
        topK.withNewChildren(Seq(SluiceShuffleInputExec(topK.child, enabled)))
    }
  }
}

object TagShuffleInputsColumnarRule extends ColumnarRule {
  override def preColumnarTransitions: Rule[SparkPlan] = TagShuffleInputs
}
