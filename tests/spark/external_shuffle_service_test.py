"""Sluice's map outputs served by Spark's real external shuffle service.

The service is Spark's own ExternalShuffleService in its own JVM (bin/spark-class), on a free
port. The Spark side runs in a child Python process (external_shuffle_service_job.py) with its
own local-cluster[2,1,1024], because this process's SparkContext is the session's. Its executors
register with the service, so every map status names the service as the place to fetch from, and
with spark.shuffle.readHostLocalDisk=false an executor fetches the other executor's blocks from
the service even on the same host.

The job runs a group-by and a join with Sluice and with Spark's shuffle (same rows), kills the
executor JVM that wrote most of Sluice's map outputs, and collects the same DataFrame again. With
the executor gone, its map outputs can only come from the service: the test checks the rows are
unchanged, the map stages were skipped (not recomputed) and no stage failed or was re-attempted.
Without the service (stopped, or never started) the job cannot pass.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import JAR, _spark_home
from executor_processes import executor_pids

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "external_shuffle_service_job.py")
SERVICE_CLASS = "org.apache.spark.deploy.ExternalShuffleService"


def free_port():
    with socket.socket() as probe:
        probe.bind(("", 0))
        return probe.getsockname()[1]


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def stop_group(process, grace=10):
    """Stops a process started in its own session, and everything it started."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # stragglers of the group, if any
    except ProcessLookupError:
        pass
    process.wait()


def tail(path, lines=200):
    try:
        with open(path, errors="replace") as log:
            return "".join(log.readlines()[-lines:])
    except OSError as error:
        return str(error)


class ShuffleService:
    def __init__(self, port, log_path):
        self.port = port
        self.log_path = log_path

    def log(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()


@pytest.fixture
def work_dir():
    directory = tempfile.mkdtemp(prefix="sluice-ess-test-")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def shuffle_service(work_dir):
    """Spark's external shuffle service, in its own JVM on a free port, stopped at the end."""
    port = free_port()
    conf_dir = os.path.join(work_dir, "service-conf")  # empty: no spark-defaults.conf
    service_dir = os.path.join(work_dir, "service-local")
    os.makedirs(conf_dir)
    os.makedirs(service_dir)
    spark_home = _spark_home()
    env = dict(os.environ, SPARK_HOME=spark_home, SPARK_CONF_DIR=conf_dir,
               SPARK_DAEMON_MEMORY="256m",
               SPARK_SHUFFLE_OPTS=f"-Dspark.shuffle.service.port={port} "
                                  f"-Dspark.local.dir={service_dir} "
                                  "-Dspark.shuffle.service.db.enabled=false")
    log_path = os.path.join(work_dir, "shuffle-service.log")
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [os.path.join(spark_home, "bin", "spark-class"), SERVICE_CLASS],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        deadline = time.time() + 60
        while not accepts(port):
            if process.poll() is not None or time.time() > deadline:
                pytest.fail(f"the external shuffle service did not listen on port {port}:\n"
                            + tail(log_path))
            time.sleep(0.2)
        yield ShuffleService(port, log_path)
    finally:
        stop_group(process)


def run_job(work_dir, port, timeout=300):
    """Runs the Spark side; returns its exit status, its report (a dict) and its log."""
    local_dir = os.path.join(work_dir, "spark-local")
    os.makedirs(local_dir)
    report_path = os.path.join(work_dir, "report.json")
    log_path = os.path.join(work_dir, "job.log")
    env = dict(os.environ, SPARK_HOME=_spark_home())
    env.setdefault("PYSPARK_PYTHON", "python3")
    with open(log_path, "wb") as log:
        job = subprocess.Popen(
            [sys.executable, JOB, os.path.abspath(JAR), str(port), local_dir, report_path],
            env=env, cwd=HERE, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        job.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    finally:
        stop_group(job)
    report = {}
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    # Executors leave once their driver is gone; make sure none is left behind.
    if "app_id" in report:
        deadline = time.time() + 20
        while executor_pids(report["app_id"]) and time.time() < deadline:
            time.sleep(0.5)
        for pid in executor_pids(report["app_id"]).values():
            os.kill(pid, signal.SIGKILL)
    return job.returncode, report, tail(log_path)


def test_sluice_map_outputs_are_served_by_the_external_shuffle_service(work_dir, shuffle_service):
    returncode, report, job_log = run_job(work_dir, shuffle_service.port)
    context = (f"\nreport: {report}\n--- job log ---\n{job_log}\n"
               f"--- shuffle service log ---\n{tail(shuffle_service.log_path, 60)}")
    assert returncode == 0, "the Spark job failed" + context

    # Sluice carried both shuffles of the query, with the same rows as Spark's shuffle.
    assert report["sluice_shuffles"] == 2 and report["fallback_shuffles"] == 0, context
    assert report["rows"] == 240_000 and report["same_as_spark"], context

    # Both executors registered with the service, as executors of Sluice's shuffle manager.
    registered = [line for line in shuffle_service.log().splitlines()
                  if "Registered executor" in line and report["app_id"] in line]
    assert len(registered) >= 2, context
    assert all("org.apache.spark.shuffle.sluice.SluiceShuffleManager" in line
               for line in registered), context

    # The killed executor had written map outputs of both shuffles.
    assert len(report["killed_executor_map_stages"]) == 2, context

    # After the kill, the same DataFrame read every map output again, the dead executor's
    # through the service: same rows, both map stages skipped, nothing failed or re-attempted.
    assert report["reread_same"], context
    job = report["reread_job"]
    assert job["status"] == "SUCCEEDED", context
    assert job["numSkippedStages"] == 2 and job["numFailedStages"] == 0, context
    assert job["numFailedTasks"] == 0, context
    assert all(attempt == 0 and status != "FAILED"
               for _, attempt, status in report["stage_attempts"]), context
    assert not report["failure_reasons"], context
    (stage,) = report["reread_stages"]
    assert stage["shuffleReadRecords"] >= 240_000 + 5003, context
    assert stage["shuffleRemoteBytesRead"] > 0, context
    assert report["sluice_shuffles_after_reread"] == 2, context
