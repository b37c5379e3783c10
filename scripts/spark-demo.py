"""The Spark plugin's demo: one shuffle-heavy job (an aggregation, a sort-merge join and a
repartition over 2 million generated rows) on local-cluster[2,1,1024], run with Sluice and then
with Spark's own shuffle in the same session, and the shuffle metrics of each run's stages as the
Spark UI shows them (its REST API, /api/v1/applications/<app>/stages)."""

import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request


def main():
    jar = os.path.abspath(sys.argv[1])
    import pyspark
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    local_dir = tempfile.mkdtemp(prefix="sluice-spark-demo-")
    spark = (
        SparkSession.builder.master("local-cluster[2,1,1024]").appName("sluice-spark-demo")
        .config("spark.driver.extraClassPath", jar)
        .config("spark.executor.extraClassPath", jar)
        .config("spark.shuffle.manager", "org.apache.spark.shuffle.sluice.SluiceShuffleManager")
        .config("spark.sql.extensions", "org.apache.spark.sql.sluice.SluiceExtensions")
        .config("spark.sql.shuffle.partitions", "64")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.local.dir", local_dir)
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    statistics = spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics

    def job():
        orders = (spark.range(0, 2_000_000, 1, 8)
                  .withColumn("customer", (F.col("id") * 7919) % 50_000)
                  .withColumn("amount", (F.col("id") % 1000).cast("decimal(12,2)") / 7)
                  .withColumn("note", F.concat(F.lit("order-"), F.col("id").cast("string"))))
        customers = (spark.range(0, 50_000, 1, 4)
                     .withColumn("segment", F.element_at(
                         F.array(F.lit("retail"), F.lit("wholesale"), F.lit("online")),
                         (F.col("id") % 3 + 1).cast("int")))
                     .withColumnRenamed("id", "customer"))
        per_customer = orders.groupBy("customer").agg(F.sum("amount").alias("total"),
                                                      F.count("*").alias("orders"),
                                                      F.max("note").alias("last_note"))
        joined = per_customer.join(customers, "customer").repartition(16, "segment")
        return joined.groupBy("segment").agg(F.count("*").alias("customers"),
                                             F.sum("total").alias("revenue")).collect()

    def stages_since(known):
        url = (spark.sparkContext.uiWebUrl + "/api/v1/applications/" +
               spark.sparkContext.applicationId + "/stages?status=complete")
        with urllib.request.urlopen(url, timeout=30) as response:
            stages = json.loads(response.read())
        return sorted((s for s in stages if s["stageId"] not in known), key=lambda s: s["stageId"])

    def show(title, stages, seconds):
        print(f"\n{title}: {seconds:.1f} s")
        print(f"  {'stage':>5} {'tasks':>5} {'write MiB':>10} {'write rows':>11} "
              f"{'write ms':>9} {'read MiB':>9} {'read rows':>10} {'fetch wait ms':>13}")
        totals = [0, 0, 0]
        for s in stages:
            write_mib = s["shuffleWriteBytes"] / 2**20
            read_mib = s["shuffleReadBytes"] / 2**20
            print(f"  {s['stageId']:>5} {s['numTasks']:>5} {write_mib:>10.2f} "
                  f"{s['shuffleWriteRecords']:>11} {s['shuffleWriteTime'] / 1e6:>9.1f} "
                  f"{read_mib:>9.2f} {s['shuffleReadRecords']:>10} "
                  f"{s.get('shuffleFetchWaitTime', 0):>13}")
            totals[0] += s["shuffleWriteBytes"]
            totals[1] += s["shuffleWriteRecords"]
            totals[2] += s["shuffleReadBytes"]
        print(f"  total: {totals[0] / 2**20:.2f} MiB written ({totals[1]} rows), "
              f"{totals[2] / 2**20:.2f} MiB read")

    known = set()
    start = time.time()
    with_sluice = job()
    seconds = time.time() - start
    sluice_stages = stages_since(known)
    known.update(s["stageId"] for s in sluice_stages)
    print(f"\nSluice shuffles registered: {statistics.sluiceShuffles()}, "
          f"fell back: {statistics.fallbackShuffles()}")
    show("With Sluice (spark.shuffle.manager=...SluiceShuffleManager)", sluice_stages, seconds)

    spark.conf.set("spark.sluice.enabled", "false")
    start = time.time()
    with_spark = job()
    seconds = time.time() - start
    show("With Spark's sort shuffle (spark.sluice.enabled=false)", stages_since(known), seconds)

    same = sorted(map(tuple, with_sluice)) == sorted(map(tuple, with_spark))
    print("\nResult:")
    for row in sorted(with_sluice):
        print(f"  {row.segment:<10} {row.customers:>7} customers  revenue {row.revenue}")
    print(f"Same result with both shuffles: {same}")
    print("(Each run starts cold: the first also pays JVM warm-up, so the times are not a "
          "benchmark; see bench/ for measurements.)")
    spark.stop()
    shutil.rmtree(local_dir, ignore_errors=True)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
