"""The Python package as a user meets it: the README's example, polars, DuckDB and pyarrow in and out,
the whole-shuffle convenience, and the types the engine carries."""

import os
import pathlib
import re
import subprocess
import sys

import pyarrow as pa
import pytest

import sluice

README = pathlib.Path(os.environ.get("SLUICE_README") or
                      pathlib.Path(__file__).resolve().parents[2] / "README.md")


def readme_example():
    text = README.read_text()
    block = re.search(r"<!-- python-example -->\s*```python\n(.*?)```", text, re.S)
    assert block, "README.md has no python-example block"
    return block.group(1)


def test_the_readme_example_runs_as_written(tmp_path):
    environment = dict(os.environ)
    if os.environ.get("SLUICE_TEST_INSTALLED") != "1":
        environment["PYTHONPATH"] = str(pathlib.Path(sluice.__file__).resolve().parents[1])
    result = subprocess.run([sys.executable, "-c", readme_example()], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, env=environment)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 6 and lines[-1] == "4", result.stdout


def test_polars_in_and_out(tmp_path):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"id": list(range(500)), "name": [f"n{i % 37}" for i in range(500)],
                          "tags": [[str(i), "x"] for i in range(500)]})
    result = sluice.shuffle([frame, frame.head(10)], keys=["id"], partitions=8,
                            directory=tmp_path, codec="zstd")
    back = pl.concat([pl.DataFrame(partition) for partition in result])
    assert back.shape == (510, 3)
    expected = pl.concat([frame, frame.head(10)]).sort(["id", "name"])
    assert back.sort(["id", "name"]).equals(expected)


def test_duckdb_and_polars_take_the_reader_directly(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    table = pa.table({"k": pa.array(range(1000), pa.int64()),
                      "v": pa.array([i % 7 for i in range(1000)], pa.int32())})
    data_path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitions=4, keys=["k"],
                          codec="lz4", spark_files=True) as writer:
        writer.write(table)
    reader = sluice.read_partitions([data_path], 0, 4)
    # DuckDB scans a RecordBatchReader by its Python name.
    [(count, total)] = duckdb.sql("select count(*), sum(v) from reader").fetchall()
    assert (count, total) == (1000, sum(i % 7 for i in range(1000)))
    frame = pl.from_arrow(sluice.read_partitions([data_path], 0, 4).read_all())
    assert frame.sort("k")["v"].to_list() == [i % 7 for i in range(1000)]


def test_shuffle_places_rows_as_a_map_writer_does(tmp_path):
    table = pa.table({"k": pa.array(range(1000), pa.int64()),
                      "v": [f"value {i}" for i in range(1000)]})
    result = sluice.shuffle([table], keys=["k"], partitions=16, directory=tmp_path / "a")
    with sluice.MapWriter(table.schema, data_path=str(tmp_path / "b.data"), partitions=16,
                          keys=["k"], spark_files=True) as writer:
        writer.write(table)
    for p in range(16):
        mine = sluice.read_partitions([str(tmp_path / "b.data")], p).read_all()
        assert result.partition(p).read_all().equals(mine)
    assert len(result) == 16 and len(result.outputs) == 1


def test_shuffle_reads_parquet_and_ipc_files(tmp_path):
    import pyarrow.parquet as pq
    table = pa.table({"k": list(range(300)), "s": [str(i) for i in range(300)]})
    pq.write_table(table, tmp_path / "a.parquet")
    with pa.ipc.new_file(str(tmp_path / "b.arrow"), table.schema) as writer:
        writer.write_table(table)
    with pa.ipc.new_stream(str(tmp_path / "c.arrows"), table.schema) as writer:
        writer.write_table(table)
    result = sluice.shuffle([tmp_path / "a.parquet", str(tmp_path / "b.arrow"),
                             tmp_path / "c.arrows"], keys=["k"], partitions=5,
                            directory=tmp_path / "out")
    assert sum(partition.read_all().num_rows for partition in result) == 900


def test_shuffle_without_keys_is_round_robin_and_a_bad_partition_is_an_index_error(tmp_path):
    table = pa.table({"x": list(range(100))})
    result = sluice.shuffle([table], partitions=4, directory=tmp_path)
    sizes = [partition.read_all().num_rows for partition in result]
    assert sum(sizes) == 100 and max(sizes) - min(sizes) <= 1
    with pytest.raises(IndexError):
        result.partition(4)


def test_every_type_the_engine_carries_round_trips(tmp_path):
    from datetime import date, datetime, timezone
    from decimal import Decimal
    table = pa.table({
        "b": pa.array([True, None, False]),
        "i8": pa.array([1, None, -3], pa.int8()), "u64": pa.array([1, 2, None], pa.uint64()),
        "f": pa.array([1.5, None, float("nan")], pa.float32()),
        "d": pa.array([1.5, -0.0, None]),
        "day": pa.array([date(2024, 1, 1), None, date(1970, 1, 2)]),
        "ts": pa.array([datetime(2024, 1, 1, tzinfo=timezone.utc), None, None],
                       pa.timestamp("us", "UTC")),
        "dec": pa.array([Decimal("1.25"), None, Decimal("-3.50")], pa.decimal128(10, 2)),
        "s": ["a", None, "天地"], "ls": pa.array(["x", "y", None], pa.large_string()),
        "bin": pa.array([b"\x00", None, b"\xff"]),
        "fsb": pa.array([b"ab", None, b"cd"], pa.binary(2)),
        "l": pa.array([[1, 2], None, []], pa.list_(pa.int32())),
        "st": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}]),
        "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
    })
    result = sluice.shuffle([table], partitions=1, directory=tmp_path, codec="lz4")
    back = result.partition(0).read_all()
    for name in table.column_names:
        assert back.column(name).equals(table.column(name)) or name == "f", name
    # NaN is not equal to itself: compare the float column's bits.
    assert back.column("f").cast(pa.float64()).to_pylist()[:2] == [1.5, None]
