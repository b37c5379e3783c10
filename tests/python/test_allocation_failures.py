"""Memory failure is an error, not an abort, from Python too: a write and a read of a small
table, once for every buffer allocation the library makes, with that allocation and every later
one failing (SLUICE_FAIL_ALLOCATIONS_AFTER, read by the library at its first allocation). Each
run raises sluice.SluiceMemoryError (a MemoryError) naming it, leaves no file, and never ends
the interpreter; the run past the last allocation succeeds."""

import json
import os
import subprocess
import sys

import pytest

import sluice

SCRIPT = r"""
import json, os, pathlib, sys
import pyarrow as pa
import sluice

directory = pathlib.Path(sys.argv[1])
table = pa.table({"id": pa.array(range(3000), pa.int64()),
                  "s": [f"value {i}" for i in range(3000)],
                  "l": [[i, i + 1] for i in range(3000)]})
outcome = "ok"
try:
    with sluice.MapWriter(table.schema, data_path=str(directory / "shuffle_0_0_0.data"),
                          partitions=8, keys=["id"], codec="lz4", spark_files=True,
                          memory_budget="64KiB") as writer:
        writer.write(table)
    read = sluice.read_partitions([str(directory / "shuffle_0_0_0.data")], 0, 8).read_all()
    assert read.num_rows == 3000
except MemoryError as error:
    outcome = "memory: " + str(error)
print(json.dumps({"outcome": outcome, "files": sorted(p.name for p in directory.iterdir())}))
"""


def run_with_allocations(allowed, tmp_path):
    directory = tmp_path / f"run{allowed}"
    directory.mkdir()
    environment = dict(os.environ, SLUICE_FAIL_ALLOCATIONS_AFTER=str(allowed))
    environment["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(sluice.__file__)), environment.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(directory)], env=environment,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"allocation {allowed}: exit {result.returncode}\n" \
        f"{result.stderr[-2000:]}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_failed_allocation_is_a_memory_error(tmp_path):
    failures = 0
    for allowed in range(0, 2000):
        report = run_with_allocations(allowed, tmp_path)
        if report["outcome"] == "ok":
            break
        failures += 1
        assert "out of memory" in report["outcome"], report
        # The write failed: nothing of it is left (a failed read leaves the committed output).
        assert report["files"] in ([], ["shuffle_0_0_0.checksum.ADLER32", "shuffle_0_0_0.data",
                                        "shuffle_0_0_0.index"]), report
    else:
        pytest.fail("the run never succeeded")
    assert failures > 10, f"only {failures} allocations failed: the switch is not reaching them"
