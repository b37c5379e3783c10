#!/usr/bin/env python3
"""Compares builds of one benchmark program, run in turn, by the median of each measurement.

    python3 bench/report/compare_builds.py --filter 'BM_WriteMixed/partitions:200' --runs 8 \\
        before/bench/map_writer_benchmark build/bench/map_writer_benchmark

On a shared machine one program's timings drift by tens of percent from minute to minute, so two
builds timed an hour apart cannot be compared. This runs the programs alternately, `--runs`
rounds, reversing the order every round (the first of a round tends to find the machine
quieter), and prints for every benchmark the median real time and the median of each counter
named with --counter, per program, with its ratio to the first program's. Each program is run
with --benchmark_filter, --benchmark_min_time and --benchmark_format=json, so it must be a
Google Benchmark program.
"""

import argparse
import collections
import json
import statistics
import subprocess
import sys

DEFAULT_COUNTERS = ("raw_over_wall", "raw_over_wall_median", "over_200_median",
                    "above_raw_median_ns", "vs_raw")


def run_once(program, benchmark_filter, min_time):
    result = subprocess.run(
        [program, f"--benchmark_filter={benchmark_filter}", f"--benchmark_min_time={min_time}",
         "--benchmark_format=json"],
        capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"compare_builds: {program} exited with {result.returncode}:\n{result.stderr}")
    return json.loads(result.stdout)["benchmarks"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="+", help="builds of one benchmark program; the "
                        "first is the baseline of the ratios")
    parser.add_argument("--filter", default=".", help="--benchmark_filter for every run")
    parser.add_argument("--runs", type=int, default=6, help="rounds (default 6)")
    parser.add_argument("--min-time", default="0.5", help="--benchmark_min_time (default 0.5)")
    parser.add_argument("--counter", action="append", default=None,
                        help="a counter to report beside the time (repeatable; default: "
                        + ", ".join(DEFAULT_COUNTERS) + " where present)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    counters = args.counter or DEFAULT_COUNTERS

    # values[measurement][program index] = one value per round (by index: a program may be
    # named twice, to see how far two runs of one build differ)
    values = collections.defaultdict(lambda: collections.defaultdict(list))
    order = []  # measurements, in the order the first run reported them
    indices = list(range(len(args.programs)))
    for round_index in range(args.runs):
        for index in indices if round_index % 2 == 0 else indices[::-1]:
            for entry in run_once(args.programs[index], args.filter, args.min_time):
                if entry.get("run_type", "iteration") != "iteration":
                    continue
                measurements = [(entry["name"], entry["real_time"])]
                measurements += [(f"{entry['name']} {counter}", entry[counter])
                                 for counter in counters if counter in entry]
                for name, value in measurements:
                    if name not in values:
                        order.append(name)
                    values[name][index].append(value)

    width = max((len(name) for name in order), default=0)
    for name in order:
        per_program = values[name]
        baseline = statistics.median(per_program.get(0) or [0.0])
        cells = []
        for index in indices:
            runs = per_program.get(index)
            if not runs:
                cells.append(f"[{index}] -")
                continue
            median = statistics.median(runs)
            ratio = f" ({median / baseline:.3f})" if baseline else ""
            cells.append(f"[{index}] {median:.4g}{ratio}")
        print(f"{name.ljust(width)}  " + "  ".join(cells))
    print("\n" + "\n".join(f"[{index}] {program}" for index, program in enumerate(args.programs)))


if __name__ == "__main__":
    main()
