"""Sluice under spark.io.encryption.enabled: map outputs stored as Spark stores them (each
partition an IV and AES/CTR bytes with the application's key, through Spark's own cipher
streams), read back through them, with the same rows as Spark's encrypted shuffle and no
fallback, on the row path and on the columnar path. The Spark side runs in its own process (encrypted_shuffle_job.py): encryption is
fixed when a SparkContext starts, and this process's is the session's.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from conftest import JAR, _spark_home

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "encrypted_shuffle_job.py")
# What an unencrypted Sluice partition starts with: an Arrow IPC continuation, an LZ4 or zstd
# frame, or the skippable frame naming a compact segment's Schema message.
PLAIN_HEADS = {"ffffffff", "04224d18", "28b52ffd", "512a4d18"}


def test_encrypted_shuffle_goes_through_sluice_and_stores_no_plain_segment():
    local_dir = tempfile.mkdtemp(prefix="sluice-encrypted-")
    report_path = os.path.join(local_dir, "report.json")
    environment = dict(os.environ, SPARK_HOME=_spark_home(), PYSPARK_PYTHON="python3")
    try:
        subprocess.run([sys.executable, JOB, os.path.abspath(JAR), local_dir, report_path],
                       check=True, timeout=600, cwd=HERE, env=environment)
        with open(report_path) as file:
            report = json.load(file)
    finally:
        shutil.rmtree(local_dir, ignore_errors=True)
    assert report["fallbacks"] == 0, report["fallback_reasons"]
    assert report["sluice_shuffles"] >= 3
    assert all(report["same_rows"].values()), report["same_rows"]
    assert report["rows"] == {"grouped": 1009, "joined": 97, "spread": 13, "columnar": 1009}
    assert report["columnar_exchange"]
    heads = report["heads"]
    assert len(heads) >= 10, heads
    assert not PLAIN_HEADS & set(heads), heads
