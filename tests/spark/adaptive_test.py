"""Adaptive query execution over Sluice: Spark's AQE reads Sluice's map output sizes (MapStatus
carries the real partition lengths), coalesces small partitions and splits skewed ones, and the
results equal those of Spark's own shuffle."""

import pytest
from pyspark.sql import functions as F

from conftest import assert_same_as_spark

ADAPTIVE = {
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.parallelismFirst": "false",
    "spark.sql.autoBroadcastJoinThreshold": "-1",
}


@pytest.fixture
def adaptive(spark):
    for key, value in ADAPTIVE.items():
        spark.conf.set(key, value)
    yield spark
    for key in list(ADAPTIVE) + ["spark.sql.shuffle.partitions",
                                 "spark.sql.adaptive.advisoryPartitionSizeInBytes",
                                 "spark.sql.adaptive.skewJoin.enabled",
                                 "spark.sql.adaptive.skewJoin.skewedPartitionFactor",
                                 "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes"]:
        spark.conf.unset(key)
    spark.conf.set("spark.sql.shuffle.partitions", "8")


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
