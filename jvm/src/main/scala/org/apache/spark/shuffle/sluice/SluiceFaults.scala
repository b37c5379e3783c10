package org.apache.spark.shuffle.sluice

import org.apache.spark.TaskContext

/**
 * A test seam: native failures injected into chosen task attempts, so that the fault tests
 * (tests/spark/fault_test.py) can show that a failed native allocation or a full disk fails the
 * task with a Java exception, that Spark retries it, and that the executor stays up.
 *
 * The job's local property `spark.sluice.test.fault` (`SparkContext.setLocalProperty`) names
 * the side and the fault: `map:allocation`, `map:disk-full` or `reduce:allocation`, failing the
 * first attempt of each task on that side; with `:always` appended, every attempt. The fault
 * holds for the executor process from the start of the task's shuffle work to the task's end
 * (the test cluster's executors run one task at a time). Unset, this does nothing.
 */
private[sluice] object SluiceFaults {
  val Property = "spark.sluice.test.fault"

  /** Arms the fault the task's job asks for on `side` ("map" or "reduce"), if any. */
  def armFor(context: TaskContext, side: String): Unit = {
    val requested = context.getLocalProperty(Property)
    if (requested == null || requested.isEmpty) return
    val parts = requested.split(":")
    if (parts.length < 2 || parts(0) != side) return
    val always = parts.length > 2 && parts(2) == "always"
    if (!always && context.attemptNumber() > 0) return
    val fault = parts(1) match {
      case "allocation" => SluiceNative.FAULT_ALLOCATION
      case "disk-full" => SluiceNative.FAULT_DISK_FULL
      case other => throw new IllegalArgumentException(s"$Property: unknown fault '$other'")
    }
    context.addTaskCompletionListener[Unit](_ => SluiceNative.injectFault(SluiceNative.FAULT_NONE))
    SluiceNative.injectFault(fault)
  }
}
