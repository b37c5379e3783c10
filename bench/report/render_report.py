#!/usr/bin/env python3
"""Renders the benchmark report of `sluice bench`: PNG figures and report.md.

    python3 bench/report/render_report.py results.json --output DIR

results.json is the merged Google Benchmark JSON that `sluice bench --json` writes: every entry
carries the "suite" it came from; the end_to_end suite's entries and the "memory_timelines" list
are Sluice's own. Every figure states its measurements as ratios to a baseline measured in the
same run (the baselines are named in each figure), because absolute times on a shared machine
mean little and ratios travel.

Figures (each written only when its data is in the JSON):
  writer_partitions.png   MapWriter time against partition count, with the unpartitioned IPC
                          write as the baseline, and where the time goes
  codec_throughput.png    writer throughput per codec against the raw codec on the same buffers
  decode_overhead.png     PartitionReader time against raw decompression (or memcpy)
  memory_timeline.png     resident memory above the start during a write with a small budget
  suite_<name>.png        each benchmark program's ratio counters (vs_raw, x_memcpy, ...) or,
                          lacking them, its throughput
"""

import argparse
import json
import math
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

MIB = 1 << 20
# Counters that are ratios to a baseline measured in the same run, by the programs' conventions.
RATIO_COUNTER = re.compile(r"^(vs_.*|.*_vs_.*|x_.*)$")
CODEC_COLORS = {"none": "#ff7f0e", "lz4": "#1f77b4", "zstd": "#d62728", "snappy": "#2ca02c"}


def load(path):
    with open(path) as file:
        return json.load(file)


def medians(document):
    """Returns {run_name: entry} with the median of each benchmark (or its only run)."""
    result = {}
    singles = {}
    for entry in document.get("benchmarks", []):
        run_name = entry.get("run_name", entry["name"])
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                result[run_name] = entry
        elif entry.get("run_type", "iteration") == "iteration":
            singles.setdefault(run_name, entry)
    for run_name, entry in singles.items():
        result.setdefault(run_name, entry)
    return result


def seconds(entry):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry.get("time_unit", "ns")]
    return entry["real_time"] * scale


def ratio_text(value):
    return f"{value:.2f}x" if value < 10 else f"{value:.1f}x"


def save(figure, output, name, written):
    path = output / name
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    written.append(name)


def end_to_end(runs):
    return {name: entry for name, entry in runs.items() if entry.get("suite") == "end_to_end"}


def plot_writer_partitions(runs, output, written, ratios):
    e2e = end_to_end(runs)
    baseline = e2e.get("end_to_end/ipc_write")
    sweep = []
    for name, entry in e2e.items():
        match = re.fullmatch(r"end_to_end/write/partitions:(\d+)/codec:none", name)
        if match:
            sweep.append((int(match.group(1)), entry))
    mixed = []
    for name, entry in runs.items():
        match = re.fullmatch(r"BM_WriteMixed/partitions:(\d+)/codec:0", name)
        if match and entry.get("suite") == "map_writer":
            mixed.append((int(match.group(1)), entry))
    if not sweep or baseline is None:
        return
    sweep.sort()
    mixed.sort()
    base = seconds(baseline)
    panels = 3 if mixed else 2
    figure, axes = plt.subplots(1, panels, figsize=(6.2 * panels, 4.8))

    axis = axes[0]
    counts = [count for count, _ in sweep]
    times = [seconds(entry) * 1e3 for _, entry in sweep]
    axis.plot(counts, times, "o-", color="#1f77b4", label="sluice write (hash, no codec)")
    axis.axhline(base * 1e3, color="#555555", linestyle="--",
                 label="baseline: unpartitioned IPC write")
    for count, time in zip(counts, times):
        value = time / 1e3 / base
        axis.annotate(ratio_text(value), (count, time), textcoords="offset points",
                      xytext=(0, 8), ha="center", fontsize=9)
        ratios.append(("writer", f"{count} partitions, no codec", "unpartitioned IPC write", value))
    rows = baseline.get("rows", 0)
    axis.set_xscale("log")
    axis.set_ylim(0, max(times + [base * 1e3]) * 1.25)
    axis.set_xlabel("partitions")
    axis.set_ylabel("median time (ms)")
    axis.set_title(f"Writer time vs partition count\n{rows:,} lineitem rows; labels: x baseline")
    axis.legend(loc="lower right", fontsize=8)
    axis.grid(alpha=0.3)

    axis = axes[1]
    shares = ["partition_share", "gather_share", "compress_share", "write_share"]
    labels = ["partitioning", "gathering", "compression", "writing"]
    colors = ["#9467bd", "#1f77b4", "#d62728", "#2ca02c"]
    positions = range(len(sweep))
    bottom = [0.0] * len(sweep)
    for share, label, color in zip(shares, labels, colors):
        values = [entry.get(share, 0.0) * seconds(entry) / base for _, entry in sweep]
        axis.bar(positions, values, bottom=bottom, label=label, color=color)
        bottom = [b + v for b, v in zip(bottom, values)]
    totals = [seconds(entry) / base for _, entry in sweep]
    other = [t - b for t, b in zip(totals, bottom)]
    axis.bar(positions, [max(0.0, o) for o in other], bottom=bottom, label="other (sort, commit)",
             color="#c7c7c7")
    axis.axhline(1.0, color="#555555", linestyle="--", label="unpartitioned IPC write = 1")
    axis.set_xticks(list(positions), [f"{count:,}" for count in counts])
    axis.set_xlabel("partitions")
    axis.set_ylabel("time / unpartitioned IPC write")
    axis.set_ylim(0, max(totals + [1.0]) * 1.45)
    axis.set_title("Where the writer's time goes\n(phase shares from the writer's metrics)")
    axis.legend(fontsize=8, loc="upper left", ncol=3)
    axis.grid(alpha=0.3, axis="y")

    if mixed:
        axis = axes[2]
        reference = dict(mixed).get(200, mixed[0][1])
        reference_time = seconds(reference)
        counts = [count for count, _ in mixed]
        values = [seconds(entry) / reference_time for _, entry in mixed]
        axis.plot(counts, values, "o-", color="#ff7f0e", label="map_writer: BM_WriteMixed")
        axis.axhline(1.0, color="#555555", linestyle="--", label="baseline: 200 partitions")
        for count, value in zip(counts, values):
            axis.annotate(ratio_text(value), (count, value), textcoords="offset points",
                          xytext=(0, 8), ha="center", fontsize=9)
            ratios.append(("map_writer", f"BM_WriteMixed {count} partitions", "200 partitions",
                           value))
        axis.set_xscale("log")
        axis.set_ylim(0, max(values + [1.0]) * 1.3)
        axis.set_xlabel("partitions")
        axis.set_ylabel("time / time at 200 partitions")
        axis.set_title("Mixed batches (map_writer_benchmark)\nratio to 200 partitions")
        axis.legend(loc="lower right", fontsize=8)
        axis.grid(alpha=0.3)
    save(figure, output, "writer_partitions.png", written)


def codec_bars(axis, groups, input_bytes, title, ratios, area):
    """Draws raw codec / codec share / whole writer bars for each (codec, none, write, raw)."""
    width = 0.26
    for index, (codec, none, write, raw) in enumerate(groups):
        raw_rate = input_bytes / seconds(raw) / MIB
        codec_seconds = seconds(write) - seconds(none)
        cost_rate = input_bytes / codec_seconds / MIB if codec_seconds > 0 else float("nan")
        write_rate = input_bytes / seconds(write) / MIB
        bars = [
            (index - width, raw_rate, "raw codec, same buffers (baseline)", "#555555", None),
            (index, cost_rate, "codec share of the writer (write - write without codec)",
             CODEC_COLORS.get(codec, "#1f77b4"), raw_rate),
            (index + width, write_rate, "whole writer with the codec, 200 partitions", "#aec7e8",
             raw_rate),
        ]
        for position, value, label, color, reference in bars:
            axis.bar(position, value, width, color=color, label=label if index == 0 else None)
            if reference and not math.isnan(value):
                axis.annotate(ratio_text(value / reference), (position, value),
                              textcoords="offset points", xytext=(0, 4), ha="center",
                              fontsize=9)
        ratios.append((area, f"{codec}: the writer's codec time (write - write without codec)",
                       "raw codec on the same buffers", codec_seconds / seconds(raw)))
        ratios.append((area, f"{codec}: whole write, 200 partitions",
                       "raw codec on the same buffers", seconds(write) / seconds(raw)))
    axis.set_xticks(range(len(groups)), [group[0] for group in groups])
    axis.set_ylabel("input MiB/s")
    axis.set_title(title)
    axis.legend(fontsize=8, loc="upper right")
    axis.grid(alpha=0.3, axis="y")
    heights = [patch.get_height() for patch in axis.patches if not math.isnan(patch.get_height())]
    axis.set_ylim(0, max(heights) * 1.35)


def plot_codec_throughput(runs, output, written, ratios):
    e2e = end_to_end(runs)
    none = e2e.get("end_to_end/write/partitions:200/codec:none")
    groups = []
    for codec in ("lz4", "zstd", "snappy"):
        write = e2e.get(f"end_to_end/write/partitions:200/codec:{codec}")
        raw = e2e.get(f"end_to_end/raw_compress/codec:{codec}")
        if none is not None and write is not None and raw is not None:
            groups.append((codec, none, write, raw))
    # map_writer_benchmark measures the same on mixed batches (codec 1 = lz4, 2 = zstd).
    mixed_groups = []
    mixed_none = runs.get("BM_WriteMixed/partitions:200/codec:0")
    for number, codec in ((1, "lz4"), (2, "zstd")):
        write = runs.get(f"BM_WriteMixed/partitions:200/codec:{number}")
        raw = runs.get(f"BM_RawCodecSameBytes/codec:{number}")
        if mixed_none is not None and write is not None and raw is not None:
            mixed_groups.append((codec, mixed_none, write, raw))
    panels = [panel for panel in (groups, mixed_groups) if panel]
    if not panels:
        return
    figure, axes = plt.subplots(1, len(panels), figsize=(8.5 * len(panels), 5.2), squeeze=False)
    column = 0
    if groups:
        rows = none.get("rows", 0)
        codec_bars(axes[0][column], groups, none.get("input_bytes", 0),
                   f"Compression: sluice write against the raw codec\n{rows:,} lineitem rows; "
                   "labels: throughput / raw codec (1.00x = no overhead)", ratios, "codec")
        column += 1
    if mixed_groups:
        # The mixed input's bytes: the rate times the time of any of its runs.
        reference = mixed_groups[0][1]
        input_bytes = reference.get("bytes_per_second", 0) * seconds(reference)
        codec_bars(axes[0][column], mixed_groups, input_bytes,
                   "Compression on mixed batches (map_writer_benchmark)\n"
                   "labels: throughput / raw codec", ratios, "map_writer")
    save(figure, output, "codec_throughput.png", written)


def plot_decode_overhead(runs, output, written, ratios):
    e2e = end_to_end(runs)
    pairs = []
    for codec in ("none", "lz4", "zstd", "snappy"):
        read = e2e.get(f"end_to_end/read/partitions:200/codec:{codec}")
        baseline = e2e.get("end_to_end/raw_copy" if codec == "none"
                           else f"end_to_end/raw_decompress/codec:{codec}")
        if read is not None and baseline is not None:
            pairs.append((codec, read, baseline))
    if not pairs:
        return
    figure, axis = plt.subplots(figsize=(8.5, 4.8))
    width = 0.36
    for index, (codec, read, baseline) in enumerate(pairs):
        base_ms = seconds(baseline) * 1e3
        read_ms = seconds(read) * 1e3
        axis.bar(index - width / 2, base_ms, width, color="#555555",
                 label="baseline: memcpy of the file (none) / raw decompression" if index == 0
                 else None)
        axis.bar(index + width / 2, read_ms, width, color=CODEC_COLORS.get(codec, "#1f77b4"),
                 label="PartitionReader, all 200 partitions" if index == 0 else None)
        value = read_ms / base_ms
        axis.annotate(ratio_text(value), (index + width / 2, read_ms), textcoords="offset points",
                      xytext=(0, 4), ha="center", fontsize=9)
        ratios.append(("reader", f"read 200 partitions, {codec}",
                       "memcpy of the file" if codec == "none" else "raw decompression", value))
    axis.set_xticks(range(len(pairs)), [codec for codec, _, _ in pairs])
    axis.set_ylabel("median time (ms)")
    axis.set_title("Decode overhead: reading a map output against its baseline\n"
                   "labels: read time / baseline time")
    axis.legend(fontsize=8, loc="upper left")
    axis.grid(alpha=0.3, axis="y")
    top = max(patch.get_height() for patch in axis.patches)
    axis.set_ylim(0, top * 1.25)
    save(figure, output, "decode_overhead.png", written)


def plot_memory_timeline(document, output, written, ratios):
    timelines = document.get("memory_timelines", [])
    if not timelines:
        return
    figure, axis = plt.subplots(figsize=(8.5, 4.8))
    for timeline in timelines:
        baseline = timeline["baseline_rss_bytes"]
        times = [sample[0] for sample in timeline["samples"]]
        above = [(sample[1] - baseline) / MIB for sample in timeline["samples"]]
        budget = timeline["budget_bytes"] / MIB
        peak = max(above)
        axis.plot(times, above, color="#1f77b4", label="resident memory above the start")
        axis.axhline(budget, color="#d62728", linestyle="--",
                     label=f"memory budget ({budget:.0f} MiB)")
        reserved = timeline.get("peak_reserved_bytes", 0) / MIB
        if reserved > 0:
            axis.axhline(reserved, color="#2ca02c", linestyle=":",
                         label=f"writer's peak reservation ({reserved:.0f} MiB)")
        axis.text(0.02, 0.95, f"peak {peak:.0f} MiB above the start = {peak / budget:.2f}x the "
                  f"budget; {timeline['spills']} spills", transform=axis.transAxes, fontsize=9,
                  va="top")
        ratios.append(("memory", f"peak resident memory above the start, {timeline['spills']} "
                       "spills", "the memory budget", peak / budget))
        title = timeline["name"].replace("end_to_end/", "")
    axis.set_xlabel("seconds")
    axis.set_ylabel("MiB")
    axis.set_ylim(min(0, axis.get_ylim()[0]), axis.get_ylim()[1] * 1.15)
    axis.set_title(f"Memory over time: {title}\n(the input batches are resident before the start)")
    axis.legend(fontsize=8, loc="lower right")
    axis.grid(alpha=0.3)
    save(figure, output, "memory_timeline.png", written)


def memcpy_baseline(name, runs_by_name):
    """The memcpy benchmark a benchmark is measured against, by the programs' naming: the
    baseline of "Compress/lz4/utf8_values" is "Memcpy/utf8_values", that of "Checksum/CRC32" is
    "Checksum/memcpy"."""
    parts = name.split("/")
    for candidate in ("Memcpy/" + parts[-1], parts[0] + "/memcpy"):
        if candidate != name and candidate in runs_by_name:
            return candidate
    return None


def plot_suite(suite, entries, output, written, ratios):
    """One figure per benchmark program: its ratios to baselines measured in the same run (its
    own ratio counters, or its throughput against its memcpy benchmark), else its throughput."""
    by_name = dict(entries)
    ratio_rows = []
    for name, entry in entries:
        for key, value in entry.items():
            if RATIO_COUNTER.match(key) and isinstance(value, (int, float)):
                ratio_rows.append((f"{name}  [{key}]", float(value)))
                ratios.append((suite, name, key, float(value)))
        baseline = memcpy_baseline(name, by_name)
        if baseline is not None and "bytes_per_second" in entry:
            base_rate = by_name[baseline].get("bytes_per_second")
            if base_rate:
                value = entry["bytes_per_second"] / base_rate
                ratio_rows.append((f"{name}  [throughput / {baseline}]", value))
                ratios.append((suite, name, f"throughput / {baseline}", value))
    if ratio_rows:
        rows, xlabel, reference = ratio_rows, "ratio to the benchmark's baseline (log)", 1.0
        title = f"{suite}_benchmark: ratios to baselines measured in the same run"
    else:
        rows = []
        for name, entry in entries:
            rate = entry.get("bytes_per_second") or entry.get("items_per_second")
            if rate:
                rows.append((name, rate / (MIB if "bytes_per_second" in entry else 1e6)))
        unit = "MiB/s" if any("bytes_per_second" in entry for _, entry in entries) else "M items/s"
        xlabel, reference = f"throughput ({unit}, log)", None
        title = f"{suite}_benchmark: throughput (median; no baseline in this suite)"
        if not rows:
            return
    rows = rows[:60]  # a readable figure; report.md lists everything
    height = max(3.0, 0.24 * len(rows) + 1.2)
    figure, axis = plt.subplots(figsize=(11, height))
    labels = [label if len(label) < 75 else label[:72] + "..." for label, _ in rows]
    values = [value for _, value in rows]
    positions = list(range(len(rows)))[::-1]
    axis.barh(positions, values, color="#1f77b4")
    for position, value in zip(positions, values):
        if value > 0:
            axis.annotate(f"{value:.3g}", (value, position), textcoords="offset points",
                          xytext=(3, -3), fontsize=7)
    if reference is not None:
        axis.axvline(reference, color="#d62728", linestyle="--", label="baseline = 1")
        axis.legend(fontsize=8, loc="lower right")
    axis.set_yticks(positions, labels, fontsize=7)
    if all(value > 0 for value in values):
        axis.set_xscale("log")
    axis.set_xlabel(xlabel)
    axis.set_title(title, fontsize=10)
    axis.grid(alpha=0.3, axis="x")
    save(figure, output, f"suite_{suite}.png", written)


def write_markdown(document, runs, ratios, written, output):
    context = document.get("context", {})
    sluice = context.get("sluice", {})
    lines = ["# Benchmark report", ""]
    lines.append(f"Run {context.get('date', '')} on {context.get('host_name', '')}: "
                 f"{context.get('num_cpus', '?')} CPUs ({sluice.get('cpu_model', 'unknown')}), "
                 f"{sluice.get('memory_bytes', 0) / (1 << 30):.1f} GiB memory; "
                 f"{sluice.get('repetitions', '?')} repetitions, medians shown"
                 f"{', quick mode' if sluice.get('quick') else ''}.")
    load_average = context.get("load_avg")
    if load_average:
        lines.append(f"Load average at the start: {', '.join(f'{v:.1f}' for v in load_average)}.")
    lines += ["", "| suite | benchmarks | seconds | status |", "|---|---:|---:|---|"]
    for suite in sluice.get("suites", []):
        status = "ok" if "problem" not in suite else "failed: " + suite["problem"]
        lines.append(f"| {suite['name']} | {suite['benchmarks']} | {suite['seconds']:.1f} | "
                     f"{status} |")
    lines += ["", "## Figures", ""]
    for name in written:
        lines.append(f"![{name}]({name})")
        lines.append("")
    lines += ["## Ratios to baselines measured in the same run", "",
              "| area | measurement | baseline | ratio |", "|---|---|---|---:|"]
    for area, what, baseline, value in ratios:
        lines.append(f"| {area} | {what} | {baseline} | {value:.3g} |")
    lines.append("")
    (output / "report.md").write_text("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", help="the merged JSON written by `sluice bench --json`")
    parser.add_argument("--output", required=True, help="directory for the PNGs and report.md")
    arguments = parser.parse_args()
    try:
        document = load(arguments.results)
    except (OSError, ValueError) as error:
        print(f"render_report: error: {arguments.results}: {error}", file=sys.stderr)
        return 1
    output = pathlib.Path(arguments.output)
    output.mkdir(parents=True, exist_ok=True)
    runs = medians(document)
    written = []
    ratios = []
    plot_writer_partitions(runs, output, written, ratios)
    plot_codec_throughput(runs, output, written, ratios)
    plot_decode_overhead(runs, output, written, ratios)
    plot_memory_timeline(document, output, written, ratios)
    suites = {}
    for name, entry in runs.items():
        suite = entry.get("suite", "unknown")
        if suite != "end_to_end":
            suites.setdefault(suite, []).append((name, entry))
    for suite in sorted(suites):
        plot_suite(suite, suites[suite], output, written, ratios)
    write_markdown(document, runs, ratios, written, output)
    print(f"render_report: {len(written)} figures and report.md in {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
