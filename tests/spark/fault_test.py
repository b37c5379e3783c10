"""Native failures inside Spark are task failures, never a lost executor: a native allocation
that fails on the map or on the reduce side, and a full disk under the map side's files, fail the
task attempt with a SluiceException; Spark retries it and the job gives the right answer, or,
when every attempt fails, the job fails with that error. The executor JVMs stay up throughout.

Faults are injected through the plugin's test seam (SluiceFaults.scala): the job's local
property spark.sluice.test.fault arms the fault in the executor for the first attempt of each
task on one side (or for every attempt, with ':always'). Each fault is injected under both paths:
the row path (rows from spark.range) and the columnar path (column batches from Parquet)."""

import glob
import os

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.sql import functions as F

from conftest import rest, sluice_count
from executor_processes import executor_pids

FAULT = "spark.sluice.test.fault"


def query(spark, source):
    """The faulted query over `source`: spark.range's rows, or a Parquet file's column batches."""
    rows = spark.range(0, 20_000, 1, 4) if source == "rows" else spark.read.parquet(source)
    return (rows.repartition(5, "id").withColumn("k", F.col("id") % 97).groupBy("k")
            .agg(F.count("*").alias("c"), F.sum("id").alias("s")))


def rows_of(df):
    return sorted(map(tuple, df.collect()))


def failed_attempt_errors(spark, group):
    """The error messages of the failed task attempts of the jobs of `group`."""
    errors = []
    for job in rest(spark, "/jobs"):
        if job.get("jobGroup") != group:
            continue
        for stage_id in job["stageIds"]:
            for attempt in rest(spark, f"/stages/{stage_id}"):
                tasks = rest(spark, f"/stages/{stage_id}/{attempt['attemptId']}/taskList"
                                    "?length=10000")
                errors += [task.get("errorMessage", "") for task in tasks
                           if task["status"] == "FAILED"]
    return errors


def run_with_fault(spark, source, fault, group):
    context = spark.sparkContext
    context.setJobGroup(group, f"fault test: {fault}")
    context.setLocalProperty(FAULT, fault)
    try:
        return rows_of(query(spark, source))
    finally:
        context.setLocalProperty(FAULT, None)
        context.setLocalProperty("spark.jobGroup.id", None)


def leftover_files(local_dir):
    """Temporary map outputs and spill files of failed attempts."""
    return (glob.glob(os.path.join(local_dir, "**", "shuffle_*.data.*"), recursive=True)
            + glob.glob(os.path.join(local_dir, "**", "sluice-spill-*"), recursive=True))


@pytest.fixture(scope="module", params=["rows", "columnar"])
def source(request, spark, local_dir):
    if request.param == "rows":
        return "rows"
    path = os.path.join(local_dir, "fault-source")
    spark.range(0, 20_000, 1, 4).write.mode("overwrite").parquet(path)
    plan = query(spark, path)._jdf.queryExecution().executedPlan().toString()
    assert "SluiceColumnarExchange" in plan, plan
    return path


@pytest.fixture(scope="module")
def expected(spark, source):
    before = sluice_count(spark)
    rows = rows_of(query(spark, source))
    assert sluice_count(spark) > before
    return rows


@pytest.mark.parametrize("fault, error", [
    ("map:allocation", "out of memory"),
    ("reduce:allocation", "out of memory"),
    ("map:disk-full", "No space left on device"),
])
def test_a_failed_attempt_is_retried_and_the_executors_stay_up(spark, local_dir, source,
                                                               expected, fault, error):
    app = spark.sparkContext.applicationId
    executors = executor_pids(app)
    assert len(executors) == 2
    group = "fault-" + fault.replace(":", "-") + "-" + ("rows" if source == "rows" else "columnar")
    assert run_with_fault(spark, source, fault, group) == expected
    errors = failed_attempt_errors(spark, group)
    assert errors, f"no task attempt failed under {fault}"
    for message in errors:
        assert "SluiceException" in message, message[:2000]
        assert error.lower() in message.lower(), message[:2000]
    assert executor_pids(app) == executors
    assert leftover_files(local_dir) == []


def test_a_fault_in_every_attempt_fails_the_job_with_its_error(spark, local_dir, source,
                                                               expected):
    app = spark.sparkContext.applicationId
    executors = executor_pids(app)
    with pytest.raises(Py4JJavaError) as failure:
        run_with_fault(spark, source, "map:allocation:always",
                       "fault-always-" + ("rows" if source == "rows" else "columnar"))
    assert "SluiceException" in str(failure.value)
    assert "out of memory" in str(failure.value).lower()
    assert executor_pids(app) == executors
    assert leftover_files(local_dir) == []
    # The same executors run the next job.
    assert rows_of(query(spark, source)) == expected
