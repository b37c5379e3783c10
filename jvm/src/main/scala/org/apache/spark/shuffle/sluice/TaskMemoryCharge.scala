package org.apache.spark.shuffle.sluice

import org.apache.spark.TaskContext
import org.apache.spark.errors.SparkCoreErrors
import org.apache.spark.memory.MemoryConsumer

/**
 * The native memory of one Sluice task, charged to the task's TaskMemoryManager as execution
 * memory (in Spark's Tungsten memory mode, on or off heap), so Spark's memory accounting, its
 * spill decisions for the task's other consumers and its UI see what Sluice holds. The peak of
 * the charge becomes the task's peak execution memory when the task reports it.
 *
 * When Spark asks this consumer to spill, `spillNative` frees what native code can (the map
 * writer spills its rows; the reduce side's reader cannot, and returns 0).
 */
private[sluice] final class TaskMemoryCharge(context: TaskContext, spillNative: () => Long)
  extends MemoryConsumer(
    context.taskMemoryManager(),
    context.taskMemoryManager().pageSizeBytes(),
    context.taskMemoryManager().getTungstenMemoryMode) {

  private var charged = 0L
  private var peak = 0L

  override def spill(size: Long, trigger: MemoryConsumer): Long = spillNative()

  /** The bytes charged now, and the most charged at any time. */
  def bytes: Long = charged
  def peakBytes: Long = peak

  /** Charges `bytes` more, as far as the task grants them; returns what was granted. */
  def charge(bytes: Long): Long = {
    val got = acquireMemory(bytes)
    charged += got
    peak = math.max(peak, charged)
    got
  }

  /** Charges `bytes` more, or fails the task with Spark's out-of-memory error. */
  def chargeOrFail(bytes: Long): Unit = {
    val got = charge(bytes)
    if (got < bytes) {
      release(got)
      taskMemoryManager.showMemoryUsage()
      throw SparkCoreErrors.outOfMemoryError(bytes, got)
    }
  }

  /**
   * Makes the charge equal `held`, the bytes native code holds: growth that happened natively
   * is charged as far as the task grants it, memory freed natively is released.
   */
  def chargeHeld(held: Long): Unit = {
    if (held > charged) charge(held - charged)
    else if (held < charged) release(charged - held)
  }

  /** Releases `bytes` of the charge. */
  def release(bytes: Long): Unit = {
    if (bytes > 0) {
      freeMemory(bytes)
      charged -= bytes
    }
  }

  /** Releases the whole charge. Idempotent. */
  def releaseAll(): Unit = release(charged)
}
