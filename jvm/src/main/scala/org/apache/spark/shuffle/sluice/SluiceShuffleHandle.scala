package org.apache.spark.shuffle.sluice

import org.apache.spark.ShuffleDependency
import org.apache.spark.shuffle.BaseShuffleHandle

/**
 * A shuffle Sluice writes and reads: Spark's handle plus the schema of its rows, as the Spark
 * catalog string the native side parses ("struct<c0:int,c1:array<string>>").
 */
private[spark] class SluiceShuffleHandle[K, V](
    shuffleId: Int,
    dependency: ShuffleDependency[K, V, V],
    val schema: String)
  extends BaseShuffleHandle(shuffleId, dependency)
