"""A real Spark cluster for the plugin's tests: local-cluster[2,1,1024] (a master, a worker and
two executor JVMs, each with one core), started once per test session, with Sluice's jar on the
driver and executor class paths.

SPARK_HOME is the pyspark package (it carries Spark's jars and bin/). The jar comes from
SLUICE_SPARK_JAR (make test-spark sets it to build/sluice-spark.jar). Each test runs its query
twice in the same session, with Sluice (the default) and with Spark's own shuffle
(spark.sluice.enabled=false for the session), and compares the results.
"""

import json
import os
import shutil
import tempfile
import urllib.request

import pytest

JAR = os.environ.get(
    "SLUICE_SPARK_JAR",
    os.path.join(os.path.dirname(__file__), "..", "..", "build", "sluice-spark.jar"))


def _spark_home():
    import pyspark
    return os.path.dirname(pyspark.__file__)


@pytest.fixture(scope="session")
def local_dir():
    directory = tempfile.mkdtemp(prefix="sluice-spark-test-")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def spark(local_dir):
    jar = os.path.abspath(JAR)
    if not os.path.exists(jar):
        pytest.fail(f"{jar} is missing: run make jar first")
    os.environ["SPARK_HOME"] = _spark_home()
    os.environ.setdefault("PYSPARK_PYTHON", "python3")
    from pyspark.sql import SparkSession
    session = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("sluice-spark-tests")
        .config("spark.driver.extraClassPath", jar)
        .config("spark.executor.extraClassPath", jar)
        .config("spark.shuffle.manager", "org.apache.spark.shuffle.sluice.SluiceShuffleManager")
        .config("spark.sql.extensions", "org.apache.spark.sql.sluice.SluiceExtensions")
        .config("spark.local.dir", local_dir)
        .config("spark.driver.memory", "1g")
        .config("spark.ui.enabled", "true")
        .config("spark.ui.port", "0")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.task.maxFailures", "4")
        .config("spark.stage.maxConsecutiveAttempts", "8")
        # Small pages and a low cap on what a map task holds, so larger tasks spill and merge.
        .config("spark.sluice.pageBytes", "1m")
        .config("spark.sluice.maxHeldBytes", "4m")
        .getOrCreate())
    session.sparkContext.setLogLevel("WARN")
    yield session
    session.stop()


# Adaptive execution as the adaptive tests run it: coalescing by size, no broadcast joins.
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


def rest(spark, path):
    """GET path of the application's REST API (Spark's UI, /api/v1/applications/<app>)."""
    url = spark.sparkContext.uiWebUrl + "/api/v1/applications/" + \
        spark.sparkContext.applicationId + path
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def sluice_count(spark):
    """Shuffles the driver has registered with Sluice so far."""
    return spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics.sluiceShuffles()


def plan_nodes(plan):
    """Every node of a physical plan, query stages and adaptive plans entered, depth first."""
    stack = [plan]
    while stack:
        node = stack.pop()
        yield node
        name = node.nodeName()
        if name == "AdaptiveSparkPlan":
            stack.append(node.executedPlan())
        elif name.endswith("QueryStage"):
            stack.append(node.plan())
        children = node.children()
        for i in range(children.size()):
            stack.append(children.apply(i))


def adaptive_decisions(df):
    """What adaptive execution decided for a query it ran: the join operators, the partition
    count of every shuffle read, and the runtime statistics (bytes, rows) of every shuffle stage,
    in plan order."""
    plan = df._jdf.queryExecution().executedPlan()
    joins, reads, statistics = [], [], []
    for node in plan_nodes(plan):
        name = node.nodeName()
        if name.endswith("Join"):
            joins.append(name)
        elif name == "AQEShuffleRead":
            reads.append(node.partitionSpecs().size())
        elif name == "ShuffleQueryStage":
            stats = node.getRuntimeStatistics()
            statistics.append((int(str(stats.sizeInBytes())), int(str(stats.rowCount().get()))))
    return joins, reads, statistics


def run_both(spark, build_query):
    """Runs build_query with Sluice and with Spark's shuffle; returns (sorted rows, decisions)
    of each."""
    before = sluice_count(spark)
    df = build_query(spark)
    sluice_rows = sorted(tuple(r) for r in df.collect())
    sluice_decisions = adaptive_decisions(df)
    assert sluice_count(spark) > before, "the query's shuffles did not go through Sluice"
    spark.conf.set("spark.sluice.enabled", "false")
    try:
        df = build_query(spark)
        spark_rows = sorted(tuple(r) for r in df.collect())
        spark_decisions = adaptive_decisions(df)
    finally:
        spark.conf.unset("spark.sluice.enabled")
    return (sluice_rows, sluice_decisions), (spark_rows, spark_decisions)


def fallback_count(spark):
    return spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics.fallbackShuffles()


def fallback_reasons(spark):
    return spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics.fallbackReasons()


def _sorted_rows(rows):
    return sorted((tuple(r) for r in rows), key=repr)


def collect_both(spark, build_query, expect_sluice=True, check_plan=None):
    """Runs build_query(spark) with Sluice and with Spark's shuffle; returns both results,
    sorted, after checking Sluice took (or did not take) the shuffles. check_plan, when given,
    is called with the executed plan of the Sluice run (after it ran)."""
    before = sluice_count(spark)
    sluice_df = build_query(spark)
    with_sluice = sluice_df.collect()
    if check_plan is not None:
        check_plan(sluice_df._jdf.queryExecution().executedPlan().toString())
    used = sluice_count(spark) - before
    if expect_sluice:
        assert used > 0, "the query's shuffles did not go through Sluice:\n" + fallback_reasons(spark)
    spark.conf.set("spark.sluice.enabled", "false")
    try:
        before = sluice_count(spark)
        with_spark = build_query(spark).collect()
        assert sluice_count(spark) == before, "Sluice was used with spark.sluice.enabled=false"
    finally:
        spark.conf.unset("spark.sluice.enabled")
    return _sorted_rows(with_sluice), _sorted_rows(with_spark)


def assert_same_as_spark(spark, build_query, expect_sluice=True, check_plan=None):
    sluice_rows, spark_rows = collect_both(spark, build_query, expect_sluice, check_plan)
    assert len(sluice_rows) == len(spark_rows)
    assert sluice_rows == spark_rows
    return sluice_rows


def stage_totals(spark, run):
    """Runs run() as its own job group; returns the sums of its completed stages' metrics and
    the exchange's dataSize metrics."""
    group = f"metrics-{id(run)}-{sluice_count(spark)}"
    spark.sparkContext.setJobGroup(group, group)
    try:
        df = run()
        df.collect()
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    stage_ids = {stage for job in rest(spark, "/jobs") if job.get("jobGroup") == group
                 for stage in job["stageIds"]}
    totals = {}
    for stage_id in stage_ids:
        for attempt in rest(spark, f"/stages/{stage_id}"):
            if attempt["status"] != "COMPLETE":
                continue
            for key, value in attempt.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    totals[key] = totals.get(key, 0) + value
    data_sizes = []
    plan = df._jdf.queryExecution().executedPlan()
    stack = [plan]
    while stack:
        node = stack.pop()
        if node.nodeName() == "Exchange":
            data_sizes.append(node.metrics().apply("dataSize").value())
        children = node.children()
        for i in range(children.size()):
            stack.append(children.apply(i))
    return totals, sorted(data_sizes)
