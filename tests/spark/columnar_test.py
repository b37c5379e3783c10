"""Sluice's columnar path: a shuffle exchange over a columnar child (Parquet's vectorized reader,
the in-memory columnar cache) takes Spark's column batches without rows, places rows natively
as Spark would, and hands its consumers column batches. Every result, and the partition of every
row (spark_partition_id), must equal Spark's own shuffle's; the plan must show the columnar
exchange right over the scan; where the path cannot apply the plan says why."""

import os

import pytest
from pyspark.sql import functions as F

from conftest import adaptive_decisions, assert_same_as_spark, plan_nodes, run_both, stage_totals

# Every flat Spark type the columnar path carries, with nulls in each nullable column.
COLUMNS = ["k", "i", "s", "d", "b", "dec", "wide", "dt", "ts", "ntz", "t", "sm", "f", "bin",
           "ym", "dtint"]


@pytest.fixture(scope="module")
def parquet(spark, local_dir):
    path = os.path.join(local_dir, "columnar-types")
    nulls = F.col("id") % 11 == 0
    (spark.range(0, 60_000, 1, 4).select(
        F.col("id").alias("k"),
        F.when(nulls, None).otherwise((F.col("id") % 7).cast("int")).alias("i"),
        F.when(F.col("id") % 5 == 0, None)
         .otherwise(F.concat(F.lit("s-"), (F.col("id") % 9000).cast("string"))).alias("s"),
        F.when(nulls, None).otherwise(F.col("id") / 3.0).alias("d"),
        F.when(nulls, None).otherwise(F.col("id") % 2 == 0).alias("b"),
        F.when(nulls, None).otherwise((F.col("id") - 30_000).cast("decimal(10,2)")).alias("dec"),
        F.when(nulls, None).otherwise(
            (F.col("id") - 30_000).cast("decimal(30,3)") * F.lit(str(10 ** 20)).cast("decimal(21,0)")
        ).cast("decimal(30,3)").alias("wide"),
        F.when(nulls, None).otherwise(F.date_add(F.lit("2020-01-01").cast("date"),
                                                 (F.col("id") % 900).cast("int"))).alias("dt"),
        F.when(nulls, None).otherwise(F.timestamp_seconds(F.col("id") * 37)).alias("ts"),
        F.timestamp_seconds(F.col("id") * 41).cast("timestamp_ntz").alias("ntz"),
        F.when(nulls, None).otherwise((F.col("id") % 100 - 50).cast("tinyint")).alias("t"),
        (F.col("id") % 30_000 - 15_000).cast("smallint").alias("sm"),
        F.when(nulls, None).otherwise((F.col("id") / 7).cast("float")).alias("f"),
        F.when(nulls, None).otherwise(
            F.concat(F.lit("b"), F.col("id").cast("string")).cast("binary")).alias("bin"),
        F.make_ym_interval(F.lit(1), (F.col("id") % 12).cast("int")).alias("ym"),
        F.make_dt_interval((F.col("id") % 30).cast("int")).alias("dtint"))
     .write.mode("overwrite").parquet(path))
    return path


def _collectable(df):
    """PySpark cannot collect year-month intervals: they are compared as text."""
    return df.withColumn("ym", F.col("ym").cast("string")) if "ym" in df.columns else df


def _exchanges(df):
    """(columnar exchanges with the name of their child, row-path reasons) of a query run."""
    columnar, reasons = [], []
    for node in plan_nodes(df._jdf.queryExecution().executedPlan()):
        if node.nodeName() == "SluiceColumnarExchange":
            columnar.append(node.child().nodeName())
        elif node.nodeName() == "SluiceShuffleInput":
            reasons.append(node.rowPathReason())
    return columnar, reasons


def _assert_columnar(df, scan="Scan parquet"):
    columnar, reasons = _exchanges(df)
    assert columnar and all(child.startswith(scan) for child in columnar), (columnar, reasons)


@pytest.mark.parametrize("adaptive_execution", ["false", "true"])
def test_hash_partitioning_places_every_row_as_spark(spark, parquet, adaptive_execution):
    before = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", adaptive_execution)
    try:
        def query(s):
            return _collectable(s.read.parquet(parquet).repartition(13, "s", "k")
                                .withColumn("p", F.spark_partition_id()))
        df = query(spark)
        rows = assert_same_as_spark(spark, query, check_plan=lambda _: _assert_columnar(df))
        assert len(rows) == 60_000
    finally:
        spark.conf.set("spark.sql.adaptive.enabled", before)


def test_each_type_as_the_hash_key(spark, parquet):
    for column in COLUMNS:
        def query(s):
            return _collectable(s.read.parquet(parquet).select(*dict.fromkeys([column, "k"]))
                                .repartition(7, column).withColumn("p", F.spark_partition_id()))
        _assert_columnar(query(spark))
        assert_same_as_spark(spark, query)


def test_expression_keys_are_computed_by_spark(spark, parquet):
    """Keys that are expressions: Spark evaluates each row's partition id from the batch, the
    rows still travel as columns. Hash: every row where Spark's shuffle puts it. Range: each
    partition a range of the expression's values, and the rows are Spark's."""
    def hashed(s):
        return _collectable(s.read.parquet(parquet)
                            .repartition(11, F.col("k") % 5, F.upper("s"))
                            .withColumn("p", F.spark_partition_id()))
    _assert_columnar(hashed(spark))
    assert len(assert_same_as_spark(spark, hashed)) == 60_000

    def ranged(s):
        return _collectable(s.read.parquet(parquet)
                            .repartitionByRange(9, (F.col("k") % 1000).desc())
                            .withColumn("p", F.spark_partition_id()))
    df = ranged(spark)
    _assert_columnar(df)
    pairs = sorted((tuple(row) for row in df.select(F.col("k") % 1000, "p").collect()
                    if row[0] is not None), key=lambda pair: pair[0], reverse=True)
    partitions = [p for _, p in pairs]
    assert partitions == sorted(partitions) and len(set(partitions)) > 1
    assert_same_as_spark(spark, lambda s: ranged(s).drop("p"))


def test_single_partition_and_round_robin_without_sort(spark, parquet):
    def single(s):
        return _collectable(
            s.read.parquet(parquet).repartition(1).withColumn("p", F.spark_partition_id()))
    _assert_columnar(single(spark))
    assert_same_as_spark(spark, single)

    spark.conf.set("spark.sql.execution.sortBeforeRepartition", "false")
    try:
        def round_robin(s):
            return _collectable(
                s.read.parquet(parquet).repartition(9).withColumn("p", F.spark_partition_id()))
        _assert_columnar(round_robin(spark))
        assert_same_as_spark(spark, round_robin)
    finally:
        spark.conf.unset("spark.sql.execution.sortBeforeRepartition")


def test_round_robin_after_sparks_sort_places_every_row_as_spark(spark, parquet):
    """Spark sorts a map task's rows by the hash of their UnsafeRow form before it deals them out
    round-robin (spark.sql.execution.sortBeforeRepartition, on by default): the native writer
    ranks the same rows by the same hash, computed from the batches, so every row of every type
    lands in Spark's partition. Also when the tasks spill (conftest caps what a task holds)."""
    def query(s):
        return _collectable(
            s.read.parquet(parquet).repartition(9).withColumn("p", F.spark_partition_id()))
    _assert_columnar(query(spark))
    assert len(assert_same_as_spark(spark, query)) == 60_000


def test_round_robin_after_sparks_sort_spills(spark, local_dir):
    """Map tasks of 200,000 rows of 140 bytes hold more than conftest's 4 MiB cap: the held
    batches spill and come back for placement; every partition holds Spark's rows."""
    path = os.path.join(local_dir, "columnar-wide")
    spark.range(0, 400_000, 1, 2).select(
        "id", F.sha2(F.col("id").cast("string"), 512).alias("s")) \
        .write.mode("overwrite").parquet(path)

    def query(s):
        return (s.read.parquet(path).repartition(7)
                .groupBy(F.spark_partition_id().alias("p"))
                .agg(F.count("*").alias("n"), F.sum(F.hash("id", "s")).alias("h")))
    _assert_columnar(query(spark))
    totals, _ = stage_totals(spark, lambda: query(spark))
    assert totals.get("memoryBytesSpilled", 0) > 0, totals
    assert len(assert_same_as_spark(spark, query)) == 7


def test_range_partitioning_keeps_ranges_and_spark_order(spark, parquet):
    """Against bounds sampled as Spark samples them, ascending and descending, nulls first and
    last, on keys of every kind: every partition holds a range of keys in the order's sense
    (equal keys together), and the rows are Spark's. (The partition of each row cannot be
    compared with Spark's: RangePartitioner reseeds its sample of an unbalanced input with the
    sampled RDD's id, so two runs of Spark itself may draw other bounds.) A global sort over the
    exchange returns Spark's order."""
    orders = [(True, True), (False, False), (True, False), (False, True)]
    columns = ["k", "s", "d", "dec", "dt", "wide", "ts", "b", "t", "f", "bin", "ntz", "sm"]
    for i, column in enumerate(columns):
        ascending, nulls_first = orders[i % len(orders)]
        order = F.col(column)
        if ascending:
            order = order.asc_nulls_first() if nulls_first else order.asc_nulls_last()
        else:
            order = order.desc_nulls_first() if nulls_first else order.desc_nulls_last()
        df = _collectable(spark.read.parquet(parquet).repartitionByRange(9, order)
                          .withColumn("p", F.spark_partition_id()))
        _assert_columnar(df)
        pairs = [(row[column], row["p"]) for row in df.select(column, "p").collect()]
        present = sorted(((v, p) for v, p in pairs if v is not None),
                         key=lambda pair: pair[0], reverse=not ascending)
        nulls = [(None, p) for v, p in pairs if v is None]
        in_order = nulls + present if nulls_first else present + nulls
        partitions = [p for _, p in in_order]
        assert partitions == sorted(partitions), (column, ascending, nulls_first)
        by_key = {}
        for value, p in pairs:
            assert by_key.setdefault(value, p) == p, (column, value)
        assert len(set(partitions)) > 1, (column, partitions[:10])
    assert_same_as_spark(spark, lambda s: _collectable(
        s.read.parquet(parquet).repartitionByRange(9, "s", F.col("d").desc())))

    def ordered(s):
        return _collectable(s.read.parquet(parquet).orderBy(F.col("s").desc(), "k"))
    _assert_columnar(ordered(spark))
    with_sluice = [tuple(row) for row in ordered(spark).collect()]
    spark.conf.set("spark.sluice.enabled", "false")
    try:
        with_spark = [tuple(row) for row in ordered(spark).collect()]
    finally:
        spark.conf.unset("spark.sluice.enabled")
    assert with_sluice == with_spark


def test_range_partitioning_of_empty_and_constant_keys(spark, parquet, local_dir):
    """No rows: no bounds, one partition. One distinct key: no bounds either; every row in one
    partition as under Spark's shuffle."""
    empty = os.path.join(local_dir, "columnar-empty")
    spark.read.parquet(parquet).limit(0).write.mode("overwrite").parquet(empty)
    constant = os.path.join(local_dir, "columnar-constant")
    spark.range(0, 1000, 1, 2).select(F.lit("same").alias("s"), F.col("id").alias("k")) \
        .write.mode("overwrite").parquet(constant)
    for path in [empty, constant]:
        def query(s):
            return (s.read.parquet(path).select("k", "s").repartitionByRange(9, "s")
                    .withColumn("p", F.spark_partition_id()))
        _assert_columnar(query(spark))
        rows = assert_same_as_spark(spark, query)
        assert len({row[-1] for row in rows}) <= 1  # p, the last column


def test_from_orc(spark, parquet, local_dir):
    """ORC's vectorized reader hands out its own vectors (Hive's, wrapped): every row where
    Spark's shuffle puts it. (ORC stores no intervals.)"""
    path = os.path.join(local_dir, "columnar-orc")
    spark.read.parquet(parquet).drop("ym", "dtint").write.mode("overwrite").orc(path)

    def query(s):
        return (s.read.orc(path).repartition(13, "s", "k")
                .withColumn("p", F.spark_partition_id()))
    _assert_columnar(query(spark), scan="Scan orc")
    assert len(assert_same_as_spark(spark, query)) == 60_000


def test_from_the_columnar_cache(spark, parquet):
    # Spark's cache hands out column batches of numbers and booleans only.
    cached = spark.read.parquet(parquet).select("k", "i", "d", "b", "t", "sm", "f").cache()
    try:
        cached.count()
        def query(s):
            return _collectable(cached.repartition(11, "i").withColumn("p", F.spark_partition_id()))
        _assert_columnar(query(spark), scan="InMemoryTableScan")
        assert_same_as_spark(spark, query)
    finally:
        cached.unpersist()


def test_consumers_read_the_batches(spark, parquet):
    """An aggregate, a sort and a window over the exchange read its batches through
    ColumnarToRow."""
    from pyspark.sql import Window

    def query(s):
        shuffled = s.read.parquet(parquet).repartition(6, "i")
        ranked = shuffled.withColumn(
            "r", F.row_number().over(Window.partitionBy("i").orderBy("k")))
        return ranked.groupBy("i").agg(F.count("*").alias("n"), F.max("s").alias("m"),
                                       F.sum("dec").alias("sd"), F.max("wide").alias("w"),
                                       F.max("r").alias("r"))
    def check_plan(plan):
        assert "ColumnarToRow" in plan and "SluiceColumnarExchange" in plan, plan
    assert_same_as_spark(spark, query, check_plan=check_plan)


def test_adaptive_statistics_equal_sparks(adaptive, parquet):
    """AQE plans from the exchange's runtime statistics: the bytes the rows take as UnsafeRows
    and their count, equal to what Spark's row serializer reports for the same rows (null wide
    decimals included), and coalesces the columnar exchange's partitions."""
    spark = adaptive
    spark.conf.set("spark.sql.shuffle.partitions", "50")
    spark.conf.set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "256k")

    def query(s):
        return _collectable(
            s.read.parquet(parquet).repartition("i").withColumn("p", F.spark_partition_id()))

    (sluice_rows, sluice), (spark_rows, spark_shuffle) = run_both(spark, query)
    assert sluice_rows == spark_rows
    assert sluice[2] == spark_shuffle[2], (sluice, spark_shuffle)
    assert sluice[1] and sluice[1][0] < 50, sluice
    _assert_columnar(query(spark))


def test_skew_join_over_cached_tables(adaptive):
    """Keys that are not nullable need no filter: the join's exchanges sit right on the cached
    tables and take the columnar path; AQE splits the skewed partition."""
    spark = adaptive
    spark.conf.set("spark.sql.shuffle.partitions", "20")
    spark.conf.set("spark.sql.adaptive.skewJoin.enabled", "true")
    spark.conf.set("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2")
    spark.conf.set("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "64k")
    spark.conf.set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k")
    # Numbers only (Spark's cache hands out batches of numbers), keys that cannot be null.
    left = (spark.range(0, 40_000, 1, 4)
            .select("id", F.coalesce(F.when(F.col("id") % 5 != 0, F.lit(0))
                                     .otherwise(F.col("id") % 97), F.lit(0)).alias("k"),
                    ((F.col("id") * 7919) % 1_000_003).alias("payload"))
            .cache())
    right = spark.range(0, 500, 1, 2).select(F.coalesce(F.col("id") % 97, F.lit(0)).alias("rk"),
                                             F.col("id").alias("rid")).cache()
    try:
        left.count()
        right.count()

        def query(s):
            return (left.join(right, left.k == right.rk)
                    .groupBy((F.col("rid") % 13).alias("g"))
                    .agg(F.count("*").alias("c"), F.max("payload").alias("m")))
        def check_plan(plan):
            assert "skew=true" in plan and "SluiceColumnarExchange" in plan, plan
        assert_same_as_spark(spark, query, check_plan=check_plan)
    finally:
        left.unpersist()
        right.unpersist()


@pytest.fixture(scope="module")
def structs(spark, local_dir):
    """Structs, one nested in another, with nulls at every level and strings and wide decimals
    inside."""
    path = os.path.join(local_dir, "columnar-structs")
    inner = F.struct((F.col("id") / 7).alias("d"),
                     (F.col("id") - 10_000).cast("decimal(30,2)").alias("w"),
                     F.make_ym_interval(F.lit(1), (F.col("id") % 12).cast("int")).alias("ym"))
    outer = F.struct(
        (F.col("id") % 13).cast("int").alias("a"),
        F.when(F.col("id") % 5 == 0, None)
         .otherwise(F.concat(F.lit("v"), F.col("id").cast("string"))).alias("s"),
        F.when(F.col("id") % 3 == 0, None).otherwise(inner).alias("inner"))
    (spark.range(0, 20_000, 1, 3)
     .select(F.col("id").alias("k"),
             F.when(F.col("id") % 7 == 0, None).otherwise(outer).alias("st"),
             (F.col("id") % 100).cast("string").alias("tag"))
     .write.mode("overwrite").parquet(path))
    return path


def _structs_collectable(df):
    """PySpark cannot collect year-month intervals: the struct is compared as text."""
    return df.withColumn("st", F.col("st").cast("string"))


def test_struct_columns_travel_as_columns(spark, structs):
    """Struct columns take the columnar path: every row where Spark's shuffle puts it, hashed by a
    flat column, by the struct itself (Spark computes those ids) and round-robin."""
    queries = {
        "hash": lambda s: s.read.parquet(structs).repartition(7, "k"),
        "struct key": lambda s: s.read.parquet(structs).repartition(5, "st"),
        "round-robin": lambda s: s.read.parquet(structs).repartition(6),
    }
    for name, build in queries.items():
        def query(s, build=build):
            return _structs_collectable(build(s).withColumn("p", F.spark_partition_id()))
        _assert_columnar(query(spark))
        assert len(assert_same_as_spark(spark, query)) == 20_000, name


def test_struct_columns_report_sparks_data_size(adaptive, structs):
    """The exchange's data size counts a struct as Spark's row writer does: a nested UnsafeRow,
    none for a null struct. AQE's statistics equal those under Spark's shuffle."""
    def query(s):
        return _structs_collectable(s.read.parquet(structs).repartition(7, "k"))
    (sluice_rows, sluice), (spark_rows, spark_shuffle) = run_both(adaptive, query)
    assert sluice_rows == spark_rows
    assert sluice[2] == spark_shuffle[2], (sluice, spark_shuffle)
    _assert_columnar(query(adaptive))


@pytest.fixture(scope="module")
def arrays(spark, local_dir):
    """Arrays and maps, with null and empty arrays, null elements and values, an array inside a
    struct, arrays whose elements do not fill 8-byte words, arrays of structs (a wide decimal
    inside) and of arrays, a map of arrays, arrays of intervals and of wide decimals."""
    path = os.path.join(local_dir, "columnar-arrays")
    i = F.col("id")
    (spark.range(0, 20_000, 1, 3).select(
        i.alias("k"),
        F.when(i % 9 == 0, None).otherwise(F.array(
            (i % 5).cast("int"), F.when(i % 4 == 0, None).otherwise((i % 7).cast("int"))))
         .alias("ai"),
        F.when(i % 6 == 0, None).otherwise(
            F.when(i % 10 == 1, F.array().cast("array<string>")).otherwise(F.array(
                F.concat(F.lit("x"), i.cast("string")), F.lit(None).cast("string")))).alias("as"),
        F.when(i % 8 == 0, None).otherwise(F.create_map(
            F.concat(F.lit("k"), (i % 3).cast("string")), i,
            F.lit("z"), F.when(i % 2 == 0, None).otherwise(i * 2))).alias("m"),
        F.struct(F.array(i / 3.0, i / 5.0).alias("ad"),
                 (i % 17).cast("decimal(10,2)").alias("dec")).alias("st"),
        F.array((i - 5).cast("decimal(12,3)"), F.lit(None).cast("decimal(12,3)")).alias("adec"),
        F.array(*[((i + n) % 300).cast("short") for n in range(3)]).alias("ash"),
        F.array(F.lit(True), i % 2 == 0).alias("ab"),
        F.when(i % 11 == 0, None).otherwise(F.array(
            F.struct((i % 3).cast("int").alias("x"), F.concat(F.lit("e"), i.cast("string"))
                     .alias("y"), (i * 7).cast("decimal(25,4)").alias("w")),
            F.lit(None).cast("struct<x:int,y:string,w:decimal(25,4)>"))).alias("astruct"),
        F.array(F.array(i.cast("int")), F.when(i % 4 == 0, None).otherwise(
            F.array((i + 1).cast("int"), F.lit(None).cast("int"))), F.array().cast("array<int>"))
         .alias("aa"),
        F.create_map(F.lit("a"), F.array(i, i + 1), F.lit("b"), F.lit(None).cast("array<bigint>"))
         .alias("mapped"),
        F.array((i * 1_000_003 - 10**7).cast("decimal(30,4)"), F.lit(None).cast("decimal(30,4)"),
                (F.lit("1e20").cast("decimal(38,0)") * i).cast("decimal(30,4)")).alias("awide"),
        F.array(F.make_ym_interval(F.lit(1), (i % 12).cast("int")),
                F.lit(None).cast("interval year to month")).alias("aym"),
        F.array(F.make_dt_interval((i % 30).cast("int")), F.make_dt_interval(F.lit(1)))
         .alias("adt"))
     .write.mode("overwrite").parquet(path))
    return path


def _arrays_collectable(df):
    """PySpark cannot collect year-month intervals: their array is compared as text."""
    return df.withColumn("aym", F.col("aym").cast("string"))


def test_array_and_map_columns_travel_as_columns(spark, arrays):
    """Arrays and maps take the columnar path: every row where Spark's shuffle puts it, hashed by
    a flat column, by an array (Spark computes those ids) and round-robin."""
    queries = {
        "hash": lambda s: s.read.parquet(arrays).repartition(7, "k"),
        "array key": lambda s: s.read.parquet(arrays).repartition(5, "ai"),
        "round-robin": lambda s: s.read.parquet(arrays).repartition(6),
    }
    for name, build in queries.items():
        def query(s, build=build):
            return _arrays_collectable(build(s).withColumn("p", F.spark_partition_id()))
        _assert_columnar(query(spark))
        assert len(assert_same_as_spark(spark, query)) == 20_000, name


def test_array_and_map_columns_report_sparks_data_size(adaptive, arrays):
    """The exchange's data size counts arrays and maps as Spark's row writer does
    (UnsafeArrayData: a header, elements at their natural width, strings padded to 8; a map is
    its key array's size and two arrays); AQE's statistics equal those under Spark's shuffle."""
    def query(s):
        return _arrays_collectable(s.read.parquet(arrays).repartition(7, "k"))
    (sluice_rows, sluice), (spark_rows, spark_shuffle) = run_both(adaptive, query)
    assert sluice_rows == spark_rows
    assert sluice[2] == spark_shuffle[2], (sluice, spark_shuffle)
    _assert_columnar(query(adaptive))


def test_spills_within_the_task_memory(spark, parquet):
    """conftest caps what a map task holds at 4 MiB: a task of 240,000 rows spills."""
    def query(s):
        frame = s.read.parquet(parquet)
        big = frame.union(frame).union(frame).union(frame)
        return big.repartition(5, "k").groupBy(F.spark_partition_id().alias("p")).agg(
            F.count("*").alias("n"), F.sum("k").alias("sk"), F.max("s").alias("ms"))
    assert_same_as_spark(spark, query)


def test_the_plan_says_why_the_row_path_carries_an_exchange(spark, parquet):
    """A child that produces rows takes the row path, and the plan says so. (Every type a
    columnar source hands out is carried; the type check refuses the rest, such as arrays of
    the null type.)"""
    types = spark._jvm.org.apache.spark.sql.types.DataType
    supports = spark._jvm.org.apache.spark.sql.sluice.ArrowColumnView.supports
    assert not supports(types.fromDDL("array<void>"))
    assert supports(types.fromDDL("map<string,array<struct<a:decimal(30,4),b:interval day>>>"))
    cases = {
        "produces rows": lambda s: _collectable(
            s.read.parquet(parquet).filter(F.col("k") > 5).repartition(4, "k")),
    }
    for expected, build in cases.items():
        df = build(spark)
        df.collect()
        columnar, reasons = _exchanges(df)
        assert not columnar and any(expected in reason for reason in reasons), (expected, reasons)
        assert "row path: " in df._jdf.queryExecution().executedPlan().toString()
        assert_same_as_spark(spark, build)
