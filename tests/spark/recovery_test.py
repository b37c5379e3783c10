"""Failures on a real cluster: a corrupted Sluice map output is diagnosed by Spark's shuffle
checksums and recomputed; an executor killed in the middle of a stage does not change the
result. (Runs last: the kill leaves the cluster with a replacement executor.)"""

import glob
import os
import re
import signal
import struct
import threading
import time

from pyspark.sql import functions as F

from conftest import rest, sluice_count
from executor_processes import executor_pids

ARROW_CONTINUATION = b"\xff\xff\xff\xff"
LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"
SCHEMA_REFERENCE_MAGIC = b"\x51\x2a\x4d\x18"  # a skippable frame naming the Schema message


def shuffle_files(local_dir, shuffle_id):
    return sorted(glob.glob(os.path.join(
        local_dir, "**", f"shuffle_{shuffle_id}_*_0.data"), recursive=True))


def latest_shuffle_id(local_dir):
    ids = [int(re.match(r"shuffle_(\d+)_", os.path.basename(p)).group(1))
           for p in glob.glob(os.path.join(local_dir, "**", "shuffle_*.data"), recursive=True)]
    return max(ids)


def sibling(local_dir, data_path, suffix):
    """Spark spreads a map output's files over hashed subfolders: find one by name."""
    name = os.path.basename(data_path)[:-len(".data")] + suffix
    return glob.glob(os.path.join(local_dir, "**", name), recursive=True)


def partition_offsets(local_dir, data_path):
    with open(sibling(local_dir, data_path, ".index")[0], "rb") as index:
        raw = index.read()
    return list(struct.unpack(f">{len(raw) // 8}q", raw))


def test_corrupted_map_output_is_diagnosed_by_spark_checksums(spark, local_dir):
    df = (spark.range(0, 20_000, 1, 4).withColumn("k", F.col("id") % 101)
          .repartition(6, "k").groupBy("k").agg(F.count("*").alias("c"), F.sum("id").alias("s")))
    before = sluice_count(spark)
    expected = sorted(map(tuple, df.collect()))
    assert sluice_count(spark) > before

    shuffle_id = latest_shuffle_id(local_dir)
    files = shuffle_files(local_dir, shuffle_id)
    assert files, f"no map output of shuffle {shuffle_id} under {local_dir}"
    # Sluice wrote them: every non-empty partition is an Arrow IPC stream or, being small, a
    # compact segment (an LZ4 frame around one, Spark's default codec; after a data file's first,
    # led by the skippable frame naming the Schema message it was compressed against), and
    # Spark's checksum file sits beside the data and index files.
    corrupted = None
    for path in files:
        offsets = partition_offsets(local_dir, path)
        assert sibling(local_dir, path, ".checksum.ADLER32")
        with open(path, "rb") as data:
            content = data.read()
        assert len(content) == offsets[-1]
        for start, end in zip(offsets, offsets[1:]):
            if end > start:
                assert content[start:start + 4] in (ARROW_CONTINUATION, LZ4_FRAME_MAGIC,
                                                    SCHEMA_REFERENCE_MAGIC)
                if corrupted is None:
                    corrupted = (path, start)
    path, start = corrupted
    with open(path, "r+b") as data:
        data.seek(start)
        data.write(b"\xab" * 16)

    # The same DataFrame again reuses the shuffle's map outputs; reading the corrupted one fails,
    # Spark diagnoses it with the checksum file, recomputes that map output and the job succeeds.
    assert sorted(map(tuple, df.collect())) == expected
    failed = rest(spark, "/stages?status=failed")
    reasons = " ".join(stage.get("failureReason", "") for stage in failed)
    assert "FetchFailed" in reasons or "corrupted" in reasons, reasons
    assert re.search(r"Block shuffle_\d+_\d+_\d+ is corrupted due to DISK_ISSUE", reasons), reasons


def test_executor_killed_during_a_stage(spark):
    app_id = spark.sparkContext.applicationId
    pids = sorted(executor_pids(app_id).values())
    assert len(pids) >= 2, pids
    # 8 map tasks of about 2 seconds each (every row sleeps 100 ms).
    df = (spark.range(0, 160, 1, 8)
          .withColumn("slept", F.expr("reflect('java.lang.Thread', 'sleep', cast(100 as bigint))"))
          .withColumn("k", F.col("id") % 7)
          .groupBy("k").agg(F.count("*").alias("c"), F.sum("id").alias("s"),
                            F.max("slept").alias("m")))
    result = {}

    def run():
        try:
            result["rows"] = df.collect()
        except Exception as error:  # reported below
            result["error"] = error

    job = threading.Thread(target=run)
    job.start()
    tracker = spark.sparkContext.statusTracker()
    deadline = time.time() + 300
    killed = None
    while killed is None and time.time() < deadline and job.is_alive():
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None and info.numTasks == 8 and info.numCompletedTasks >= 2:
                killed = pids[0]
                os.kill(killed, signal.SIGKILL)
                break
        time.sleep(0.2)
    job.join(timeout=600)
    assert killed is not None, "the stage finished before an executor could be killed"
    assert "error" not in result, result.get("error")
    rows = sorted((r.k, r.c, r.s) for r in result["rows"])
    assert rows == [(k, len(range(k, 160, 7)), sum(range(k, 160, 7))) for k in range(7)]
