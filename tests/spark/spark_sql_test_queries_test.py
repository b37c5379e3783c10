"""Spark's own SQL test queries through Sluice: every query of a set of files from Spark's
SQLQueryTestSuite inputs (the `sql-tests/inputs/*.sql` files packaged in Spark's
spark-sql tests jar, fetched from Maven Central into Maven's cache) runs once with Sluice and
once with Spark's shuffle, in the same application, and must give the same rows or the same
error; no shuffle may fall back to Spark's.

The files are the ones whose queries shuffle: aggregation, grouping sets, windows, joins (with
broadcasts off, so every join shuffles), set operations, pivots, subqueries, and the types that
reach a shuffle less often (intervals, time, timestamps without time zone, variants). Each file
runs in a session of its own with its own database, as Spark's suite isolates them; `--SET`
lines apply, `--CONFIG_DIM` variants and `--IMPORT`ed files are not repeated. Queries whose rows
depend on the order a shuffle delivers them (collect_list, first, row_number over ties, LIMIT
without ORDER BY, ...) are compared as sorted rows like the others; where such a query differs,
the difference is reported but is not an error, because Spark does not define that order.
Fallbacks still met are listed in KNOWN_FALLBACKS with their cause; any other fails the test.

SLUICE_SQL_TEST_FILES (a comma-separated list of input files, relative to `sql-tests/inputs`)
runs those files instead, to explore more of Spark's suite than `make test` has time for.
"""

import os
import re
import subprocess
import zipfile

import pytest

from conftest import fallback_count, fallback_reasons, sluice_count

FILES = [
    "group-by.sql",
    "grouping_set.sql",
    "group-analytics.sql",
    "window.sql",
    "natural-join.sql",
    "using-join.sql",
    "outer-join.sql",
    "inner-join.sql",
    "except-all.sql",
    "intersect-all.sql",
    "pivot.sql",
    "interval.sql",
    "time.sql",
    "timestamp-ntz.sql",
    "variant-field-extractions.sql",
    "subquery/in-subquery/in-joins.sql",
    "subquery/exists-subquery/exists-joins-and-set-ops.sql",
    "postgreSQL/join.sql",
]

# Fallbacks these queries meet that are not Sluice's to carry (README, "Falls back"), kept here
# so that any other fallback fails the test: (file, words of the reason).
KNOWN_FALLBACKS = [
    # A full outer join without equality keys is a BroadcastNestedLoopJoin, which shuffles JVM
    # objects itself (RDD.coalesce(1, shuffle = true)): an RDD shuffle, not rows.
    ("postgreSQL/join.sql", "JavaSerializer"),
]

# Functions and clauses whose result depends on the order rows arrive in (with a collation, which
# of the values equal under it a DISTINCT, INTERSECT or GROUP BY keeps is the first to arrive).
ORDER_SENSITIVE = re.compile(
    r"\b(rand|randn|random|uuid|shuffle|current_\w+|now|monotonically_increasing_id|collate|"
    r"spark_partition_id|collect_list|collect_set|array_agg|first|last|first_value|last_value|"
    r"any_value|nth_value|listagg|string_agg|max_by|min_by|mode|row_number|rank|dense_rank|lag|"
    r"lead|ntile|percent_rank|cume_dist|limit|offset|tablesample)\b",
    re.IGNORECASE)

QUERY = re.compile(r"^\s*\(*\s*(select|with|values|from|table)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def sql_test_inputs(local_dir):
    """The `sql-tests/inputs` directory of Spark's spark-sql tests jar (the pyspark version)."""
    import pyspark
    version = pyspark.__version__
    jar_dir = os.path.join(local_dir, "spark-sql-tests")
    jar = os.path.join(jar_dir, f"spark-sql_2.13-{version}-tests.jar")
    if not os.path.exists(jar):
        command = ["mvn", "-B", "-q", "dependency:copy",
                   f"-Dartifact=org.apache.spark:spark-sql_2.13:{version}:jar:tests",
                   f"-DoutputDirectory={jar_dir}"]
        # Offline first: Maven's cache has it after the first run.
        if subprocess.run(command + ["-o"], capture_output=True, cwd=local_dir).returncode != 0:
            subprocess.run(command, check=True, capture_output=True, cwd=local_dir)
    inputs = os.path.join(jar_dir, "inputs")
    with zipfile.ZipFile(jar) as archive:
        for name in archive.namelist():
            if name.startswith("sql-tests/inputs/") and name.endswith(".sql"):
                target = os.path.join(inputs, name[len("sql-tests/inputs/"):])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as out:
                    out.write(archive.read(name))
    return inputs


def statements(path):
    """The file's statements and its --SET settings, as Spark's SQLQueryTestSuite splits them."""
    settings = {}
    code = []
    for line in open(path, encoding="utf-8"):
        stripped = line.strip()
        if stripped.startswith("--SET "):
            for setting in stripped[len("--SET "):].split(","):
                key, _, value = setting.partition("=")
                settings[key.strip()] = value.strip()
        elif not stripped.startswith("--"):
            code.append(line)
    parts = re.split(r"(?<=[^\\]);", "".join(code))
    return [p.strip() for p in parts if p.strip()], settings


def outcome(session, statement):
    """The query's rows as sorted reprs, or its error's class and condition."""
    try:
        rows = session.sql(statement).collect()
        return ("rows", sorted(repr(tuple(r)) for r in rows))
    except Exception as e:  # noqa: BLE001 -- every failure is an outcome to compare
        condition = getattr(e, "getCondition", lambda: None)()
        return ("error", type(e).__name__, condition)


def test_spark_sql_test_queries_match_spark_shuffle_without_fallbacks(spark, sql_test_inputs):
    chosen = os.environ.get("SLUICE_SQL_TEST_FILES")
    files = [f.strip() for f in chosen.split(",") if f.strip()] if chosen else FILES
    sluice_before = sluice_count(spark)
    compared = 0
    differences = []
    fallbacks = []  # shuffles that fell back with Sluice on: file, statement, reason
    known_fallbacks = []
    order_sensitive_differences = []
    for index, name in enumerate(files):
        queries, settings = statements(os.path.join(sql_test_inputs, name))
        session = spark.newSession()
        session.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
        for key, value in settings.items():
            session.conf.set(key, value)
        database = f"sluice_sql_tests_{index}"
        session.sql(f"CREATE DATABASE {database}")
        session.sql(f"USE {database}")
        try:
            for statement in queries:
                if not QUERY.match(statement):
                    outcome(session, statement)  # DDL and DML, once
                    continue
                before = fallback_count(spark)
                known = set(fallback_reasons(spark).splitlines()) if before else set()
                with_sluice = outcome(session, statement)
                if fallback_count(spark) != before:
                    for reason in sorted(set(fallback_reasons(spark).splitlines()) - known):
                        entry = f"{name}: {statement[:200]}\n  {reason}"
                        if any(name == f and words in reason for f, words in KNOWN_FALLBACKS):
                            known_fallbacks.append(entry)
                        else:
                            fallbacks.append(entry)
                            print("fallback:", entry, flush=True)
                session.conf.set("spark.sluice.enabled", "false")
                try:
                    with_spark = outcome(session, statement)
                finally:
                    session.conf.unset("spark.sluice.enabled")
                compared += 1
                if with_sluice != with_spark:
                    entry = f"{name}: {statement[:300]}\n  sluice: {str(with_sluice)[:300]}\n" \
                            f"  spark:  {str(with_spark)[:300]}"
                    if ORDER_SENSITIVE.search(statement):
                        order_sensitive_differences.append(entry)
                    else:
                        differences.append(entry)
                        print("difference:", entry, flush=True)  # seen while a long run goes on
        finally:
            session.sql("USE default")
            session.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
    print(f"{compared} queries of {len(files)} files compared; "
          f"{sluice_count(spark) - sluice_before} shuffles through Sluice; "
          f"{len(order_sensitive_differences)} order-sensitive queries differ")
    for entry in order_sensitive_differences:
        print("order-sensitive difference:", entry)
    for entry in known_fallbacks:
        print("known fallback:", entry)
    assert not differences, "\n".join(differences)
    if not chosen:
        assert compared > 400
        assert sluice_count(spark) - sluice_before > 300
    assert not fallbacks, "\n".join(fallbacks)
