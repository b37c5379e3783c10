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
CODEC_COLORS = {"none": "#ff7f0e", "lz4": "#1f77b4", "zstd": "#d62728"}


def load(path):
    with open(path) as file:
        return json.load(file)


# The suffix Google Benchmark adds to the name of a case timed manually or in real time.
TIMING_SUFFIX = re.compile(r"/(manual|real)_time$")


def medians(document):
    """Returns {run_name: entry} with the median of each benchmark (or its only run); a run
    name drops the timing suffix (BM_X/arg:1/manual_time is BM_X/arg:1)."""
    result = {}
    singles = {}
    for entry in document.get("benchmarks", []):
        run_name = TIMING_SUFFIX.sub("", entry.get("run_name", entry["name"]))
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
        if match and "vs_ipc_write" in entry:
            sweep.append((int(match.group(1)), entry))
    mixed = []
    for name, entry in runs.items():
        match = re.fullmatch(r"BM_WriteMixed/partitions:(\d+)/codec:0", name)
        if match and entry.get("suite") == "map_writer":
            mixed.append((int(match.group(1)), entry))
    # The paired ratios (BM_WriteMixedOver200: 200 and P partitions in each iteration), when
    # the run has them, replace the ratio of the two medians.
    paired = {}
    for name, entry in runs.items():
        match = re.fullmatch(r"BM_WriteMixedOver200/partitions:(\d+)", name)
        if match and entry.get("suite") == "map_writer" and "over_200_median" in entry:
            paired[int(match.group(1))] = entry["over_200_median"]
    if not sweep or baseline is None:
        return
    sweep.sort()
    mixed.sort()
    panels = 3 if mixed else 2
    figure, axes = plt.subplots(1, panels, figsize=(6.2 * panels, 4.8))

    axis = axes[0]
    counts = [count for count, _ in sweep]
    values = [entry["vs_ipc_write"] for _, entry in sweep]
    axis.plot(counts, values, "o-", color="#1f77b4", label="sluice write (hash, no codec)")
    axis.axhline(1.0, color="#555555", linestyle="--",
                 label=f"baseline = 1: unpartitioned IPC write ({seconds(baseline) * 1e3:,.0f} ms)")
    for (count, entry), value in zip(sweep, values):
        axis.annotate(f"{ratio_text(value)}\n{seconds(entry) * 1e3:,.0f} ms", (count, value),
                      textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
        ratios.append(("writer", f"{count} partitions, no codec", "unpartitioned IPC write", value))
    rows = baseline.get("rows", 0)
    axis.set_xscale("log")
    axis.set_ylim(0, max(values + [1.0]) * 1.35)
    axis.set_xlabel("partitions")
    axis.set_ylabel("time / unpartitioned IPC write")
    axis.set_title(f"Writer time vs partition count, {rows:,} lineitem rows\n"
                   "median of paired ratios (labels: ratio, median time)")
    axis.legend(loc="lower right", fontsize=8)
    axis.grid(alpha=0.3)

    axis = axes[1]
    shares = ["partition_share", "gather_share", "compress_share", "write_share"]
    labels = ["partitioning", "gathering", "compression", "writing"]
    colors = ["#9467bd", "#1f77b4", "#d62728", "#2ca02c"]
    positions = range(len(sweep))
    bottom = [0.0] * len(sweep)
    for share, label, color in zip(shares, labels, colors):
        parts = [entry.get(share, 0.0) * entry["vs_ipc_write"] for _, entry in sweep]
        axis.bar(positions, parts, bottom=bottom, label=label, color=color)
        bottom = [b + v for b, v in zip(bottom, parts)]
    other = [max(0.0, entry["vs_ipc_write"] - b) for (_, entry), b in zip(sweep, bottom)]
    axis.bar(positions, other, bottom=bottom, label="other (sort, commit)", color="#c7c7c7")
    axis.axhline(1.0, color="#555555", linestyle="--", label="unpartitioned IPC write = 1")
    axis.set_xticks(list(positions), [f"{count:,}" for count in counts])
    axis.set_xlabel("partitions")
    axis.set_ylabel("time / unpartitioned IPC write")
    axis.set_ylim(0, max(values + [1.0]) * 1.45)
    axis.set_title("Where the writer's time goes\n(phase shares from the writer's own metrics)")
    axis.legend(fontsize=8, loc="upper left", ncol=3)
    axis.grid(alpha=0.3, axis="y")

    if mixed:
        axis = axes[2]
        reference = dict(mixed).get(200, mixed[0][1])
        reference_time = seconds(reference)
        counts = [count for count, _ in mixed]
        values = [paired.get(count, seconds(entry) / reference_time) for count, entry in mixed]
        axis.plot(counts, values, "o-", color="#ff7f0e", label="map_writer: BM_WriteMixed")
        axis.axhline(1.0, color="#555555", linestyle="--",
                     label=f"baseline = 1: 200 partitions ({reference_time * 1e3:,.1f} ms)")
        for count, value in zip(counts, values):
            axis.annotate(ratio_text(value), (count, value), textcoords="offset points",
                          xytext=(0, 8), ha="center", fontsize=9)
            ratios.append(("map_writer", f"BM_WriteMixed {count} partitions", "200 partitions",
                           value))
        axis.set_xscale("log")
        axis.set_ylim(0, max(values + [1.0]) * 1.3)
        axis.set_xlabel("partitions")
        axis.set_ylabel("time / time at 200 partitions")
        how = "median of paired ratios" if paired else "ratio of medians"
        axis.set_title(f"Mixed batches (map_writer_benchmark)\n{how} to 200 partitions")
        axis.legend(loc="lower right", fontsize=8)
        axis.grid(alpha=0.3)
    save(figure, output, "writer_partitions.png", written)


def relative_bars(axis, groups, series, title, ylabel):
    """Bars per group: series is [(label, color or None for the group's color)], and each group
    is (name, color, [(value, annotation)] in series order)."""
    width = 0.8 / len(series)
    for index, (name, group_color, values) in enumerate(groups):
        for position, ((label, color), (value, note)) in enumerate(zip(series, values)):
            x = index - 0.4 + width * (position + 0.5)
            axis.bar(x, value, width, color=color or group_color,
                     label=label if index == 0 else None)
            axis.annotate(note, (x, value), textcoords="offset points", xytext=(0, 3),
                          ha="center", fontsize=8)
    axis.set_xticks(range(len(groups)), [group[0] for group in groups])
    axis.axhline(1.0, color="#555555", linestyle="--", linewidth=0.8)
    axis.set_ylabel(ylabel)
    axis.set_title(title)
    axis.legend(fontsize=8, loc="upper right")
    axis.grid(alpha=0.3, axis="y")
    top = max(patch.get_height() for patch in axis.patches)
    axis.set_ylim(0, top * 1.45)


def plot_codec_throughput(runs, output, written, ratios):
    e2e = end_to_end(runs)
    groups = []
    for codec in ("lz4", "zstd"):
        write = e2e.get(f"end_to_end/write/partitions:200/codec:{codec}")
        raw = e2e.get(f"end_to_end/raw_compress/codec:{codec}")
        if write is None or raw is None or "writer_vs_raw" not in raw:
            continue
        input_bytes = raw.get("input_bytes", 0)
        rate = lambda ratio: input_bytes / (seconds(raw) * ratio) / MIB if ratio > 0 else 0
        cost, whole = raw["codec_cost_vs_raw"], raw["writer_vs_raw"]
        groups.append((codec, CODEC_COLORS.get(codec, "#1f77b4"), [
            (1.0, f"1.00\n{rate(1.0):,.0f} MiB/s"),
            (1 / cost if cost > 0 else 0, f"{1 / cost:.2f}\n{rate(cost):,.0f} MiB/s"
             if cost > 0 else "n/a"),
            (1 / whole, f"{1 / whole:.2f}\n{rate(whole):,.0f} MiB/s"),
        ]))
        ratios.append(("codec", f"{codec}: the writer's codec time (write - write without codec)",
                       "raw codec on the same buffers", cost))
        ratios.append(("codec", f"{codec}: whole write, 200 partitions",
                       "raw codec on the same buffers", whole))
    mixed_groups = []
    mixed_none = runs.get("BM_WriteMixed/partitions:200/codec:0")
    for number, codec in ((1, "lz4"), (2, "zstd")):
        write = runs.get(f"BM_WriteMixed/partitions:200/codec:{number}")
        raw = runs.get(f"BM_RawCodecSameBytes/codec:{number}")
        if mixed_none is None or write is None or raw is None:
            continue
        cost = (seconds(write) - seconds(mixed_none)) / seconds(raw)
        whole = seconds(write) / seconds(raw)
        # The paired measurement (each write followed by the raw codec), when the run has it.
        paired = runs.get(f"BM_WriteMixedBesideRaw/partitions:200/codec:{number}/"
                          "compression_threads:0", {}).get("raw_over_wall", 0)
        if paired > 0:
            whole = 1 / paired
        mixed_groups.append((codec, CODEC_COLORS.get(codec, "#1f77b4"), [
            (1.0, "1.00"),
            (1 / cost if cost > 0 else 0, f"{1 / cost:.2f}" if cost > 0 else "n/a"),
            (1 / whole, f"{1 / whole:.2f}"),
        ]))
        ratios.append(("map_writer", f"{codec}: the writer's codec time (write - write without "
                       "codec), mixed batches", "raw codec on the same buffers", cost))
        ratios.append(("map_writer", f"{codec}: whole write, mixed batches",
                       "raw codec on the same buffers", whole))
    panels = [panel for panel in (groups, mixed_groups) if panel]
    if not panels:
        return
    series = [("raw codec on the same buffers (baseline = 1)", "#555555"),
              ("the writer's codec share (write - write without codec)", None),
              ("the whole writer with the codec, 200 partitions", "#aec7e8")]
    figure, axes = plt.subplots(1, len(panels), figsize=(8.5 * len(panels), 5.2), squeeze=False)
    column = 0
    if groups:
        rows = e2e.get("end_to_end/ipc_write", {}).get("rows", 0)
        relative_bars(axes[0][column], groups, series,
                      f"Compression throughput against the raw codec, {rows:,} lineitem rows\n"
                      "median of paired ratios; 1.00 = no overhead", "throughput / raw codec")
        column += 1
    if mixed_groups:
        relative_bars(axes[0][column], mixed_groups, series,
                      "The same on mixed batches (map_writer_benchmark)\nratio of medians",
                      "throughput / raw codec")
    save(figure, output, "codec_throughput.png", written)


def plot_decode_overhead(runs, output, written, ratios):
    e2e = end_to_end(runs)
    groups = []
    for codec in ("none", "lz4", "zstd"):
        read = e2e.get(f"end_to_end/read/partitions:200/codec:{codec}")
        key = "vs_raw_copy" if codec == "none" else "vs_raw_decompress"
        baseline = e2e.get("end_to_end/raw_copy" if codec == "none"
                           else f"end_to_end/raw_decompress/codec:{codec}")
        if read is None or baseline is None or key not in read:
            continue
        value = read[key]
        groups.append((codec, CODEC_COLORS.get(codec, "#1f77b4"), [
            (1.0, f"1.00\n{seconds(baseline) * 1e3:,.0f} ms"),
            (value, f"{value:.2f}\n{seconds(read) * 1e3:,.0f} ms"),
        ]))
        ratios.append(("reader", f"read 200 partitions, {codec}",
                       "memcpy of the file" if codec == "none" else "raw decompression", value))
    if not groups:
        return
    figure, axis = plt.subplots(figsize=(8.5, 5.0))
    relative_bars(axis, groups,
                  [("baseline = 1: memcpy of the file (none), raw decompression (codecs)",
                    "#555555"),
                   ("PartitionReader over all 200 partitions", None)],
                  "Decode overhead: reading a map output against its baseline\n"
                  "median of paired ratios (labels: ratio, median time)", "time / baseline")
    save(figure, output, "decode_overhead.png", written)


def plot_memory_timeline(document, output, written, ratios):
    timelines = document.get("memory_timelines", [])
    if not timelines:
        return
    timeline = timelines[0]
    baseline = timeline["baseline_rss_bytes"]
    budget = timeline["budget_bytes"] / MIB
    figure, axis = plt.subplots(figsize=(9, 4.8))
    times = [sample[0] for sample in timeline["samples"]]
    above = [(sample[1] - baseline) / MIB for sample in timeline["samples"]]
    axis.plot(times, above, color="#1f77b4", label="resident memory above the start (5 ms samples)")
    if timeline.get("held"):
        held_times = [sample[0] for sample in timeline["held"]]
        held = [sample[1] / MIB for sample in timeline["held"]]
        axis.step(held_times, held, where="post", color="#2ca02c", linewidth=1,
                  label="input held by the writer (charged to the budget)")
    axis.axhline(budget, color="#d62728", linestyle="--", label=f"memory budget ({budget:.0f} MiB)")
    peak = max(above)
    axis.text(0.02, 0.96, f"peak {peak:.0f} MiB above the start = {peak / budget:.2f}x the budget;"
              f" {timeline['spills']} spills", transform=axis.transAxes, fontsize=9, va="top")
    ratios.append(("memory", f"peak resident memory above the start ({timeline['spills']} "
                   "spills)", "the memory budget", peak / budget))
    axis.set_xlabel("seconds")
    axis.set_ylabel("MiB")
    axis.set_ylim(min(0, min(above)), max(above + [budget]) * 1.5)
    title = timeline["name"].replace("end_to_end/", "")
    axis.set_title(f"Memory over time: {title}\n(batches made as the writer takes them)")
    axis.legend(fontsize=8, loc="upper right")
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
