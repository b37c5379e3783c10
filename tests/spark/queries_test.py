"""The query matrix: each query runs with Sluice and with Spark's own shuffle in the same session
on a real local cluster, and the sorted results must be equal."""

import datetime
import decimal
import math

from pyspark.sql import Row, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from conftest import assert_same_as_spark, collect_both, fallback_count, fallback_reasons, \
    sluice_count


def keyed(spark, rows=60_000, keys=997, partitions=4):
    return (spark.range(0, rows, 1, partitions)
            .withColumn("k", (F.col("id") * 7919) % keys)
            .withColumn("v", F.col("id").cast("double") / 3)
            .withColumn("s", F.concat(F.lit("name-"), (F.col("id") % 5000).cast("string"))))


def test_native_library_loads_on_driver_and_executors(spark):
    assert spark._jvm.org.apache.spark.shuffle.sluice.NativeLibrary.load().startswith("sluice")
    rows = assert_same_as_spark(spark, lambda s: s.range(0, 1000, 1, 2).repartition(3))
    assert len(rows) == 1000


def test_group_by_aggregations(spark):
    rows = assert_same_as_spark(
        spark, lambda s: keyed(s).groupBy("k").agg(
            F.sum("id").alias("sum"), F.count("*").alias("count"), F.max("s").alias("max_s"),
            F.round(F.avg("v"), 6).alias("avg_v"), F.collect_set(F.col("id") % 3).alias("set")))
    assert len(rows) == 997


def test_group_by_distinct_and_multiple_keys(spark):
    assert_same_as_spark(
        spark, lambda s: keyed(s).groupBy((F.col("k") % 10).alias("a"), F.col("s").substr(1, 7))
        .agg(F.countDistinct("k").alias("distinct_k")))


def test_sort_merge_join(spark):
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    spark.conf.set("spark.sql.join.preferSortMergeJoin", "true")
    try:
        def query(s):
            left = keyed(s, 60_000)
            right = keyed(s, 30_000, partitions=3).select(
                F.col("k").alias("rk"), F.col("s").alias("rs"))
            return left.join(right, left.k == right.rk, "inner").groupBy("k").agg(
                F.count("*").alias("c"), F.min("rs").alias("m"))
        plan = query(spark)._jdf.queryExecution().executedPlan().toString()
        assert "SortMergeJoin" in plan
        assert_same_as_spark(spark, query)
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
        spark.conf.unset("spark.sql.join.preferSortMergeJoin")


def test_shuffle_hash_join(spark):
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        def query(s):
            left = keyed(s, 40_000)
            right = keyed(s, 2_000, keys=1500, partitions=2).select(
                F.col("k").alias("rk"), F.col("id").alias("rid"))
            return left.join(right.hint("shuffle_hash"), left.k == right.rk, "left_outer") \
                .groupBy("k", "rid").agg(F.count("*").alias("c"), F.sum("id").alias("ids"))
        plan = query(spark)._jdf.queryExecution().executedPlan().toString()
        assert "ShuffledHashJoin" in plan
        assert_same_as_spark(spark, query)
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


def test_repartition_round_robin(spark):
    rows = assert_same_as_spark(spark, lambda s: keyed(s, 50_000).repartition(7))
    assert len(rows) == 50_000


def test_repartition_round_robin_partition_sizes_match_spark(spark):
    def sizes(s):
        return keyed(s, 30_000).repartition(5).withColumn(
            "p", F.spark_partition_id()).groupBy("p").count()
    assert_same_as_spark(spark, sizes)


def test_repartition_by_column(spark):
    def query(s):
        return keyed(s, 60_000).repartition(6, "k").withColumn("p", F.spark_partition_id())
    assert_same_as_spark(spark, query)


def test_repartition_by_range(spark):
    # Spark samples the range bounds with a seed taken from the sampled RDD's id, which differs
    # from run to run, so the bounds (not the rows) may differ between the two runs.
    assert_same_as_spark(spark, lambda s: keyed(s, 40_000).repartitionByRange(5, "k"))

    ranges = (keyed(spark, 40_000).repartitionByRange(5, "k")
              .withColumn("p", F.spark_partition_id()).groupBy("p")
              .agg(F.min("k").alias("lo"), F.max("k").alias("hi")).orderBy("p").collect())
    assert len(ranges) == 5
    for before, after in zip(ranges, ranges[1:]):
        assert before.hi < after.lo


def test_window_functions(spark):
    def query(s):
        w = Window.partitionBy("k").orderBy("id")
        return keyed(s, 40_000, keys=300).select(
            "k", "id", F.row_number().over(w).alias("rn"), F.sum("v").over(w).alias("running"),
            F.lag("s", 1).over(w).alias("prev"))
    assert_same_as_spark(spark, query)


def test_order_by_global_sort(spark):
    def query(s):
        return keyed(s, 30_000).orderBy(F.col("s").desc(), "id")
    sluice_rows, spark_rows = collect_both(spark, query)
    assert sluice_rows == spark_rows


ALL_TYPES = T.StructType([
    T.StructField("b", T.BooleanType()),
    T.StructField("i8", T.ByteType()),
    T.StructField("i16", T.ShortType()),
    T.StructField("i32", T.IntegerType()),
    T.StructField("i64", T.LongType()),
    T.StructField("f32", T.FloatType()),
    T.StructField("f64", T.DoubleType()),
    T.StructField("d_small", T.DecimalType(10, 2)),
    T.StructField("d_large", T.DecimalType(38, 10)),
    T.StructField("s", T.StringType()),
    T.StructField("bin", T.BinaryType()),
    T.StructField("date", T.DateType()),
    T.StructField("ts", T.TimestampType()),
    T.StructField("ts_ntz", T.TimestampNTZType()),
    T.StructField("arr", T.ArrayType(T.IntegerType())),
    T.StructField("arr_s", T.ArrayType(T.StringType())),
    T.StructField("m", T.MapType(T.StringType(), T.LongType())),
    T.StructField("st", T.StructType([T.StructField("a", T.IntegerType()),
                                      T.StructField("b", T.StringType()),
                                      T.StructField("c", T.DecimalType(38, 2))])),
    T.StructField("arr_st", T.ArrayType(T.StructType([
        T.StructField("x", T.DoubleType()), T.StructField("y", T.ArrayType(T.StringType()))]))),
    T.StructField("m_arr", T.MapType(T.IntegerType(), T.ArrayType(T.DecimalType(12, 3)))),
    T.StructField("nested", T.ArrayType(T.ArrayType(T.MapType(T.StringType(), T.BinaryType())))),
])


def all_types_rows(count):
    rows = []
    for i in range(count):
        if i % 11 == 0:
            rows.append(tuple([None] * len(ALL_TYPES.fields)))
            continue
        rows.append((
            i % 2 == 0, i % 128 - 64, i % 30000 - 15000, i * 7 - 1000, i * 10_000_000_019,
            [float("nan"), -0.0, 1.5, float("inf")][i % 4] if i % 5 == 0 else i / 7.0,
            [float("nan"), -0.0, float("-inf")][i % 3] if i % 7 == 0 else i / 3.0,
            decimal.Decimal(i) / 100, decimal.Decimal(i * 1234567891) / decimal.Decimal(10 ** 10),
            "ünïcødé-" * (i % 4) + str(i), bytes([i % 256]) * (i % 9),
            datetime.date(2000, 1, 1) + datetime.timedelta(days=i),
            datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
            + datetime.timedelta(microseconds=i * 1_000_003),
            datetime.datetime(2021, 6, 1) + datetime.timedelta(seconds=i),
            None if i % 3 == 0 else [j if j % 4 else None for j in range(i % 6)],
            [str(j) * j for j in range(i % 4)],
            {f"k{j}": (None if j == 1 else j * i) for j in range(i % 5)},
            None if i % 6 == 0 else (i, None if i % 4 == 0 else f"s{i}", decimal.Decimal(i) / 4),
            [(j / 2.0, [f"y{j}"] * j) for j in range(i % 3)] + ([None] if i % 8 == 0 else []),
            {j: [decimal.Decimal(j) / 8, None] for j in range(i % 3)},
            [[{"a": b"x" * j, "b": None}] for j in range(i % 3)],
        ))
    return rows


def test_every_spark_type_including_nested(spark):
    rows = all_types_rows(3000)

    def query(s):
        return (s.createDataFrame(rows, ALL_TYPES).repartition(4)
                .withColumn("hash_key", F.col("i32") % 13).repartition(5, "hash_key", "s"))
    # NaN != NaN in Python, so compare representations.
    sluice_rows, spark_rows = collect_both(spark, query)
    assert len(sluice_rows) == 3000
    assert [repr(r) for r in sluice_rows] == [repr(r) for r in spark_rows]


def test_group_by_on_nested_keys(spark):
    rows = all_types_rows(2000)

    def query(s):
        df = s.createDataFrame(rows, ALL_TYPES)
        return df.groupBy("st", "arr", "date").agg(F.count("*").alias("c"),
                                                   F.max("d_large").alias("m"))
    sluice_rows, spark_rows = collect_both(spark, query)
    assert [repr(r) for r in sluice_rows] == [repr(r) for r in spark_rows]


def test_null_type_column(spark):
    assert_same_as_spark(
        spark, lambda s: s.range(0, 1000, 1, 2).select("id", F.lit(None).alias("n"))
        .repartition(3, "id"))


def test_large_rows_bigger_than_a_page(spark):
    # Rows of 1.5 MiB (pages are 1 MiB in these tests) take pages of their own.
    def query(s):
        return s.range(0, 12, 1, 2).select(
            "id", F.expr("repeat(cast(id as string), 1572864)").alias("big")).repartition(3) \
            .select("id", F.length("big").alias("n"), F.sha2("big", 256).alias("h"))
    assert_same_as_spark(spark, query)


def test_spills_when_a_task_holds_more_than_its_cap(spark):
    # spark.sluice.maxHeldBytes is 4m in these tests: about 15 MiB per map task spills often.
    def query(s):
        return (s.range(0, 200_000, 1, 2)
                .withColumn("pad", F.expr("repeat('x', 50 + cast(id % 50 as int))"))
                .repartition(16, "id").groupBy((F.col("id") % 1000).alias("g"))
                .agg(F.count("*"), F.sum(F.length("pad"))))
    assert_same_as_spark(spark, query)


def test_empty_and_single_partition_shuffles(spark):
    # An empty relation is planned without an exchange.
    assert_same_as_spark(spark, lambda s: s.range(0, 0, 1, 2).repartition(3, "id"),
                         expect_sluice=False)
    # A global aggregate: its exchange has a single partition.
    assert_same_as_spark(spark, lambda s: s.range(0, 5000, 1, 3).groupBy().agg(F.sum("id")))
    assert_same_as_spark(spark, lambda s: s.range(0, 5000, 1, 3).repartition(1))


def test_rdd_group_by_key_falls_back_with_its_reason(spark):
    before_sluice, before_fallback = sluice_count(spark), fallback_count(spark)
    result = spark.sparkContext.parallelize([(i % 10, i) for i in range(1000)], 4) \
        .groupByKey().mapValues(len).collect()
    assert sorted(result) == [(k, 100) for k in range(10)]
    assert sluice_count(spark) == before_sluice
    assert fallback_count(spark) > before_fallback
    reasons = fallback_reasons(spark)
    assert "aggregator" in reasons or "not Spark SQL rows" in reasons


def test_intervals_times_and_user_defined_types_go_through_sluice(spark):
    from pyspark.ml.functions import vector_to_array
    from pyspark.ml.linalg import Vectors, VectorUDT
    before = fallback_count(spark)

    def query(s):
        rows = s.range(0, 3000, 1, 3).select(
            "id",
            F.expr("make_ym_interval(cast(id % 40 as int), cast(id % 12 as int))").alias("ym"),
            F.expr("make_dt_interval(id % 3, id % 24, id % 60, id / 7.0)").alias("dt"),
            F.expr("cast(make_dt_interval(0, id % 24, id % 60) as interval hour to minute)")
            .alias("hm"),
            F.expr("make_time(cast(id % 24 as int), cast(id % 60 as int), id % 60 + 0.123456)")
            .alias("t"),
            F.expr("array(make_ym_interval(1, 2), null)").alias("ym_list"),
            F.expr("named_struct('d', make_dt_interval(1, 0, 0, 0), 'n', "
                   "if(id % 5 = 0, null, make_time(1, 2, 3)))").alias("st"))
        rows = rows.withColumn("ym", F.when(F.col("id") % 11 == 0, None).otherwise(F.col("ym")))
        vectors = s.createDataFrame(
            [(i, Vectors.dense([i, i / 2.0]) if i % 3 else Vectors.sparse(3, [1], [float(i)]))
             for i in range(200)], T.StructType([T.StructField("vid", T.LongType()),
                                                 T.StructField("vector", VectorUDT())]))
        joined = rows.join(vectors, rows.id == vectors.vid, "left")
        # After the shuffle, as strings: pyspark cannot collect year-month intervals.
        return joined.repartition(5, "id").select(
            "id", *[F.col(c).cast("string").alias(c) for c in ("ym", "dt", "hm", "t", "st")],
            F.col("ym_list").cast("array<string>").alias("ym_list"),
            F.when(F.col("vector").isNotNull(), vector_to_array("vector")).alias("vector"))
    # Fallbacks counted right after the Sluice run (the Spark run that follows falls back on
    # purpose).
    fallbacks_with_sluice = []
    # Spark 4.1 keeps TIME behind a flag.
    spark.conf.set("spark.sql.timeType.enabled", "true")
    try:
        rows = assert_same_as_spark(
            spark, query, check_plan=lambda _: fallbacks_with_sluice.append(fallback_count(spark)))
    finally:
        spark.conf.unset("spark.sql.timeType.enabled")
    assert len(rows) == 3000
    assert fallbacks_with_sluice == [before], fallback_reasons(spark)


def test_limits_and_top_k_inside_subqueries_go_through_sluice(spark):
    """A limit or top-K executed as an RDD (inside a subquery, or under Dataset.rdd) shuffles its
    child's rows to one partition itself, without an exchange: that shuffle is Sluice's too."""
    before = fallback_count(spark)

    def query(s):
        return s.sql(
            "SELECT id FROM range(0, 40, 1, 2) WHERE "
            "EXISTS (SELECT * FROM range(0, 100, 1, 4) EXCEPT SELECT * FROM range(50)) AND "
            "id > (SELECT min(id) FROM (SELECT id FROM range(0, 1000, 1, 4) ORDER BY id DESC "
            "LIMIT 990))")
    fallbacks_with_sluice = []
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        rows = assert_same_as_spark(
            spark, query, check_plan=lambda _: fallbacks_with_sluice.append(fallback_count(spark)))
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")
    assert rows == [(i,) for i in range(11, 40)]
    assert fallbacks_with_sluice == [before], fallback_reasons(spark)


def test_calendar_intervals_go_through_sluice(spark):
    before = fallback_count(spark)

    # Months, days and microseconds apart, null, in arrays and structs, and the extremes of
    # each field; collected as strings, since pyspark cannot collect a calendar interval.
    def query(s):
        rows = s.range(0, 2000, 1, 2).select(
            "id",
            F.expr("if(id % 7 = 0, null, make_interval(0, cast(id % 13 as int), 0, "
                   "cast(id % 40 as int), 0, 0, id / 1000.0))").alias("interval"),
            F.expr("array(make_interval(0, 1, 0, 2, 3, 4, 5.000006), null, "
                   "make_interval(0, -2147483648, 0, 2147483647, 0, 0, 0))").alias("intervals"),
            F.expr("named_struct('i', make_interval(0, 0, 0, 0, 0, 0, id), 'n', id)").alias("st"))
        extremes = s.createDataFrame([(1,)], "k int").select(
            F.lit(-1).cast("long").alias("id"),
            F.expr("make_interval(0, 0, 0, 0, 0, 0, 9223372036.854775)").alias("interval"),
            F.expr("array(make_interval(0, 0, 0, 0, 0, 0, -9223372036.854775))").alias("intervals"),
            F.expr("named_struct('i', make_interval(0, 0, 0, 0, 2562047, 0, 0), 'n', 0L)")
            .alias("st"))
        return rows.unionByName(extremes).repartition(3, "id").select(
            "id", F.col("interval").cast("string"), F.col("intervals").cast("array<string>"),
            F.col("st.i").cast("string").alias("st_i"), F.col("st.n").alias("st_n"))
    fallbacks_with_sluice = []
    rows = assert_same_as_spark(
        spark, query, check_plan=lambda _: fallbacks_with_sluice.append(fallback_count(spark)))
    assert len(rows) == 2001
    assert fallbacks_with_sluice == [before], fallback_reasons(spark)


def test_variants_go_through_sluice(spark):
    before = fallback_count(spark)

    # Objects, arrays, nulls (SQL and JSON), in arrays and structs; collected as JSON strings.
    def query(s):
        rows = s.range(0, 2000, 1, 2).select(
            "id",
            F.expr("if(id % 9 = 0, null, parse_json(concat('{\"a\": ', cast(id as string), "
                   "', \"b\": [1, \"x\", null, {\"c\": 2.5}]}')))").alias("v"),
            F.expr("array(parse_json('null'), null, parse_json(cast(id as string)))").alias("vs"),
            F.expr("named_struct('v', parse_json(repeat('[1,', cast(id % 5 as int)) || '0' || "
                   "repeat(']', cast(id % 5 as int))), 'n', id)").alias("st"))
        return rows.repartition(3, "id").select(
            "id", F.col("v").cast("string"), F.col("vs").cast("array<string>"),
            F.col("st.v").cast("string").alias("st_v"), F.col("st.n").alias("st_n"))
    fallbacks_with_sluice = []
    rows = assert_same_as_spark(
        spark, query, check_plan=lambda _: fallbacks_with_sluice.append(fallback_count(spark)))
    assert len(rows) == 2000
    assert fallbacks_with_sluice == [before], fallback_reasons(spark)


def test_geometries_and_geographies_go_through_sluice(spark):
    before = fallback_count(spark)
    point_a = "unhex('0101000000000000000000F03F0000000000000040')"
    point_b = "unhex('010100000000000000000008400000000000001040')"

    # Collected as their well-known binary; chosen by id, so that they are not constants the
    # optimizer computes after the shuffle.
    def query(s):
        return s.range(0, 2000, 1, 2).select(
            "id",
            F.expr(f"case when id % 3 = 0 then null when id % 3 = 1 then st_geomfromwkb({point_a}) "
                   f"else st_geomfromwkb({point_b}) end").alias("g"),
            F.expr(f"if(id % 2 = 0, st_geogfromwkb({point_a}), st_geogfromwkb({point_b}))")
            .alias("geo")) \
            .repartition(3, "id").select("id", F.expr("st_asbinary(g)").alias("g"),
                                         F.expr("st_asbinary(geo)").alias("geo"))
    fallbacks_with_sluice = []
    spark.conf.set("spark.sql.geospatial.enabled", "true")
    try:
        rows = assert_same_as_spark(
            spark, query, check_plan=lambda _: fallbacks_with_sluice.append(fallback_count(spark)))
    finally:
        spark.conf.unset("spark.sql.geospatial.enabled")
    assert len(rows) == 2000
    assert fallbacks_with_sluice == [before], fallback_reasons(spark)


def test_rows_without_columns(spark):
    # count() after a repartition shuffles rows of zero columns.
    def query(s):
        return s.range(0, 5000, 1, 3).repartition(4).groupBy().count()
    rows = assert_same_as_spark(spark, query)
    assert rows == [(5000,)]


def map_status_checksums(spark, shuffle_ids):
    """Each shuffle's map statuses' row-based checksums, in map index order."""
    tracker = spark._jvm.org.apache.spark.SparkEnv.get().mapOutputTracker()
    checksums = {}
    for shuffle_id in shuffle_ids:
        statuses = tracker.shuffleStatuses().get(shuffle_id).get().mapStatuses()
        checksums[shuffle_id] = [status.checksumValue() for status in statuses]
    return checksums


def shuffle_ids(spark):
    tracker = spark._jvm.org.apache.spark.SparkEnv.get().mapOutputTracker()
    keys = spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(
        tracker.shuffleStatuses().keySet())
    return set(keys)


def test_row_based_checksums_are_the_ones_spark_computes(spark):
    # With order-independent checksums on, every map status carries Spark's checksum of the rows
    # it wrote (what a retried stage is compared against): the same under Sluice as under
    # Spark's shuffle, not 0.
    spark.conf.set("spark.sql.shuffle.orderIndependentChecksum.enabled", "true")
    try:
        def run(sluice_enabled):
            spark.conf.set("spark.sluice.enabled", str(sluice_enabled).lower())
            before_ids = shuffle_ids(spark)
            before = sluice_count(spark)
            rows = keyed(spark, rows=20_000, keys=101).repartition(6, "k").collect()
            used = sluice_count(spark) - before
            new_ids = sorted(shuffle_ids(spark) - before_ids)
            return sorted(map(tuple, rows)), used, map_status_checksums(spark, new_ids)
        with_sluice, used, sluice_checksums = run(True)
        with_spark, _, spark_checksums = run(False)
    finally:
        spark.conf.unset("spark.sluice.enabled")
        spark.conf.unset("spark.sql.shuffle.orderIndependentChecksum.enabled")
    assert used > 0, fallback_reasons(spark)
    assert with_sluice == with_spark
    assert len(sluice_checksums) == len(spark_checksums) == 1
    [sluice_values] = sluice_checksums.values()
    [spark_values] = spark_checksums.values()
    assert all(value != 0 for value in sluice_values), sluice_values
    assert sluice_values == spark_values
