package org.apache.spark.shuffle.sluice

import org.apache.spark.ShuffleDependency
import org.apache.spark.shuffle.BaseShuffleHandle
import org.apache.spark.sql.sluice.SluiceBatchDependency

/** A columnar shuffle (SluiceBatchDependency): column batches in, column batches out. */
private[spark] class SluiceBatchShuffleHandle[K, V](
    shuffleId: Int,
    val batchDependency: SluiceBatchDependency)
  extends BaseShuffleHandle(shuffleId, batchDependency.asInstanceOf[ShuffleDependency[K, V, V]])
