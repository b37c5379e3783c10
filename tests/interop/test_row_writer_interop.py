"""The row writer checked from outside: Spark-framed UnsafeRows in, partitions pyarrow opens with
exactly their rows in input order, and checksums that Python's zlib agrees with across spills."""

import random
import struct
import zlib

import pyarrow as pa
import pyarrow.ipc
import pytest

import sluice

from arrow_data import take_rows
from segments import read_segment
from spark_reference import crc32c


def spark_table(rows, seed):
    rng = random.Random(seed)
    return pa.table({
        "id": pa.array(range(rows), pa.int64()),
        "name": pa.array([None if rng.random() < 0.1 else "n" * rng.randint(0, 20) for _ in range(rows)]),
        "score": pa.array([rng.random() for _ in range(rows)]),
        "tags": pa.array([[rng.randint(0, 9) for _ in range(rng.randint(0, 3))] for _ in range(rows)], pa.list_(pa.int32())),
        "attrs": pa.array([{"k": str(i)} for i in range(rows)], pa.map_(pa.string(), pa.string())),
        "amount": pa.array([None if i % 7 == 0 else i * 1000 for i in range(rows)], pa.decimal128(30, 3)),
    })


@pytest.mark.parametrize("strategy", ["sort", "scatter"])
@pytest.mark.parametrize("algorithm", ["adler32", "crc32", "crc32c"])
def test_rows_partitioned_and_checksummed_across_spills(tmp_path, strategy, algorithm):
    table = spark_table(6000, seed=3)
    partitions = 29
    rng = random.Random(9)
    data_path = tmp_path / "shuffle_0_0_0.data"
    expected = [[] for _ in range(partitions)]
    with sluice.RowMapWriter(table.schema, data_path=str(data_path), partitions=partitions,
                             codec="lz4", checksum=algorithm, spark_files=True,
                             memory_budget="96KiB", page_bytes="32KiB", strategy=strategy) as writer:
        for batch in table.to_batches(max_chunksize=500):
            ids = [rng.randrange(partitions) for _ in range(batch.num_rows)]
            writer.append(ids, sluice.rows_from_arrow(batch))
            for row_id, partition in zip(batch.column("id").to_pylist(), ids):
                expected[partition].append(row_id)
    output = writer.output
    assert output.metrics["spills"] >= 2
    data = data_path.read_bytes()
    offsets = struct.unpack(f">{partitions + 1}q", (tmp_path / "shuffle_0_0_0.index").read_bytes())
    assert list(offsets) == list(output.offsets)
    checksums = struct.unpack(
        f">{partitions}q", (tmp_path / f"shuffle_0_0_0.checksum.{algorithm.upper()}").read_bytes())
    compute = {"adler32": zlib.adler32, "crc32": zlib.crc32, "crc32c": crc32c}[algorithm]
    for p in range(partitions):
        piece = data[offsets[p]:offsets[p + 1]]
        assert checksums[p] == compute(piece), f"partition {p}"
        got = read_segment(piece, data) if piece else None
        ids = got.column("id").to_pylist() if got is not None else []
        assert ids == expected[p], f"partition {p}"
        if got is not None:
            got.validate(full=True)
            want = take_rows(table, expected[p])
            assert got.equals(want)


def test_bad_framing_is_named(tmp_path):
    schema = pa.schema([("x", pa.int64())])
    writer = sluice.RowMapWriter(schema, data_path=str(tmp_path / "x.data"), partitions=2)
    try:
        with pytest.raises(sluice.SluiceError, match="byte"):
            writer.append([0], b"\x00\x00\x01\x00garbage")
    finally:
        writer.close()
    assert list(tmp_path.iterdir()) == []
