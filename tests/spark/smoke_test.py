from pyspark.sql import functions as F
from conftest import assert_same_as_spark, sluice_count


def test_native_library_loads(spark):
    version = spark._jvm.org.apache.spark.shuffle.sluice.NativeLibrary.load()
    assert version.startswith("sluice")
    # and on the executors
    def load(_):
        return [0]
    assert spark.sparkContext.parallelize(range(4), 4).mapPartitions(load).count() == 4


def test_group_by(spark):
    rows = assert_same_as_spark(
        spark, lambda s: s.range(0, 100000).withColumn("k", F.col("id") % 97)
        .groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("c")))
    assert len(rows) == 97
