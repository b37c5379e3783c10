#!/usr/bin/env python3
"""The Spark benchmark: the same queries on the same Parquet data under Spark's own sort shuffle,
Sluice, and Apache DataFusion Comet's native and JVM shuffles, interleaved, on a real
local-cluster; a report of medians under bench/results/spark/.

    python3 bench/spark/spark_bench.py --jar build/sluice-spark.jar --comet-jar JAR \\
        [--rows 10000000] [--rounds 3] [--queries q1,q2] [--configs spark,sluice] [--output DIR]

`make spark-bench` runs it with the defaults (and SPARK_BENCH_ARGS). Nothing is downloaded at
query time: the data is generated locally (`sluice generate lineitem`, then Parquet through
pyarrow, cached under build/spark-bench/data), Comet's jar comes from Maven Central through
bench/spark/pom.xml.

Each round starts one Spark application per configuration (a shuffle manager is fixed for an
application's life), runs a warm-up, then every query in the same order; the configurations take
turns within each round, so a slow spell of the machine falls on all of them. For every query
run it records the wall time, the executor CPU and run time of its stages, shuffle bytes written
and read, spill, per-stage task medians (run, CPU, deserialization, GC) and totals, and a
fingerprint of the result (equal under every configuration, or the report says so).
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]

# sluice_rows: Sluice with its columnar path off (spark.sluice.columnar.enabled=false), every
# exchange on the row path, as before the columnar path existed.
CONFIGS = ["spark", "sluice", "sluice_rows", "comet_native", "comet_jvm"]
# Another build of the plugin (--baseline-jar), for before/after comparisons in one run.
BASELINE = "sluice_baseline"


# --- data -------------------------------------------------------------------------------------

def generate_data(cli, rows, directory, files=8):
    """lineitem (`sluice generate`, in `files` Parquet files, one map task each), orders,
    customer, nation and region derived from it; cached by row count."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    target = pathlib.Path(directory) / f"rows_{rows}"
    marker = target / "COMPLETE"
    if marker.exists():
        _write_nested_lineitem(target)  # caches made before the table existed lack it
        return target
    target.mkdir(parents=True, exist_ok=True)
    stream = target / "lineitem.arrow"
    subprocess.run([cli, "generate", "lineitem", "--rows", str(rows), "--output", str(stream)],
                   check=True, stdout=subprocess.DEVNULL)
    table = pa.ipc.open_stream(pa.memory_map(str(stream))).read_all()
    lineitem = target / "lineitem"
    lineitem.mkdir(exist_ok=True)
    per_file = (rows + files - 1) // files
    for i in range(files):
        pq.write_table(table.slice(i * per_file, per_file), lineitem / f"part-{i:03d}.parquet",
                       compression="snappy")
    orderkeys = pc.unique(table.column("l_orderkey")).sort()
    n_orders = len(orderkeys)
    customers = max(1, n_orders // 10)
    orders = pa.table({
        "o_orderkey": orderkeys,
        "o_custkey": pa.array([(i * 7919) % customers for i in range(n_orders)], pa.int64()),
        "o_orderpriority": pa.array([f"{i % 5 + 1}-PRIORITY" for i in range(n_orders)]),
        "o_totalprice": pa.array([(i % 65536) * 1.5 for i in range(n_orders)], pa.float64()),
    })
    (target / "orders").mkdir(exist_ok=True)
    pq.write_table(orders, target / "orders" / "part-000.parquet", compression="snappy")
    customer = pa.table({
        "c_custkey": pa.array(range(customers), pa.int64()),
        "c_nationkey": pa.array([i % 25 for i in range(customers)], pa.int64()),
        "c_name": pa.array([f"Customer#{i:09d}" for i in range(customers)]),
    })
    (target / "customer").mkdir(exist_ok=True)
    pq.write_table(customer, target / "customer" / "part-000.parquet")
    nation = pa.table({
        "n_nationkey": pa.array(range(25), pa.int64()),
        "n_regionkey": pa.array([i % 5 for i in range(25)], pa.int64()),
        "n_name": pa.array([f"NATION{i:02d}" for i in range(25)]),
    })
    (target / "nation").mkdir(exist_ok=True)
    pq.write_table(nation, target / "nation" / "part-000.parquet")
    region = pa.table({"r_regionkey": pa.array(range(5), pa.int64()),
                       "r_name": pa.array(["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"])})
    (target / "region").mkdir(exist_ok=True)
    pq.write_table(region, target / "region" / "part-000.parquet")
    stream.unlink()
    _write_nested_lineitem(target)
    marker.write_text(f"{rows}\n")
    return target


def _write_nested_lineitem(target):
    """lineitem_nested: lineitem's columns in structs, a list and a map, one Parquet file per
    lineitem file (so as many map tasks), for the query whose exchange carries nested columns."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    nested = target / "lineitem_nested"  # its marker starts with _, which Spark skips
    if (nested / "_COMPLETE").exists():
        return
    nested.mkdir(exist_ok=True)
    for source in sorted((target / "lineitem").glob("*.parquet")):
        t = pq.read_table(source)
        n = t.num_rows
        part = pa.StructArray.from_arrays(
            [t["l_partkey"].combine_chunks(), t["l_suppkey"].combine_chunks(),
             t["l_linenumber"].combine_chunks()], names=["partkey", "suppkey", "linenumber"])
        dates = pa.StructArray.from_arrays(
            [t[c].combine_chunks() for c in ("l_shipdate", "l_commitdate", "l_receiptdate")],
            names=["ship", "commit", "receipt"])
        # amounts: [quantity, extendedprice, discount, tax] of each row, as doubles.
        offsets, values = _row_by_row([pc.cast(t[c], pa.float64()).combine_chunks()
                                       for c in ("l_quantity", "l_extendedprice", "l_discount",
                                                 "l_tax")])
        amounts = pa.ListArray.from_arrays(offsets, values)
        # flags: returnflag, linestatus and shipmode by name.
        offsets, values = _row_by_row([t[c].combine_chunks()
                                       for c in ("l_returnflag", "l_linestatus", "l_shipmode")])
        keys = pa.array(["returnflag", "linestatus", "shipmode"] * n)
        flags = pa.MapArray.from_arrays(offsets, keys, values)
        table = pa.table({"l_orderkey": t["l_orderkey"], "part": part, "dates": dates,
                          "amounts": amounts, "flags": flags, "l_comment": t["l_comment"]})
        pq.write_table(table, nested / source.name, compression="snappy")
    (nested / "_COMPLETE").write_text("\n")


def _row_by_row(columns):
    """The values of equally long `columns` row by row (row 0's of each column, then row 1's...)
    and the offsets of a list of them per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n, k = len(columns[0]), len(columns)
    order = pa.array([j * n + i for i in range(n) for j in range(k)], pa.int64())
    return (pa.array(range(0, k * n + 1, k), pa.int32()),
            pc.take(pa.concat_arrays(columns), order))


# --- queries ----------------------------------------------------------------------------------

def _fingerprint(*columns):
    """An order-independent fingerprint of rows: the xor of their hashes, the sum of the hashes'
    low 16 bits (no overflow), and the count."""
    from pyspark.sql import functions as F
    h = F.xxhash64(*columns)
    return [F.bit_xor(h).alias("x"), F.sum(h.bitwiseAND(F.lit(0xffff))).alias("s"),
            F.count("*").alias("n")]


def _all_columns_hash(df):
    # Every column passes the shuffle: the result depends on all of them. (Spark does not hash
    # maps: a map column is hashed as its entries.)
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType
    columns = [F.map_entries(F.col(f.name)) if isinstance(f.dataType, MapType) else F.col(f.name)
               for f in df.schema.fields]
    return df.select(*_fingerprint(*columns))


def _repartition(partitions):
    def query(tables):
        return _all_columns_hash(tables["lineitem"].repartition(partitions, "l_orderkey"))
    return query


def _nested(tables):
    """`repartition(200, l_orderkey)` of rows with structs, a list and a map."""
    return _all_columns_hash(tables["lineitem_nested"].repartition(200, "l_orderkey"))


def _round_robin(tables):
    return _all_columns_hash(tables["lineitem"].repartition(200))


def _range(tables):
    return _all_columns_hash(tables["lineitem"].repartitionByRange(200, "l_extendedprice"))


def _join(tables):
    from pyspark.sql import functions as F
    joined = tables["lineitem"].join(tables["orders"], F.col("l_orderkey") == F.col("o_orderkey"))
    return (joined.groupBy("o_orderpriority")
            .agg(F.sum(F.col("l_extendedprice") * (1 - F.col("l_discount"))).alias("revenue"),
                 F.count("*").alias("n"))
            .select(*_fingerprint("o_orderpriority", "revenue", "n")))


def _group_by(tables):
    from pyspark.sql import functions as F
    grouped = (tables["lineitem"].groupBy("l_orderkey")
               .agg(F.sum("l_quantity").alias("q"), F.max("l_shipdate").alias("d"),
                    F.count("*").alias("n")))
    return grouped.select(*_fingerprint("l_orderkey", "q", "d", "n"))


def _q5_shaped(tables):
    """TPC-H q5's shape: lineitem, orders, customer, nation, region joined, one region's
    revenue by nation. Adaptive execution plans the joins from the shuffle stages' sizes."""
    from pyspark.sql import functions as F
    asia = tables["region"].filter(F.col("r_name") == "ASIA")
    nations = tables["nation"].join(asia, F.col("n_regionkey") == F.col("r_regionkey"))
    customers = tables["customer"].join(nations, F.col("c_nationkey") == F.col("n_nationkey"))
    orders = tables["orders"].join(customers, F.col("o_custkey") == F.col("c_custkey"))
    joined = tables["lineitem"].join(orders, F.col("l_orderkey") == F.col("o_orderkey"))
    revenue = (joined.groupBy("n_name")
               .agg(F.sum(F.col("l_extendedprice") * (1 - F.col("l_discount"))).alias("revenue")))
    return revenue.select(*_fingerprint("n_name", "revenue"))


def _skewed_join(tables):
    """Half the rows share one key: adaptive execution splits the skewed partition."""
    from pyspark.sql import functions as F
    lineitem = tables["lineitem"].withColumn(
        "k", F.when(F.col("l_orderkey") % 2 == 0, F.lit(0)).otherwise(F.col("l_orderkey") % 10007))
    keys = tables["orders"].select((F.col("o_orderkey") % 10007).alias("rk"),
                                   F.col("o_totalprice")).dropDuplicates(["rk"])
    joined = lineitem.join(keys, F.col("k") == F.col("rk"))
    return joined.select(*_fingerprint("l_orderkey", "l_partkey", "o_totalprice"))


def _one_row_tasks(tasks):
    """A map stage of `tasks` tasks that write one row each: what a task costs apart from its
    bytes (Spark's bypass-merge writer is the comparison)."""
    def query(tables):
        from pyspark.sql import functions as F
        spark = tables["lineitem"].sparkSession
        rows = spark.range(0, tasks, 1, tasks).withColumn("s", F.concat(F.lit("row-"), F.col("id")))
        return rows.repartition(200, "id").select(*_fingerprint("id", "s"))
    return query


QUERIES = {
    "q1_repartition_200": _repartition(200),
    "q2_repartition_2000": _repartition(2000),
    "q2b_repartition_8000": _repartition(8000),
    "q3_join": _join,
    "q4_group_by": _group_by,
    "q5_round_robin_200": _round_robin,
    "q6_range_200": _range,
    "q7_skewed_join": _skewed_join,
    "q8_tpch_q5_shaped": _q5_shaped,
    "q9_repartition_100000": _repartition(100_000),
    "q10_one_row_tasks_8000": _one_row_tasks(8000),
    "q11_nested_repartition_200": _nested,
}
DEFAULT_QUERIES = [name for name in QUERIES if name != "q9_repartition_100000"]


# --- sessions ---------------------------------------------------------------------------------

def spark_conf(config, args, local_dir):
    conf = {
        "spark.master": f"local-cluster[2,1,{args.executor_memory_mb}]",
        "spark.driver.memory": "2g",
        "spark.local.dir": local_dir,
        "spark.ui.enabled": "true",
        "spark.ui.port": "0",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": "true",
        "spark.io.compression.codec": "lz4",
        "spark.sql.shuffle.partitions": "200",
        # One Parquet file per map task (8), whatever the row count: each file is charged a
        # whole split as its open cost, so no two share a task.
        "spark.sql.files.openCostInBytes": str(128 << 20),
        "spark.driver.extraJavaOptions": "-XX:+UseG1GC",
        "spark.executor.extraJavaOptions": " ".join(["-XX:+UseG1GC", *args.executor_java_options]),
    }
    if config in ("sluice", "sluice_rows", BASELINE):
        jar = args.baseline_jar if config == BASELINE else args.jar
        conf.update({
            "spark.driver.extraClassPath": jar,
            "spark.executor.extraClassPath": jar,
            "spark.shuffle.manager": "org.apache.spark.shuffle.sluice.SluiceShuffleManager",
            "spark.sql.extensions": "org.apache.spark.sql.sluice.SluiceExtensions",
            "spark.sluice.codec": "lz4",
        })
        if config == "sluice_rows":
            conf["spark.sluice.columnar.enabled"] = "false"
    elif config.startswith("comet"):
        conf.update({
            "spark.driver.extraClassPath": args.comet_jar,
            "spark.executor.extraClassPath": args.comet_jar,
            "spark.plugins": "org.apache.spark.CometPlugin",
            "spark.shuffle.manager":
                "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
            "spark.comet.enabled": "true",
            "spark.comet.exec.enabled": "true",
            "spark.comet.exec.shuffle.enabled": "true",
            "spark.comet.exec.shuffle.mode": "native" if config == "comet_native" else "jvm",
            "spark.comet.exec.shuffle.compression.codec": "lz4",
            "spark.memory.offHeap.enabled": "true",
            "spark.memory.offHeap.size": "2g",
        })
    return conf


def start_session(config, args, local_dir):
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(f"sluice-spark-bench-{config}")
    for key, value in spark_conf(config, args, local_dir).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def rest(spark, path):
    url = (spark.sparkContext.uiWebUrl + "/api/v1/applications/" +
           spark.sparkContext.applicationId + path)
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.loads(response.read())


def stage_metrics(spark, group):
    """Sums and per-stage task medians of the completed stages of job group `group`."""
    stage_ids = sorted({stage for job in rest(spark, "/jobs") if job.get("jobGroup") == group
                        for stage in job["stageIds"]})
    totals = {"executor_run_ms": 0, "executor_cpu_ms": 0.0, "gc_ms": 0,
              "shuffle_write_bytes": 0, "shuffle_read_bytes": 0, "spill_disk_bytes": 0,
              "spill_memory_bytes": 0, "tasks": 0}
    stages = []
    for stage_id in stage_ids:
        for attempt in rest(spark, f"/stages/{stage_id}"):
            if attempt["status"] != "COMPLETE":
                continue
            totals["executor_run_ms"] += attempt["executorRunTime"]
            totals["executor_cpu_ms"] += attempt["executorCpuTime"] / 1e6
            totals["gc_ms"] += attempt.get("jvmGcTime", 0)
            totals["shuffle_write_bytes"] += attempt["shuffleWriteBytes"]
            totals["shuffle_read_bytes"] += attempt["shuffleReadBytes"]
            totals["spill_disk_bytes"] += attempt["diskBytesSpilled"]
            totals["spill_memory_bytes"] += attempt["memoryBytesSpilled"]
            totals["tasks"] += attempt["numCompleteTasks"]
            summary = rest(spark, f"/stages/{stage_id}/{attempt['attemptId']}/taskSummary"
                                  "?quantiles=0.5")
            median = lambda key: summary[key][0] if key in summary else None
            stages.append({
                "stage": stage_id,
                "tasks": attempt["numCompleteTasks"],
                "run_ms": attempt["executorRunTime"],
                "cpu_ms": attempt["executorCpuTime"] / 1e6,
                "gc_ms": attempt.get("jvmGcTime", 0),
                "shuffle_write_bytes": attempt["shuffleWriteBytes"],
                "shuffle_read_bytes": attempt["shuffleReadBytes"],
                "task_median_run_ms": median("executorRunTime"),
                "task_median_cpu_ms": (median("executorCpuTime") or 0) / 1e6,
                "task_median_deserialize_ms": median("executorDeserializeTime"),
                "task_median_gc_ms": median("jvmGcTime"),
            })
    return totals, stages


def sluice_fallbacks(spark):
    try:
        return int(spark._jvm.org.apache.spark.shuffle.sluice.SluiceStatistics.fallbackShuffles())
    except Exception:  # noqa: BLE001 - not a Sluice application
        return None


def run_query(spark, config, name, tables):
    group = f"{name}-{time.time_ns()}"
    spark.sparkContext.setJobGroup(group, name)
    fallbacks_before = sluice_fallbacks(spark)
    start = time.perf_counter()
    rows = QUERIES[name](tables).collect()
    wall = time.perf_counter() - start
    spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    time.sleep(0.5)  # the listener bus publishes the last stage's metrics
    totals, stages = stage_metrics(spark, group)
    fallbacks = sluice_fallbacks(spark)
    return {
        "config": config, "query": name, "wall_s": wall,
        "fingerprint": repr([tuple(row) for row in rows]),
        "fallbacks": None if fallbacks is None else fallbacks - fallbacks_before,
        **totals, "stages": stages,
    }


def load_tables(spark, data):
    return {name: spark.read.parquet(str(data / name))
            for name in ("lineitem", "orders", "customer", "nation", "region", "lineitem_nested")}


# --- report -----------------------------------------------------------------------------------

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def write_report(runs, args, output, started):
    output.mkdir(parents=True, exist_ok=True)
    (output / "runs.json").write_text(json.dumps(
        {"started": started, "args": vars(args), "machine": machine(), "runs": runs}, indent=1))
    queries = [q for q in args.queries if any(r["query"] == q for r in runs)]
    configs = [c for c in args.configs if any(r["config"] == c for r in runs)]
    lines = [f"# Spark shuffle benchmark, {started}", "",
             f"{args.rows:,} lineitem rows from Parquet (8 map tasks), "
             f"local-cluster[2,1,{args.executor_memory_mb}], lz4 everywhere, AQE on, "
             f"{args.rounds} interleaved rounds; medians.", "",
             f"Machine: {machine()}", "",
             "Command: `" + " ".join(sys.argv) + "`", ""]

    def table(title, key, fmt, ratio=True):
        lines.extend([f"## {title}", ""])
        header = "| query | " + " | ".join(configs) + " |"
        if ratio:
            header += " " + " | ".join(f"{c}/spark" for c in configs if c != "spark") + " |"
        lines.append(header)
        lines.append("|" + "---|" * (header.count("|") - 1))
        for query in queries:
            values = {c: median([r[key] for r in runs if r["query"] == query and
                                 r["config"] == c]) for c in configs}
            cells = [fmt(values[c]) if values[c] is not None else "-" for c in configs]
            if ratio:
                base = values.get("spark")
                cells += [f"{values[c] / base:.2f}" if base and values[c] is not None else "-"
                          for c in configs if c != "spark"]
            lines.append(f"| {query} | " + " | ".join(cells) + " |")
        lines.append("")

    table("Wall seconds", "wall_s", lambda v: f"{v:.1f}")
    table("Executor CPU seconds (all stages)", "executor_cpu_ms", lambda v: f"{v / 1000:.1f}")
    table("Shuffle bytes written (MB)", "shuffle_write_bytes", lambda v: f"{v / 1e6:.0f}")
    table("Spill to disk (MB)", "spill_disk_bytes", lambda v: f"{v / 1e6:.0f}", ratio=False)
    table("GC seconds in tasks", "gc_ms", lambda v: f"{v / 1000:.1f}", ratio=False)

    lines.extend(["## Per stage (median over rounds of each stage's task medians)", ""])
    lines.append("| query | config | stage # | tasks | run s | CPU s | GC s | task run ms | "
                 "task CPU ms | task deser. ms | task GC ms |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for query in queries:
        for config in configs:
            chosen = [r for r in runs if r["query"] == query and r["config"] == config]
            if not chosen:
                continue
            for index in range(max(len(r["stages"]) for r in chosen)):
                stages = [r["stages"][index] for r in chosen if len(r["stages"]) > index]
                m = lambda key: median([s[key] for s in stages])
                lines.append(
                    f"| {query} | {config} | {index} | {m('tasks'):.0f} | "
                    f"{m('run_ms') / 1000:.1f} | {m('cpu_ms') / 1000:.1f} | "
                    f"{m('gc_ms') / 1000:.1f} | {m('task_median_run_ms'):.0f} | "
                    f"{m('task_median_cpu_ms'):.1f} | {m('task_median_deserialize_ms'):.0f} | "
                    f"{m('task_median_gc_ms'):.0f} |")
    lines.append("")

    lines.extend(["## Results and fallbacks", ""])
    for query in queries:
        prints = {r["fingerprint"] for r in runs if r["query"] == query}
        fallbacks = [r["fallbacks"] for r in runs if r["query"] == query and
                     r["config"] == "sluice" and r["fallbacks"] is not None]
        lines.append(f"- {query}: " + ("results equal under every configuration"
                                       if len(prints) == 1 else
                                       f"RESULTS DIFFER: {sorted(prints)}") +
                     (f"; Sluice fallbacks {sum(fallbacks)}" if fallbacks else ""))
    lines.append("")
    (output / "report.md").write_text("\n".join(lines))
    return output / "report.md"


def machine():
    try:
        model = next(line.split(":", 1)[1].strip()
                     for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor()
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


# --- main -------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jar", default=str(ROOT / "build" / "sluice-spark.jar"))
    parser.add_argument("--baseline-jar", default=None,
                        help="another build of the plugin, run as configuration sluice_baseline")
    parser.add_argument("--comet-jar", default=str(
        ROOT / "build" / "spark-bench" / "comet-spark-spark4.1_2.13-1.2.0.jar"))
    parser.add_argument("--cli", default=str(ROOT / "build" / "tools" / "sluice"))
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", default=",".join(DEFAULT_QUERIES))
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--executor-memory-mb", type=int, default=4096)
    parser.add_argument("--data", default=str(ROOT / "build" / "spark-bench" / "data"))
    parser.add_argument("--output", default=None)
    parser.add_argument("--executor-java-option", dest="executor_java_options", action="append",
                        default=[], help="added to the executors' JVM options (repeatable), "
                        "e.g. -XX:StartFlightRecording=filename=/tmp/x.jfr,settings=profile")
    parser.add_argument("--session", help=argparse.SUPPRESS)
    parser.add_argument("--session-output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.queries = args.queries.split(",")
    args.configs = args.configs.split(",")
    for name in args.queries:
        if name not in QUERIES:
            parser.error(f"unknown query {name}; queries: {', '.join(QUERIES)}")
    # Executors start in the worker's own directory: a relative jar path would not reach them.
    args.jar = os.path.abspath(args.jar)
    args.comet_jar = os.path.abspath(args.comet_jar) if args.comet_jar else args.comet_jar
    args.baseline_jar = os.path.abspath(args.baseline_jar) if args.baseline_jar else None
    if args.baseline_jar and BASELINE not in args.configs:
        args.configs.append(BASELINE)
    for config in args.configs:
        if config not in CONFIGS + [BASELINE] or (config == BASELINE and not args.baseline_jar):
            parser.error(f"unknown configuration {config}; configurations: {', '.join(CONFIGS)}")
    if any(c.startswith("comet") for c in args.configs) and not os.path.exists(args.comet_jar):
        parser.error(f"{args.comet_jar} is missing: make spark-bench fetches it")
    import pyspark
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    output = pathlib.Path(args.output or ROOT / "bench" / "results" / "spark" /
                          datetime.date.today().isoformat())
    data = generate_data(args.cli, args.rows, args.data)
    if args.session:
        run_session(args, data)
        return
    runs = []
    for round_index in range(args.rounds):
        # The configurations take turns, in a rotated order each round.
        order = args.configs[round_index % len(args.configs):] + \
            args.configs[:round_index % len(args.configs)]
        for config in order:
            # One process per application: a driver's class path is fixed when its JVM starts.
            # The session is told only its own configuration, so it checks only its own jars.
            with tempfile.NamedTemporaryFile(suffix=".json") as results:
                command = [sys.executable, __file__, "--session", config,
                           "--session-output", results.name, "--configs", config,
                           *session_arguments(args)]
                subprocess.run(command, check=True)
                for result in json.loads(pathlib.Path(results.name).read_text() or "[]"):
                    result["round"] = round_index
                    runs.append(result)
                    print(f"round {round_index} {config:13} {result['query']:24} "
                          f"{result['wall_s']:7.1f} s", flush=True)
            time.sleep(2)  # the next application starts on a quiet machine
            write_report(runs, args, output, started)
    report = write_report(runs, args, output, started)
    print(f"report: {report}")


def session_arguments(args):
    return ["--jar", args.jar, "--comet-jar", args.comet_jar, "--cli", args.cli,
            *(["--baseline-jar", args.baseline_jar] if args.baseline_jar else []),
            "--rows", str(args.rows), "--queries", ",".join(args.queries),
            "--executor-memory-mb", str(args.executor_memory_mb), "--data", args.data,
            *[f"--executor-java-option={o}" for o in args.executor_java_options]]


def run_session(args, data):
    """One application of configuration args.session: a warm-up, then every query."""
    results = []
    with tempfile.TemporaryDirectory(prefix="sluice-spark-bench-") as local_dir:
        spark = start_session(args.session, args, local_dir)
        try:
            tables = load_tables(spark, data)
            # Warm-up: class loading, JIT, native library, Parquet footers.
            _repartition(16)(tables).collect()
            for name in args.queries:
                results.append(run_query(spark, args.session, name, tables))
                pathlib.Path(args.session_output).write_text(json.dumps(results))
        finally:
            spark.stop()

if __name__ == "__main__":
    main()
