"""The Spark side of encrypted_shuffle_test.py, run as its own Python process (a Python process
holds one SparkContext, and spark.io.encryption.enabled is fixed when one starts).

    python3 encrypted_shuffle_job.py JAR LOCAL_DIR REPORT

On a local-cluster[2,1,1024] with spark.io.encryption.enabled=true, it runs a group-by, a join
and a round-robin repartition with Sluice, then with Spark's shuffle, and writes to REPORT
(JSON) the rows of both, how many shuffles Sluice took and how many fell back, and the first
bytes of every non-empty partition of every map output Sluice wrote.
"""

import glob
import json
import os
import struct
import sys


def partition_heads(local_dir, shuffle_ids):
    """The first 4 bytes of each non-empty partition of the shuffles' map outputs."""
    heads = []
    for shuffle_id in shuffle_ids:
        for index in glob.glob(os.path.join(local_dir, "**", f"shuffle_{shuffle_id}_*_0.index"),
                               recursive=True):
            with open(index, "rb") as file:
                raw = file.read()
            offsets = struct.unpack(f">{len(raw) // 8}q", raw)
            # The block manager spreads files over subdirectories by name.
            name = os.path.basename(index)[:-len(".index")] + ".data"
            [data_path] = glob.glob(os.path.join(local_dir, "**", name), recursive=True)
            with open(data_path, "rb") as file:
                data = file.read()
            heads += [data[start:start + 4].hex() for start, end in zip(offsets, offsets[1:])
                      if end > start]
    return heads


def main():
    jar, local_dir, report_path = sys.argv[1:4]
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    spark = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("sluice-encrypted-shuffle")
        .config("spark.driver.extraClassPath", jar)
        .config("spark.executor.extraClassPath", jar)
        .config("spark.shuffle.manager", "org.apache.spark.shuffle.sluice.SluiceShuffleManager")
        .config("spark.sql.extensions", "org.apache.spark.sql.sluice.SluiceExtensions")
        .config("spark.io.encryption.enabled", "true")
        .config("spark.local.dir", local_dir)
        .config("spark.sql.shuffle.partitions", "6")
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate())
    statistics = spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics
    tracker = spark._jvm.org.apache.spark.SparkEnv.get().mapOutputTracker()

    def shuffle_ids():
        keys = spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(
            tracker.shuffleStatuses().keySet())
        return set(keys)

    def queries():
        rows = spark.range(0, 60_000, 1, 4).select(
            "id", (F.col("id") * 7919 % 1009).alias("k"),
            F.concat(F.lit("value-"), F.col("id").cast("string")).alias("s"))
        grouped = rows.groupBy("k").agg(F.count("*").alias("c"), F.max("s").alias("m"))
        joined = rows.join(grouped, "k").groupBy((F.col("id") % 97).alias("g")).agg(
            F.sum("c").alias("c"))
        spread = rows.repartition(5).groupBy((F.col("id") % 13).alias("g")).count()
        # Column batches from Parquet: the columnar path's shuffle, encrypted alike.
        columnar = spark.read.parquet(parquet).repartition(7, "k").groupBy("k").agg(
            F.count("*").alias("c"), F.max("s").alias("m"))
        return {name: sorted(map(tuple, df.collect()))
                for name, df in (("grouped", grouped), ("joined", joined), ("spread", spread),
                                 ("columnar", columnar))}

    parquet = os.path.join(local_dir, "encrypted-source")
    spark.range(0, 60_000, 1, 4).select(
        "id", (F.col("id") * 7919 % 1009).alias("k"),
        F.concat(F.lit("value-"), F.col("id").cast("string")).alias("s")
    ).write.mode("overwrite").parquet(parquet)

    before_ids = shuffle_ids()
    before_sluice, before_fallback = statistics.sluiceShuffles(), statistics.fallbackShuffles()
    with_sluice = queries()
    report = {
        "sluice_shuffles": statistics.sluiceShuffles() - before_sluice,
        "fallbacks": statistics.fallbackShuffles() - before_fallback,
        "fallback_reasons": statistics.fallbackReasons(),
        "heads": partition_heads(local_dir, sorted(shuffle_ids() - before_ids)),
        "columnar_exchange": "SluiceColumnarExchange" in spark.read.parquet(parquet)
        .repartition(7, "k")._jdf.queryExecution().executedPlan().toString(),
    }
    spark.conf.set("spark.sluice.enabled", "false")
    with_spark = queries()
    report["same_rows"] = {name: with_sluice[name] == with_spark[name] for name in with_sluice}
    report["rows"] = {name: len(rows) for name, rows in with_sluice.items()}
    with open(report_path, "w") as file:
        json.dump(report, file)
    spark.stop()


if __name__ == "__main__":
    main()
