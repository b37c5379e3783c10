"""The Spark side of external_shuffle_service_test.py, run as its own Python process (a Python
process holds one SparkContext, and the test session's is already taken).

    python3 external_shuffle_service_job.py JAR SHUFFLE_SERVICE_PORT LOCAL_DIR REPORT

On a local-cluster[2,1,1024] whose executors register with the external shuffle service on
SHUFFLE_SERVICE_PORT, it runs a group-by and a join with Sluice and with Spark's shuffle, kills
the executor JVM that wrote most of the Sluice job's map outputs, waits until the driver has
removed it, and collects the same DataFrame again, which reuses the shuffles' map outputs. It
writes what it saw to REPORT (JSON) for the test to check; the application id goes there first,
so the test can find the executors if this process has to be killed.
"""

import json
import os
import signal
import sys
import time
import urllib.request

from executor_processes import executor_pids

MAP_TASKS = 6
ROWS = 240_000
KEYS = 5003


def rest(sc, path):
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}{path}"
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def active_executors(sc):
    return {e["id"] for e in rest(sc, "/executors") if e["id"] != "driver" and e["isActive"]}


def lost_executors(sc):
    """Why executors of the application were removed, by executor id."""
    return {e["id"]: e.get("removeReason", "") for e in rest(sc, "/allexecutors")
            if e["id"] != "driver" and not e["isActive"]}


def collect(sc, df, group, seconds=120):
    """df's rows, sorted, as job group `group`. Cancels the job and raises if it takes longer
    than `seconds` or executors fail to start (Spark would wait for executors forever)."""
    from pyspark import InheritableThread
    result = {}

    def run():
        sc.setJobGroup(group, group)
        try:
            result["rows"] = sorted(map(tuple, df.collect()))
        except Exception as error:  # raised below
            result["error"] = error

    job = InheritableThread(target=run, daemon=True)
    job.start()
    deadline = time.time() + seconds
    while job.is_alive():
        job.join(1)
        lost = lost_executors(sc)
        cannot_start = {e: why for e, why in lost.items() if "shuffle server" in why}
        if job.is_alive() and (cannot_start or time.time() > deadline):
            sc.cancelAllJobs()
            job.join(30)
            raise RuntimeError(f"job {group} did not finish in time, lost executors: {lost}")
    if "error" in result:
        raise result["error"]
    return result["rows"]


def wait_for(what, condition, seconds):
    deadline = time.time() + seconds
    while not condition():
        if time.time() > deadline:
            raise TimeoutError(f"gave up after {seconds} s waiting for {what}")
        time.sleep(0.25)


def query(spark):
    from pyspark.sql import functions as F
    facts = (spark.range(0, ROWS, 1, MAP_TASKS)
             .withColumn("k", (F.col("id") * 7919) % KEYS)
             .withColumn("s", F.concat(F.lit("row-"), (F.col("id") % 1000).cast("string"))))
    per_key = facts.groupBy("k").agg(F.count("*").alias("c"), F.sum("id").alias("total"),
                                     F.max("s").alias("max_s"))
    # Two shuffles, each written by MAP_TASKS map tasks: the partial aggregation's and the join's
    # left side (the aggregate is already partitioned by k). The last stage reads both.
    return facts.join(per_key, "k").select("id", "k", "s", "c", "total", "max_s")


def jobs_of(sc, group):
    return [job for job in rest(sc, "/jobs") if job.get("jobGroup") == group]


def main():
    jar, port, local_dir, report_path = sys.argv[1:5]
    report = {"seconds": {}}
    started = time.time()

    def phase(name):
        report["seconds"][name] = round(time.time() - started, 1)

    def save():
        with open(report_path, "w") as out:
            json.dump(report, out, indent=1)

    from pyspark.sql import SparkSession
    spark = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("sluice-external-shuffle-service-test")
        .config("spark.driver.extraClassPath", jar)
        .config("spark.executor.extraClassPath", jar)
        .config("spark.shuffle.manager", "org.apache.spark.shuffle.sluice.SluiceShuffleManager")
        .config("spark.sql.extensions", "org.apache.spark.sql.sluice.SluiceExtensions")
        # Executors register with the external shuffle service and their map statuses point at
        # it (LocalSparkCluster turns the service off for its own Worker only; executors take
        # this setting from the driver). Blocks of the other executor on this host are fetched
        # from the service, not read from its folders directly.
        .config("spark.shuffle.service.enabled", "true")
        .config("spark.shuffle.service.port", port)
        .config("spark.shuffle.readHostLocalDisk", "false")
        # An executor that cannot register with the service exits soon (see lost_executors).
        .config("spark.shuffle.registration.timeout", "2000")
        .config("spark.shuffle.registration.maxAttempts", "2")
        .config("spark.shuffle.io.maxRetries", "1")
        .config("spark.shuffle.io.retryWait", "1s")
        .config("spark.local.dir", local_dir)
        .config("spark.driver.memory", "1g")
        .config("spark.ui.enabled", "true")
        .config("spark.ui.port", "0")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sluice.pageBytes", "1m")
        .config("spark.sluice.maxHeldBytes", "4m")
        .getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("WARN")
    report["app_id"] = sc.applicationId
    phase("session")
    save()
    statistics = spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics
    try:
        def two_executors():
            lost = lost_executors(sc)
            if lost:
                raise RuntimeError(f"executors failed: {lost}")
            return len(active_executors(sc)) == 2
        wait_for("two executors", two_executors, 90)
        report["executors_at_start"] = sorted(active_executors(sc))
        phase("executors")

        # 1. With Sluice.
        before = (statistics.sluiceShuffles(), statistics.fallbackShuffles())
        df = query(spark)
        with_sluice = collect(sc, df, "sluice")
        report["sluice_shuffles"] = statistics.sluiceShuffles() - before[0]
        report["fallback_shuffles"] = statistics.fallbackShuffles() - before[1]
        report["fallback_reasons"] = statistics.fallbackReasons()
        phase("sluice")

        # 2. The same query with Spark's shuffle.
        spark.conf.set("spark.sluice.enabled", "false")
        with_spark = collect(sc, query(spark), "spark")
        spark.conf.unset("spark.sluice.enabled")
        phase("spark")
        report["rows"] = len(with_sluice)
        report["same_as_spark"] = with_sluice == with_spark

        # 3. Kill the executor that wrote most of the Sluice job's map outputs.
        (first,) = jobs_of(sc, "sluice")
        map_tasks = {}
        for stage_id in first["stageIds"]:
            (stage,) = rest(sc, f"/stages/{stage_id}")
            if stage["shuffleWriteBytes"] > 0:
                tasks = rest(sc, f"/stages/{stage_id}/0/taskList?length=1000")
                for task in tasks:
                    map_tasks.setdefault(task["executorId"], []).append(stage_id)
        report["map_tasks_by_executor"] = {e: len(s) for e, s in map_tasks.items()}
        victim = max(map_tasks, key=lambda e: len(map_tasks[e]))
        report["killed_executor"] = victim
        report["killed_executor_map_stages"] = sorted(set(map_tasks[victim]))
        os.kill(executor_pids(sc.applicationId)[victim], signal.SIGKILL)
        wait_for(f"the driver to remove executor {victim}",
                 lambda: victim not in active_executors(sc), 60)
        phase("kill")
        save()

        # 4. The same DataFrame again: its shuffles are still registered, so only the last stage
        # runs and reads every map output, the dead executor's included.
        again = collect(sc, df, "reread")
        phase("reread")
        report["reread_same"] = again == with_sluice
        (reread,) = jobs_of(sc, "reread")
        report["reread_job"] = {key: reread[key] for key in (
            "status", "stageIds", "numSkippedStages", "numCompletedStages", "numFailedStages",
            "numTasks", "numFailedTasks")}
        stages = rest(sc, "/stages")
        report["stage_attempts"] = sorted(
            (s["stageId"], s["attemptId"], s["status"]) for s in stages)
        report["failure_reasons"] = [s.get("failureReason", "") for s in stages
                                     if s.get("failureReason")]
        ran = [s for s in stages if s["stageId"] in reread["stageIds"] and s["status"] != "SKIPPED"
               and s["numTasks"] > 0 and s["stageId"] not in first["stageIds"]]
        report["reread_stages"] = [
            {key: s[key] for key in ("stageId", "attemptId", "status", "numTasks",
                                     "shuffleReadRecords", "shuffleRemoteBytesRead",
                                     "shuffleLocalBytesRead", "shuffleWriteBytes")}
            for s in ran]
        report["sluice_shuffles_after_reread"] = statistics.sluiceShuffles() - before[0]
    finally:
        save()
        spark.stop()


if __name__ == "__main__":
    main()
