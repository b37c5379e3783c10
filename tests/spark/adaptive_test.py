"""Adaptive query execution over Sluice: Spark's AQE reads Sluice's map output sizes (MapStatus
carries the real partition lengths), coalesces small partitions and splits skewed ones, and the
results equal those of Spark's own shuffle."""

from pyspark.sql import functions as F

from conftest import assert_same_as_spark, run_both


def test_coalesced_partitions(adaptive):
    spark = adaptive
    spark.conf.set("spark.sql.shuffle.partitions", "40")
    spark.conf.set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "1m")

    def query(s):
        return (s.range(0, 30_000, 1, 4).withColumn("k", F.col("id") % 500)
                .groupBy("k").agg(F.count("*").alias("c"), F.sum("id").alias("s")))
    def check_plan(plan):
        assert "AQEShuffleRead" in plan and "coalesced" in plan, plan
    rows = assert_same_as_spark(spark, query, check_plan=check_plan)
    assert len(rows) == 500


def test_skew_join_split(adaptive):
    spark = adaptive
    spark.conf.set("spark.sql.shuffle.partitions", "20")
    spark.conf.set("spark.sql.adaptive.skewJoin.enabled", "true")
    spark.conf.set("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2")
    spark.conf.set("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "64k")
    spark.conf.set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k")

    def query(s):
        # 80% of the left rows share key 0: one reduce partition is far larger than the rest.
        left = (s.range(0, 40_000, 1, 4)
                .withColumn("k", F.when(F.col("id") % 5 != 0, F.lit(0)).otherwise(F.col("id") % 97))
                .withColumn("payload", F.sha2(F.col("id").cast("string"), 256)))
        left = left.select("id", "k", "payload")
        right = s.range(0, 500, 1, 2).select((F.col("id") % 97).alias("rk"),
                                               F.col("id").alias("rid"))
        # Grouped by another key than the join's: the split does not cost an extra shuffle,
        # which AQE would refuse.
        return (left.join(right, left.k == right.rk)
                .groupBy((F.col("rid") % 13).alias("g")).agg(
                    F.count("*").alias("c"), F.max("payload").alias("m"),
                    F.sum("id").alias("ids")))
    def check_plan(plan):
        assert "skew=true" in plan, plan
    assert_same_as_spark(spark, query, check_plan=check_plan)


def test_join_strategy_and_statistics_match_sparks(adaptive):
    """AQE plans a join from the shuffle stages' runtime statistics (the exchange's dataSize,
    the bytes of the UnsafeRows written). Sluice left dataSize at 0, so AQE saw two 9 MB
    tables as empty and broadcast one of them where Spark's shuffle sort-merge joins."""
    spark = adaptive
    spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "2m")
    spark.conf.set("spark.sql.shuffle.partitions", "64")

    def query(s):
        left = (s.range(0, 200_000, 1, 4)
                .withColumn("payload", F.sha2(F.col("id").cast("string"), 256)))
        right = (s.range(0, 200_000, 1, 3).select(
            (F.col("id") * 3).alias("rid"),
            F.sha2((F.col("id") + 1).cast("string"), 224).alias("other")))
        return left.join(right, left.id == right.rid).select(
            "id", F.substring("payload", 1, 8).alias("p"), F.substring("other", 1, 8).alias("o"))

    (sluice_rows, sluice), (spark_rows, spark_shuffle) = run_both(spark, query)
    assert sluice_rows == spark_rows
    assert spark_shuffle[0] == ["SortMergeJoin"], spark_shuffle
    assert sluice[0] == spark_shuffle[0], (sluice, spark_shuffle)
    # The statistics are those of the rows, whoever wrote them: equal, not near.
    assert sluice[2] == spark_shuffle[2], (sluice, spark_shuffle)
    assert all(size > 2 * 1024 * 1024 for size, _ in sluice[2]), sluice


def test_coalesced_partition_counts_match_sparks(adaptive):
    """Coalescing reads the map outputs' partition lengths. Eight keys hold nearly all rows, so
    every heavy partition is above the advisory size and the light ones between them merge,
    whether Spark or Sluice encoded the bytes."""
    spark = adaptive
    spark.conf.set("spark.sql.shuffle.partitions", "100")
    spark.conf.set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "256k")

    def query(s):
        rows = s.range(0, 160_000, 1, 4)
        key = F.when(F.col("id") % 100 == 0, F.col("id") % 997).otherwise((F.col("id") % 8) * 123)
        return (rows.withColumn("k", key)
                .withColumn("payload", F.sha2(F.col("id").cast("string"), 256))
                .repartition("k").groupBy("k").agg(F.count("*").alias("c"),
                                                   F.max("payload").alias("m")))

    (sluice_rows, sluice), (spark_rows, spark_shuffle) = run_both(spark, query)
    assert sluice_rows == spark_rows
    assert spark_shuffle[1] and 8 <= spark_shuffle[1][0] < 100, spark_shuffle
    assert sluice[1] == spark_shuffle[1], (sluice, spark_shuffle)
    assert sluice[2] == spark_shuffle[2], (sluice, spark_shuffle)
