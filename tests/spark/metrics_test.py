"""Task and SQL metrics of a Sluice shuffle, against Spark's own shuffle on the same rows: what
Spark's UI and adaptive execution read must be there and must be true."""

from pyspark.sql import functions as F

from conftest import rest, sluice_count, stage_totals

# Stage metrics (the REST API's StageData) that count rows: equal whoever shuffles them.
COUNTS = ["shuffleWriteRecords", "shuffleReadRecords", "inputRecords", "outputRecords"]
# Stage metrics that Sluice must report, not leave at 0 (times and memory differ by design).
REPORTED = ["shuffleWriteTime", "peakExecutionMemory", "shuffleWriteBytes", "shuffleReadBytes"]


def test_task_metrics_are_reported_as_sparks(spark):
    def query():
        return (spark.range(0, 120_000, 1, 4)
                .withColumn("k", F.col("id") % 1013)
                .withColumn("s", F.sha2(F.col("id").cast("string"), 256))
                .repartition(12, "k")
                .groupBy("k").agg(F.count("*").alias("c"), F.max("s").alias("m")))

    before = sluice_count(spark)
    sluice, sluice_sizes = stage_totals(spark, query)
    assert sluice_count(spark) > before
    spark.conf.set("spark.sluice.enabled", "false")
    try:
        spark_shuffle, spark_sizes = stage_totals(spark, query)
    finally:
        spark.conf.unset("spark.sluice.enabled")

    for key in COUNTS:
        assert sluice.get(key) == spark_shuffle.get(key), (key, sluice, spark_shuffle)
    for key in REPORTED:
        assert sluice.get(key, 0) > 0, (key, sluice)
    # The exchange's dataSize is the bytes of the UnsafeRows written: the same for both.
    assert sluice_sizes == spark_sizes and all(size > 0 for size in sluice_sizes), \
        (sluice_sizes, spark_sizes)


def test_spill_metrics_are_reported(spark):
    """conftest caps what a map task holds natively at 4 MiB: a 40 MB map task spills, and the
    task reports memory and disk bytes spilled, as Spark's sorter does when it spills."""
    def query():
        return (spark.range(0, 400_000, 1, 2)
                .withColumn("s", F.sha2(F.col("id").cast("string"), 512))
                .repartition(7, "id").select(F.sum(F.length("s"))))

    totals, _ = stage_totals(spark, query)
    assert totals.get("memoryBytesSpilled", 0) > 0, totals
    assert totals.get("diskBytesSpilled", 0) > 0, totals


def test_reduce_side_memory_is_charged_to_the_task(spark):
    """The native reader's memory (its pools, block buffers and rows) is charged to the task's
    memory manager: a stage that only reads the shuffle reports peak execution memory, which
    under Spark's own reader (it charges nothing) is 0."""
    group = f"reduce-memory-{sluice_count(spark)}"
    spark.sparkContext.setJobGroup(group, group)
    try:
        rows = (spark.range(0, 200_000, 1, 4)
                .withColumn("s", F.sha2(F.col("id").cast("string"), 256))
                .repartition(3, "id").collect())
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    assert len(rows) == 200_000
    stage_ids = {stage for job in rest(spark, "/jobs") if job.get("jobGroup") == group
                 for stage in job["stageIds"]}
    reading = [attempt for stage_id in stage_ids for attempt in rest(spark, f"/stages/{stage_id}")
               if attempt["status"] == "COMPLETE" and attempt["shuffleReadRecords"] > 0
               and attempt["shuffleWriteRecords"] == 0]
    assert reading, "no stage that only reads the shuffle"
    assert all(attempt["peakExecutionMemory"] > 0 for attempt in reading), reading
