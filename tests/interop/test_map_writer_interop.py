"""The map writer checked from outside: partitions opened by pyarrow hold exactly the rows Spark's
partitioning (reimplemented in Python) assigns, in input order; Spark's index and checksum files
are checked byte for byte with Python's struct and zlib."""

import random
import struct
import zlib

import pyarrow as pa
import pyarrow.ipc
import pytest

import sluice
from sluice import SluiceError

from arrow_data import all_types_schema, random_table, sort_rows
from spark_reference import crc32c, partition_of, vectors_dir
from segments import read_segment


def read_file(path):
    with open(path, "rb") as file:
        return file.read()


def keyed_table(rows, seed):
    rng = random.Random(seed)
    words = ["", "a", "ab", "abc", "abcd", "abcde", "天地", "😁", "hello world"]
    return pa.table(
        {
            "id": pa.array([rng.choice([None] + list(range(-5, 5))) if rng.random() < 0.2 else rng.randint(-(2**63), 2**63 - 1) for _ in range(rows)], pa.int64()),
            "name": pa.array([None if rng.random() < 0.1 else rng.choice(words) + str(rng.randint(0, 99)) for _ in range(rows)]),
            "small": pa.array([rng.randint(-(2**31), 2**31 - 1) for _ in range(rows)], pa.int32()),
            "payload": pa.array([[rng.random() for _ in range(rng.randint(0, 3))] for _ in range(rows)], pa.list_(pa.float64())),
        }
    )


def expected_partitions(table, keys, kinds, partitions):
    rows = table.to_pylist()
    expected = [[] for _ in range(partitions)]
    for row in rows:
        expected[partition_of([row[key] for key in keys], kinds, partitions)].append(row)
    return expected


def check_output(tmp_path, data_path, output, table_rows_by_partition, schema, algorithm):
    data = read_file(data_path)
    partitions = len(output.lengths)
    # The index file: P + 1 big-endian int64 offsets that match the data file.
    index = read_file(str(data_path).replace(".data", ".index"))
    assert len(index) == 8 * (partitions + 1)
    offsets = list(struct.unpack(f">{partitions + 1}q", index))
    assert offsets == list(output.offsets)
    assert offsets[0] == 0 and offsets[-1] == len(data)
    # The checksum file: P big-endian int64 values of the partition bytes.
    checksum_bytes = read_file(str(data_path).replace(".data", f".checksum.{algorithm.upper()}"))
    checksums = struct.unpack(f">{partitions}q", checksum_bytes)
    compute = {"adler32": zlib.adler32, "crc32": zlib.crc32, "crc32c": crc32c}[algorithm]
    for p in range(partitions):
        piece = data[offsets[p] : offsets[p + 1]]
        assert checksums[p] == compute(piece), f"checksum of partition {p}"
        want = table_rows_by_partition[p]
        if not piece:
            assert want == []
            continue
        got = read_segment(piece, data)
        got.validate(full=True)
        assert got.schema.equals(schema)
        assert got.to_pylist() == want, f"partition {p}"


@pytest.mark.parametrize("partitions", [1, 16, 200, 8000, 100000])
@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_hash_partitions_match_spark(tmp_path, partitions, codec):
    table = keyed_table(3000, seed=partitions)
    data_path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitions=partitions,
                          keys=["id", "name", "small"], codec=codec, spark_files=True,
                          checksum="crc32") as writer:
        writer.write(table)
    expected = expected_partitions(table, ["id", "name", "small"], ["long", "string", "int"], partitions)
    check_output(tmp_path, data_path, writer.output, expected, table.schema, "crc32")


def range_order(values):
    """A key's place in Spark's ascending, nulls-first order: None first, strings by UTF-8 bytes."""
    return tuple((0,) if v is None else (1, v.encode() if isinstance(v, str) else v) for v in values)


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_range_partitions_match_spark(tmp_path, codec):
    table = keyed_table(3000, seed=31)
    keys = ["name", "id"]
    # 15 distinct non-null bounds spread over the sorted keys, as Spark's RangePartitioner
    # samples them: 16 partitions.
    distinct = sorted({tuple(row[k] for k in keys) for row in table.select(keys).to_pylist()
                       if None not in row.values()}, key=range_order)
    bounds = [distinct[(i + 1) * len(distinct) // 16] for i in range(15)]
    data_path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(table.schema,
                          range_bounds={k: [b[i] for b in bounds] for i, k in enumerate(keys)},
                          data_path=str(data_path), partitioning="range", partitions=16,
                          keys=keys, codec=codec, spark_files=True, checksum="crc32c") as writer:
        for batch in table.to_batches(max_chunksize=700):
            writer.write(batch)
    # Spark's getPartition: the number of bounds the key is greater than.
    bound_orders = [range_order(b) for b in bounds]
    expected = [[] for _ in range(16)]
    for row in table.to_pylist():
        key = range_order([row[k] for k in keys])
        expected[sum(1 for bound in bound_orders if key > bound)].append(row)
    assert all(expected), "every partition gets rows"
    check_output(tmp_path, data_path, writer.output, expected, table.schema, "crc32c")


@pytest.mark.parametrize("algorithm", ["adler32", "crc32", "crc32c"])
def test_spilling_writer_checksums(tmp_path, algorithm):
    table = keyed_table(20000, seed=5)
    data_path = tmp_path / "shuffle_1_2_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitions=37, keys=["name"],
                          codec="lz4", spark_files=True, checksum=algorithm,
                          memory_budget="100KiB") as writer:
        for batch in table.to_batches(max_chunksize=1000):
            writer.write(batch)
    assert writer.output.metrics["spills"] >= 5
    expected = expected_partitions(table, ["name"], ["string"], 37)
    check_output(tmp_path, data_path, writer.output, expected, table.schema, algorithm)


def test_every_type_survives_the_writer(tmp_path):
    table = random_table(all_types_schema(), 600, seed=21)
    table = table.append_column("row", pa.array(range(600), pa.int64()))
    schema = table.schema
    data_path = tmp_path / "map.data"
    with sluice.MapWriter(schema, data_path=str(data_path), partitioning="round-robin",
                          partitions=7, codec="zstd", spark_files=True, checksum="adler32",
                          memory_budget="200KiB") as writer:
        for batch in table.to_batches(max_chunksize=100):
            writer.write(batch)
    data = read_file(data_path)
    offsets = writer.output.offsets
    pieces = [read_segment(data[offsets[p]:offsets[p + 1]], data)
              for p in range(7) if offsets[p + 1] > offsets[p]]
    for piece in pieces:
        piece.validate(full=True)
    combined = pa.concat_tables(pieces)
    assert combined.num_rows == table.num_rows
    # Round-robin spreads rows evenly.
    assert max(piece.num_rows for piece in pieces) - min(piece.num_rows for piece in pieces) <= 1
    assert sort_rows(combined, "row").equals(table)


def test_given_partition_ids(tmp_path):
    table = pa.table({"pid": pa.array([3, 0, 3, 1, 2, 0], pa.int32()), "v": list("abcdef")})
    data_path = tmp_path / "given.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitioning="given",
                          partitions=4, keys=["pid"]) as writer:
        writer.write(table)
    data = read_file(data_path)
    offsets = writer.output.offsets
    values = [read_segment(data[offsets[p]:offsets[p + 1]], data).column("v").to_pylist()
              for p in range(4)]
    assert values == [["b", "f"], ["d"], ["e"], ["a", "c"]]


def test_bad_settings_are_named(tmp_path):
    schema = pa.schema([("x", pa.int64())])
    with pytest.raises(SluiceError, match="setting 'codec'"):
        sluice.MapWriter(schema, data_path=str(tmp_path / "x.data"), codec="brotli")
    with pytest.raises(SluiceError, match="no column 'nope'"):
        sluice.MapWriter(schema, data_path=str(tmp_path / "x.data"), keys=["nope"])
    with pytest.raises(SluiceError, match="No such file or directory"):
        sluice.MapWriter(schema, data_path=str(tmp_path / "missing" / "x.data"), keys=["x"])


def test_dictionary_columns_are_kept_or_unpacked(tmp_path):
    table = pa.table({"k": pa.array(["x", "y", None, "x"]).dictionary_encode(), "v": [1, 2, 3, 4]})
    for unpack in (False, True):
        data_path = tmp_path / f"dict-{unpack}.data"
        with sluice.MapWriter(table.schema, data_path=str(data_path), partitions=1, keys=["k"],
                              unpack_dictionaries=unpack) as writer:
            writer.write(table)
        got = pa.ipc.open_stream(pa.BufferReader(read_file(data_path))).read_all()
        assert got.column("k").to_pylist() == ["x", "y", None, "x"]
        assert got.schema.field("k").type == (pa.string() if unpack else table.schema.field("k").type)


def metadata_table(rows=300):
    """Extension types (arrow.uuid, arrow.json) and field metadata at every level of nesting,
    with schema metadata."""
    element = pa.field("item", pa.int64(), metadata={"unit": "cents"})
    inner = pa.field("inner", pa.float64(), metadata={"precision": "approximate"})
    schema = pa.schema([
        pa.field("key", pa.int64(), metadata={"role": "partition key"}),
        pa.field("id", pa.uuid()),
        pa.field("document", pa.json_()),
        pa.field("amounts", pa.list_(element), metadata={"origin": "ledger", "nul\0key": "v"}),
        pa.field("point", pa.struct([inner, pa.field("label", pa.string())])),
    ], metadata={"writer": "interop test"})
    rng = random.Random(5)
    return pa.table({
        "key": pa.array(range(rows), pa.int64()),
        "id": pa.ExtensionArray.from_storage(
            pa.uuid(), pa.array([rng.randbytes(16) for _ in range(rows)], pa.binary(16))),
        "document": pa.ExtensionArray.from_storage(
            pa.json_(), pa.array([None if i % 7 == 0 else f'{{"n": {i}}}' for i in range(rows)])),
        "amounts": pa.array([[i, i + 1][: i % 3] for i in range(rows)], pa.list_(element)),
        "point": pa.array([{"inner": i / 3, "label": str(i)} for i in range(rows)],
                          pa.struct([inner, pa.field("label", pa.string())])),
    }, schema=schema)


def test_extension_types_and_field_metadata_are_kept(tmp_path):
    table = metadata_table()
    data_path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitions=4, keys=["key"],
                          codec="lz4", spark_files=True) as writer:
        writer.write(table)
    data = read_file(data_path)
    offsets = writer.output.offsets
    # Each segment, opened by pyarrow, has the schema exactly: extension types come back as
    # extension arrays, every field keeps its metadata.
    pieces = []
    for p in range(4):
        piece = read_segment(data[offsets[p]:offsets[p + 1]], data)
        assert piece.schema.equals(table.schema, check_metadata=True), piece.schema
        assert isinstance(piece.column("id").chunk(0), pa.ExtensionArray)
        pieces.append(piece)
    assert pa.concat_tables(pieces).sort_by("key").equals(table, check_metadata=True)
    # And through the reader.
    read = sluice.read_partitions([data_path], 0, 4).read_all()
    assert read.schema.equals(table.schema, check_metadata=True), read.schema
    assert read.sort_by("key").equals(table, check_metadata=True)


def view_array(type_, values, buffer_of):
    """A string_view or binary_view array whose values over 12 bytes lie in several data
    buffers (`buffer_of(i)` picks value i's), built from its buffers as another producer would,
    with a garbage view under a null."""
    views = bytearray()
    buffers = [bytearray() for _ in range(3)]
    validity = bytearray((len(values) + 7) // 8)
    for i, value in enumerate(values):
        if value is None:
            views += struct.pack("<iiii", 99, 0x41414141, 7, 1 << 30)  # never read
            continue
        validity[i // 8] |= 1 << (i % 8)
        raw = value.encode() if isinstance(value, str) else value
        if len(raw) <= 12:
            views += struct.pack("<i", len(raw)) + raw.ljust(12, b"\0")
        else:
            b = buffer_of(i)
            views += struct.pack("<i", len(raw)) + raw[:4] + struct.pack("<ii", b, len(buffers[b]))
            buffers[b] += raw
    return pa.Array.from_buffers(
        type_, len(values), [pa.py_buffer(bytes(validity)), pa.py_buffer(bytes(views))] +
        [pa.py_buffer(bytes(b)) for b in buffers], null_count=values.count(None))


@pytest.mark.parametrize("type_", [pa.string_view(), pa.binary_view()], ids=str)
def test_views_in_several_data_buffers_are_gathered_and_read_back(tmp_path, type_):
    text = type_ == pa.string_view()
    values = [None if i % 11 == 0 else
              ("v" * (i % 30) + str(i)) if text else bytes([i % 256]) * (i % 30)
              for i in range(3000)]
    column = view_array(type_, values, lambda i: i % 3)
    column.validate(full=True)
    table = pa.table({"k": pa.array(range(3000), pa.int64()), "v": column})
    data_path = tmp_path / "views.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitions=5, keys=["k"],
                          codec="lz4", spark_files=True, memory_budget="64KiB") as writer:
        for batch in table.to_batches(max_chunksize=700):
            writer.write(batch)
    read = sluice.read_partitions([str(data_path)], 0, 5).read_all()
    read.validate(full=True)
    assert read.schema == table.schema
    assert sort_rows(read, "k").column("v").to_pylist() == values
