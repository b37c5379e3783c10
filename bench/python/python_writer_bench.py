#!/usr/bin/env python3
"""The Python writer against `sluice write` on the same bytes: what the Python package costs.

    python3 bench/python/python_writer_bench.py [--rows 10000000] [--rounds 5] [--partitions 200]
        [--codec lz4] [--cli build/tools/sluice] [--library build/libsluice.so] [--work-dir DIR]

Generates lineitem (`sluice generate`, batches of 8192 rows, cached in the work directory), then
in every round runs, one after the other in alternating order, two processes that shuffle it into
one map output with the same settings: `sluice write` and a Python process that opens the same
stream with pyarrow and hands its batches to `sluice.MapWriter`. Both are timed whole (wall and
CPU of the process, peak RSS), so the ratio is what a user pays for Python, interpreter start and
pyarrow's import included. The Python process also reports, per batch, the time of
`MapWriter.write` and the part of it spent inside the C call; the rest is the package's overhead
per batch (checking the batch against the schema, exporting it through the C Data Interface,
ctypes). Prints medians and writes them as JSON with --json.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Runs in the measured Python process: argv = stream, data path, partitions, codec.
PYTHON_WRITER = r"""
import ctypes, json, sys, time
import pyarrow as pa
import sluice
import sluice.writer as writer_module

stream, data_path, partitions, codec = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
native_seconds = 0.0
library = writer_module.library

class TimedLibrary:
    # Forwards to the C library, timing the one call that takes a batch.
    def __getattr__(self, name):
        return getattr(library, name)
    def sluice_map_writer_write(self, *arguments):
        global native_seconds
        start = time.perf_counter()
        try:
            return library.sluice_map_writer_write(*arguments)
        finally:
            native_seconds += time.perf_counter() - start

writer_module.library = TimedLibrary()
reader = pa.ipc.open_stream(pa.memory_map(stream))
write_seconds, batches, rows = 0.0, 0, 0
with sluice.MapWriter(reader.schema, data_path=data_path, partitions=partitions,
                      keys=["l_orderkey"], codec=codec, spark_files=True) as writer:
    for batch in reader:
        start = time.perf_counter()
        writer.write(batch)
        write_seconds += time.perf_counter() - start
        batches += 1
        rows += batch.num_rows
print(json.dumps({"batches": batches, "rows": rows, "write_seconds": write_seconds,
                  "native_seconds": native_seconds}))
"""


def run_measured(command, env=None):
    """Runs `command`; returns (wall seconds, CPU seconds, peak RSS in MiB, stdout)."""
    start = time.perf_counter()
    # wait4 gives this child's own rusage (RUSAGE_CHILDREN's maxrss is a maximum over all).
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command[0]} failed with status {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--codec", default="lz4")
    parser.add_argument("--cli", default=str(ROOT / "build/tools/sluice"))
    parser.add_argument("--library", default=str(ROOT / "build/libsluice.so"))
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--json", default=None, help="write the medians here")
    options = parser.parse_args()

    work = pathlib.Path(options.work_dir or tempfile.mkdtemp(prefix="python-writer-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    stream = work / f"lineitem_{options.rows}.arrow"
    if not stream.exists():
        subprocess.run([options.cli, "generate", "lineitem", "--rows", str(options.rows),
                        "--output", str(stream)], check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, SLUICE_LIBRARY=options.library,
               PYTHONPATH=str(ROOT / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cli_command = [options.cli, "write", str(stream), "--output-dir", str(work / "cli"),
                   "--partitions", str(options.partitions), "--keys", "l_orderkey",
                   "--codec", options.codec, "--overwrite"]
    python_command = [sys.executable, "-c", PYTHON_WRITER, str(stream),
                      str(work / "python" / "shuffle_0_0_0.data"), str(options.partitions),
                      options.codec]
    (work / "python").mkdir(exist_ok=True)

    samples = {"cli": [], "python": []}
    per_batch = []
    for round_ in range(options.rounds):
        order = ["cli", "python"] if round_ % 2 == 0 else ["python", "cli"]
        for name in order:
            for stale in (work / "python").glob("*"):
                stale.unlink()
            command = cli_command if name == "cli" else python_command
            wall, cpu, rss, output = run_measured(command, env)
            samples[name].append({"wall": wall, "cpu": cpu, "rss_mib": rss})
            if name == "python":
                report = json.loads(output.decode().strip().splitlines()[-1])
                overhead = report["write_seconds"] - report["native_seconds"]
                per_batch.append({"batches": report["batches"],
                                  "overhead_us": overhead / report["batches"] * 1e6,
                                  "write_us": report["write_seconds"] / report["batches"] * 1e6})
        print(f"round {round_ + 1}: cli {samples['cli'][-1]['wall']:.2f} s, "
              f"python {samples['python'][-1]['wall']:.2f} s", file=sys.stderr)

    def median(name, key):
        return statistics.median(sample[key] for sample in samples[name])

    ratios = sorted(p["wall"] / c["wall"] for p, c in zip(samples["python"], samples["cli"]))
    result = {
        "rows": options.rows, "partitions": options.partitions, "codec": options.codec,
        "rounds": options.rounds, "batches": per_batch[0]["batches"],
        "cli": {key: median("cli", key) for key in ("wall", "cpu", "rss_mib")},
        "python": {key: median("python", key) for key in ("wall", "cpu", "rss_mib")},
        "wall_ratio_median": statistics.median(ratios),
        "wall_ratios": ratios,
        "python_overhead_per_batch_us": statistics.median(p["overhead_us"] for p in per_batch),
        "python_write_per_batch_us": statistics.median(p["write_us"] for p in per_batch),
    }
    print(f"{options.rows:,} lineitem rows, {result['batches']} batches, {options.partitions} "
          f"partitions, {options.codec}, {options.rounds} rounds (medians)")
    for name in ("cli", "python"):
        figures = result[name]
        print(f"  {name:7s} wall {figures['wall']:.2f} s  cpu {figures['cpu']:.2f} s  "
              f"peak RSS {figures['rss_mib']:.0f} MiB")
    print(f"  python/cli wall ratio {result['wall_ratio_median']:.3f} "
          f"(per round: {', '.join(f'{r:.3f}' for r in ratios)})")
    print(f"  MapWriter.write per batch {result['python_write_per_batch_us']:.0f} us, of which "
          f"Python (checks, C Data export, ctypes) {result['python_overhead_per_batch_us']:.1f} us")
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
