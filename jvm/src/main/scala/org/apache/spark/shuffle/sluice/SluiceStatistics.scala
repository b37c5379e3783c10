package org.apache.spark.shuffle.sluice

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * What this JVM's SluiceShuffleManager decided and did, for tests and the demo (the driver
 * decides, executors write and read). Readable from Python through py4j:
 * `spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics.sluiceShuffles()`.
 */
object SluiceStatistics {
  private val sluice = new AtomicLong()
  private val fallback = new AtomicLong()
  private val reasons = new ConcurrentHashMap[Integer, String]()

  private[sluice] def recordSluice(shuffleId: Int): Unit = {
    sluice.incrementAndGet()
    reasons.remove(shuffleId)
  }

  private[sluice] def recordFallback(shuffleId: Int, reason: String): Unit = {
    fallback.incrementAndGet()
    reasons.put(shuffleId, reason)
  }

  /** Shuffles registered with Sluice by this JVM. */
  def sluiceShuffles(): Long = sluice.get()

  /** Shuffles handed to Spark's sort shuffle. */
  def fallbackShuffles(): Long = fallback.get()

  /** Why shuffle `shuffleId` fell back, or null when it did not. */
  def fallbackReason(shuffleId: Int): String = reasons.get(shuffleId)

  /** Every fallback reason so far, one "shuffle <id>: <reason>" per line. */
  def fallbackReasons(): String = {
    val lines = new StringBuilder
    reasons.forEach((id, reason) => lines.append(s"shuffle $id: $reason\n"))
    lines.toString
  }
}
