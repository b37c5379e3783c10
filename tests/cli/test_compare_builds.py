"""bench/report/compare_builds.py, run as a developer runs it, on fake benchmark programs."""

import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "report" / "compare_builds.py"


def fake_program(directory, name, times, log):
    """A Google Benchmark program that reports the next of `times` as BM_Write's real time (and
    twice it as its raw_over_wall), and appends its name and arguments to `log`."""
    program = directory / name
    state = directory / f"{name}.count"
    state.write_text("0")
    entries = [[{"name": "BM_Write/manual_time", "run_type": "iteration", "real_time": time,
                 "raw_over_wall": 2 * time},
                {"name": "BM_Write/manual_time_median", "run_type": "aggregate",
                 "real_time": 1000.0}] for time in times]
    program.write_text(f"""#!{sys.executable}
import json, pathlib, sys
state = pathlib.Path({str(state)!r})
count = int(state.read_text())
state.write_text(str(count + 1))
with open({str(log)!r}, "a") as log:
    log.write({name!r} + " " + " ".join(sys.argv[1:]) + "\\n")
print(json.dumps({{"benchmarks": {json.dumps(entries)}[count]}}))
""")
    program.chmod(0o755)
    return program


def test_compare_builds_alternates_the_programs_and_reports_medians(tmp_path):
    log = tmp_path / "runs.log"
    old = fake_program(tmp_path, "old", [10.0, 30.0, 12.0, 11.0], log)
    new = fake_program(tmp_path, "new", [5.0, 6.0, 50.0, 4.0], log)
    result = subprocess.run([sys.executable, str(SCRIPT), "--filter", "BM_Write", "--runs", "4",
                             "--min-time", "0.1", str(old), str(new)],
                            capture_output=True, text=True, check=True)
    runs = [line.split() for line in log.read_text().splitlines()]
    # The order reverses every round, and every run gets the filter, time and JSON format.
    assert [run[0] for run in runs] == ["old", "new", "new", "old"] * 2
    assert all(run[1:] == ["--benchmark_filter=BM_Write", "--benchmark_min_time=0.1",
                           "--benchmark_format=json"] for run in runs)
    lines = result.stdout.splitlines()
    # Medians over the rounds (aggregates ignored): old 11.5, new 5.5, ratio 0.478.
    assert lines[0].split() == ["BM_Write/manual_time", "[0]", "11.5", "(1.000)", "[1]", "5.5",
                                "(0.478)"]
    assert lines[1].split() == ["BM_Write/manual_time", "raw_over_wall", "[0]", "23", "(1.000)",
                                "[1]", "11", "(0.478)"]
    assert f"[0] {old}" in result.stdout and f"[1] {new}" in result.stdout


def test_compare_builds_names_a_program_that_fails(tmp_path):
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho 'no such benchmark' >&2\nexit 2\n")
    broken.chmod(0o755)
    result = subprocess.run([sys.executable, str(SCRIPT), "--runs", "1", str(broken)],
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert str(broken) in result.stderr and "no such benchmark" in result.stderr


def test_compare_builds_keeps_one_program_named_twice_apart(tmp_path):
    # Runs in order: [0], [1], [1], [0]; the program reports 1, 10, 20, 3.
    program = fake_program(tmp_path, "same", [1.0, 10.0, 20.0, 3.0], tmp_path / "runs.log")
    result = subprocess.run([sys.executable, str(SCRIPT), "--runs", "2", str(program),
                             str(program)], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[0].split() == ["BM_Write/manual_time", "[0]", "2",
                                                     "(1.000)", "[1]", "15", "(7.500)"]
