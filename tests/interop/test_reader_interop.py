"""The reduce-side reader checked from outside: partitions read through the C stream equal what
pyarrow reads from the same bytes and what Spark's hash partitioning (reimplemented in Python)
assigns; data files and index files that pyarrow and Python's struct wrote are read too; bad
inputs raise errors that name the map output, the partition and the byte."""

import random
import struct
import threading
import zlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc
import pytest

import sluice
from sluice import SluiceError

from arrow_data import all_types_schema, random_table, take_rows
from spark_reference import partition_of
from segments import read_segment

PARTITIONS = 8


def keyed_table(rows, seed):
    rng = random.Random(seed)
    return pa.table(
        {
            "id": pa.array([rng.randint(-(2**40), 2**40) for _ in range(rows)], pa.int64()),
            "name": pa.array([None if rng.random() < 0.1 else "n" + str(rng.randint(0, 999))
                              for _ in range(rows)]),
            "pid": pa.array([rng.randint(0, PARTITIONS - 1) for _ in range(rows)], pa.int32()),
            "payload": pa.array([[rng.random() for _ in range(rng.randint(0, 3))]
                                 for _ in range(rows)], pa.list_(pa.float64())),
        }
    )


def write_maps(tmp_path, tables, **settings):
    """Writes one map output per table in Spark's layout; returns the data paths."""
    paths = []
    for m, table in enumerate(tables):
        path = tmp_path / f"shuffle_0_{m}_0.data"
        with sluice.MapWriter(table.schema, data_path=str(path), spark_files=True,
                              map_id=m, **settings) as writer:
            writer.write(table)
        paths.append(path)
    return paths


def pyarrow_partition(path, partition):
    """Reads one partition of a map output with pyarrow alone (index by struct)."""
    data = path.read_bytes()
    index = pathlib_index(path).read_bytes()
    offsets = struct.unpack(f">{len(index) // 8}q", index)
    piece = data[offsets[partition]:offsets[partition + 1]]
    if not piece:
        return []
    return read_segment(piece, data).to_pylist()


def pathlib_index(path):
    return path.with_suffix(".index")


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
@pytest.mark.parametrize("coalesce", [True, False])
@pytest.mark.parametrize("read_ahead", [0, 3])
def test_hash_partitions_equal_spark_and_pyarrow(tmp_path, codec, coalesce, read_ahead):
    tables = [keyed_table(400, seed=m) for m in range(5)]
    paths = write_maps(tmp_path, tables, partitions=PARTITIONS, keys=["id", "name"], codec=codec,
                       block_rows=32)
    for start, end in [(0, 1), (3, 4), (2, 6), (0, PARTITIONS)]:
        reader = sluice.read_partitions(paths, start, end, coalesce=coalesce,
                                        read_ahead=read_ahead, batch_rows=100)
        table = reader.read_all()
        table.validate(full=True)
        assert table.schema.equals(tables[0].schema)
        expected = []
        for m, source in enumerate(tables):
            by_pyarrow = []
            for p in range(start, end):
                by_pyarrow += pyarrow_partition(paths[m], p)
            by_spark = [row for p in range(start, end) for row in source.to_pylist()
                        if partition_of([row["id"], row["name"]], ["long", "string"],
                                        PARTITIONS) == p]
            assert by_pyarrow == by_spark
            expected += by_spark
        assert table.to_pylist() == expected, (start, end)
        if coalesce:
            assert all(batch.num_rows <= 100 for batch in table.to_batches())


def test_every_type_given_partitions(tmp_path):
    schema = all_types_schema().append(pa.field("pid", pa.int32(), nullable=False))
    tables = []
    for m in range(4):
        base = random_table(all_types_schema(), 150, seed=m)
        pids = pa.array([(i * 7 + m) % 5 for i in range(150)], pa.int32())
        tables.append(base.append_column(schema.field("pid"), pids))
    paths = write_maps(tmp_path, tables, partitioning="given", partitions=5, keys=["pid"],
                       codec="lz4")
    report = sluice.ReadReport()
    table = sluice.read_partitions(paths, 1, 4, report=report).read_all()
    table.validate(full=True)
    # Timestamps of every unit overflow Python's datetime, so compare as Arrow tables.
    expected = pa.concat_tables([
        take_rows(source, [i for i, pid in enumerate(source["pid"].to_pylist()) if pid == p])
        for source in tables for p in range(1, 4)])
    assert table.equals(expected)
    metrics = report.metrics
    assert metrics["rows"] == expected.num_rows
    assert metrics["sources"] == 4
    assert metrics["schemas_parsed"] == 1


def test_reads_data_and_index_files_written_by_pyarrow(tmp_path):
    """A data file of pyarrow IPC streams (compressed by Arrow C++) and an index made with
    struct: the reader needs nothing Sluice wrote."""
    schema = all_types_schema()
    expected = []
    paths = []
    for m, compression in enumerate([None, "lz4", "zstd"]):
        data = b""
        offsets = [0]
        for p in range(3):
            if p == 1 and m == 1:  # an empty partition is zero bytes
                offsets.append(len(data))
                continue
            table = random_table(schema, 20 + 10 * p, seed=10 * m + p)
            sink = pa.BufferOutputStream()
            options = pa.ipc.IpcWriteOptions(compression=compression)
            with pa.ipc.new_stream(sink, schema, options=options) as writer:
                for batch in table.to_batches(max_chunksize=7):
                    writer.write_batch(batch)
            data += sink.getvalue().to_pybytes()
            offsets.append(len(data))
            if 1 <= p < 3:
                expected.append(table)
        path = tmp_path / f"pyarrow_{m}.data"
        path.write_bytes(data)
        path.with_suffix(".index").write_bytes(struct.pack(f">{len(offsets)}q", *offsets))
        paths.append(path)
    table = sluice.read_partitions(paths, 1, 3).read_all()
    table.validate(full=True)
    assert table.equals(pa.concat_tables(expected))


def test_checksums_are_verified(tmp_path):
    tables = [keyed_table(300, seed=m) for m in range(3)]
    paths = write_maps(tmp_path, tables, partitions=PARTITIONS, keys=["id"], checksum="crc32")
    assert len(sluice.read_partitions(paths, 0, PARTITIONS, checksum="crc32").read_all()) == 900
    # Change one byte of map 1's partition 2; its checksum (zlib.crc32) no longer matches.
    index = struct.unpack(f">{PARTITIONS + 1}q", pathlib_index(paths[1]).read_bytes())
    data = bytearray(paths[1].read_bytes())
    position = (index[2] + index[3]) // 2
    data[position] ^= 0x10
    paths[1].write_bytes(bytes(data))
    expected = zlib.crc32(bytes(data[index[2]:index[3]]))
    with pytest.raises(Exception) as failure:
        sluice.read_partitions(paths, 0, PARTITIONS, checksum="crc32").read_all()
    message = str(failure.value)
    assert "map output 1" in message and "partition 2" in message
    assert "CRC32 checksum mismatch" in message and f"computed {expected}" in message
    assert f"byte {index[2]}" in message


def test_bad_inputs_name_map_output_partition_and_byte(tmp_path):
    tables = [keyed_table(200, seed=m) for m in range(3)]
    paths = write_maps(tmp_path, tables, partitions=PARTITIONS, keys=["id"], codec="lz4")
    # Truncated data file.
    data = paths[2].read_bytes()
    paths[2].write_bytes(data[: len(data) // 2])
    with pytest.raises(Exception) as failure:
        sluice.read_partitions(paths, 0, PARTITIONS).read_all()
    assert "map output 2" in str(failure.value) and "byte " in str(failure.value)
    assert "partition " in str(failure.value)
    # Decreasing index offsets.
    paths[2].write_bytes(data)
    offsets = list(struct.unpack(f">{PARTITIONS + 1}q", pathlib_index(paths[0]).read_bytes()))
    offsets[3], offsets[5] = offsets[5] + 1, offsets[3]
    pathlib_index(paths[0]).write_bytes(struct.pack(f">{PARTITIONS + 1}q", *offsets))
    with pytest.raises(Exception) as failure:
        sluice.read_partitions(paths, 0, PARTITIONS).read_all()
    assert "map output 0" in str(failure.value) and "is below that of partition" in str(failure.value)


def test_skip_failed_reads_the_rest_and_reports(tmp_path):
    tables = [keyed_table(200, seed=m) for m in range(4)]
    paths = write_maps(tmp_path, tables, partitions=PARTITIONS, keys=["id"], codec="zstd")
    paths[1].unlink()
    report = sluice.ReadReport()
    table = sluice.read_partitions(paths, 0, PARTITIONS, skip_failed=True, report=report,
                                   read_ahead=2).read_all()
    expected = [row for m in (0, 2, 3) for p in range(PARTITIONS)
                for row in pyarrow_partition(paths[m], p)]
    assert table.to_pylist() == expected
    failures = report.failures
    assert len(failures) == 1
    assert failures[0]["source"] == 1 and failures[0]["code"] == "IOError"
    assert str(paths[1]) in failures[0]["message"]
    assert report.metrics["failed_sources"] == 1


def test_pushed_blocks_from_another_thread(tmp_path):
    tables = [keyed_table(300, seed=m) for m in range(6)]
    paths = write_maps(tmp_path, tables, partitions=PARTITIONS, keys=["id"], codec="lz4")
    queue = sluice.BlockQueue()

    def fetcher():
        for m, path in enumerate(paths):
            offsets = struct.unpack(f">{PARTITIONS + 1}q", pathlib_index(path).read_bytes())
            block = path.read_bytes()[offsets[2]:offsets[6]]
            lengths = [offsets[p + 1] - offsets[p] for p in range(2, 6)]
            if m == 3:
                queue.push_failure(f"map output {m} from host-3", "connection reset")
            else:
                queue.push(block, 2, 6, partition_lengths=lengths if m % 2 else None,
                           name=f"map output {m}")
        queue.close()

    thread = threading.Thread(target=fetcher)
    thread.start()
    report = sluice.ReadReport()
    table = sluice.read_blocks(queue, schema=tables[0].schema, skip_failed=True,
                               report=report).read_all()
    thread.join()
    expected = [row for m in (0, 1, 2, 4, 5) for p in range(2, 6)
                for row in pyarrow_partition(paths[m], p)]
    assert table.to_pylist() == expected
    assert report.failures[0]["message"].startswith("map output 3 from host-3")


def test_unknown_setting_is_rejected(tmp_path):
    with pytest.raises(SluiceError) as failure:
        sluice.read_partitions([], 0, 1, read_ahed=2)
    assert "read-ahed" in str(failure.value)
    with pytest.raises(SluiceError):
        sluice.read_partitions([], 0, 1, batch_rows=0)


def test_an_empty_partition_has_the_map_outputs_schema(tmp_path):
    """An empty partition read back as a table without columns; it has the map outputs' schema,
    and a schema given by the caller when no map output has a row."""
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])
    path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(schema, data_path=str(path), partitions=64, keys=["id"],
                          spark_files=True) as writer:
        writer.write(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]}, schema=schema))
    sizes = [len(sluice.read_partitions([str(path)], p).read_all()) for p in range(64)]
    empty = sizes.index(0)
    table = sluice.read_partitions([str(path)], empty).read_all()
    assert table.num_rows == 0 and table.schema.equals(schema)

    nothing = tmp_path / "empty" / "shuffle_0_0_0.data"
    nothing.parent.mkdir()
    with sluice.MapWriter(schema, data_path=str(nothing), partitions=4, keys=["id"],
                          spark_files=True):
        pass
    assert sluice.read_partitions([str(nothing)], 0, 4).read_all().schema.names == []
    given = sluice.read_partitions([str(nothing)], 0, 4, schema=schema).read_all()
    assert given.num_rows == 0 and given.schema.equals(schema)


def test_a_missing_index_says_how_to_get_one(tmp_path):
    schema = pa.schema([pa.field("id", pa.int64())])
    path = tmp_path / "out.data"
    with sluice.MapWriter(schema, data_path=str(path), partitions=4, keys=["id"]) as writer:
        writer.write(pa.table({"id": [1, 2]}, schema=schema))
    with pytest.raises(sluice.SluiceError, match="spark_files=True"):
        sluice.read_partitions([str(path)], 0, 4).read_all()


def test_invalid_utf8_is_carried_unless_validation_is_asked(tmp_path):
    """Bytes out are bytes in; validate_utf8 on the reader refuses a string that is not UTF-8,
    naming the partition, the column and the value."""
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("s", pa.string())])
    binary = pa.array([b"ok", b"\xff\xfe", b"fine"], pa.binary())
    table = pa.table({"id": [1, 2, 3], "s": binary.view(pa.string())}, schema=schema)
    path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(schema, data_path=str(path), partitions=1, keys=["id"],
                          spark_files=True) as writer:
        writer.write(table)
    read = sluice.read_partitions([str(path)], 0).read_all()
    assert read.column("s").cast(pa.binary()).to_pylist() == [b"ok", b"\xff\xfe", b"fine"]
    with pytest.raises(Exception, match=r"partition 0: column 's': value 1 is not valid UTF-8"):
        sluice.read_partitions([str(path)], 0, validate_utf8=True).read_all()
