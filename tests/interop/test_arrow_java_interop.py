"""Sluice and Arrow Java (arrow-vector 18.3 with arrow-compression), both ways.

Arrow Java decodes every partition segment of a map output with its own IPC reader and its own
LZ4 and zstd decompression, and writes back what it decoded without compression; pyarrow only
opens that plain stream to compare it with the rows the writer was given. The other way, Arrow
Java's writer (with each body compression) writes the stream that `sluice write` shuffles and
`sluice read` returns unchanged. decimal32 and decimal64, which Arrow Java does not implement,
are refused by it with an error, never misread.
"""

import os
import subprocess

import pyarrow as pa
import pytest

import sluice

import arrow_java
from arrow_data import all_types_schema, random_table
from segments import compact_codec, segment_stream

PARTITIONS = 5
CLI = os.environ.get("SLUICE_CLI")
# The Arrow types Arrow Java 18.3 refuses to read ("Library only supports 128-bit and 256-bit
# decimal values").
JAVA_REFUSES = (pa.decimal32(7, 2), pa.decimal64(15, 3))


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    return arrow_java.build(tmp_path_factory.mktemp("arrow_java"))


def java_schema():
    """The all-types schema without the types Arrow Java cannot read."""
    schema = all_types_schema()
    return pa.schema([field for field in schema if field.type not in JAVA_REFUSES])


def keyed_table(schema, rows, seed):
    """A random table of `schema` with a first column "pid" naming each row's partition:
    partition 0 gets no row, partition 1 one row, the others the rest."""
    table = random_table(schema, rows, seed)
    ids = [1 if i == 0 else 2 + i % (PARTITIONS - 2) for i in range(rows)]
    return table.add_column(0, pa.field("pid", pa.int32(), nullable=False), pa.array(ids, pa.int32()))


def partition_rows(table, partition):
    ids = table.column("pid").to_pylist()
    return table.take(pa.array([i for i, p in enumerate(ids) if p == partition], pa.int64()))


def map_output_segments(tmp_path, table, codec, **settings):
    data_path = tmp_path / f"shuffle_0_{codec}_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitioning="given", keys=["pid"],
                          partitions=PARTITIONS, codec=codec, overwrite=True, **settings) as writer:
        for batch in table.to_batches(max_chunksize=170):
            writer.write(batch)
    data = data_path.read_bytes()
    offsets = writer.output.offsets
    return [data[offsets[p]:offsets[p + 1]] for p in range(PARTITIONS)]


def decode_with_java(java, tmp_path, streams):
    """What Arrow Java decodes from each stream (bytes): a table, or the error it refused with."""
    pairs = []
    for i, stream in enumerate(streams):
        source = tmp_path / f"java_in_{i}.arrow"
        source.write_bytes(stream)
        pairs.append((source, tmp_path / f"java_out_{i}.arrow"))
    java.decode(pairs, tmp_path)
    results = []
    for _, target in pairs:
        error = target.with_name(target.name + ".error")
        results.append(error.read_text() if error.exists()
                       else pa.ipc.open_stream(target.read_bytes()).read_all())
    return results


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_arrow_java_decodes_every_segment_of_a_map_output(java, tmp_path, codec):
    table = keyed_table(java_schema(), 600, seed=41)
    segments = map_output_segments(tmp_path, table, codec, compact_segment_bytes=0)
    assert segments[0] == b""  # an empty partition is zero bytes: nothing to open
    decoded = decode_with_java(java, tmp_path, segments[1:])
    for p, got in enumerate(decoded, start=1):
        assert compact_codec(segments[p]) is None
        assert isinstance(got, pa.Table), f"partition {p}: {got}"
        assert got.schema.equals(table.schema, check_metadata=True), got.schema
        assert got.equals(partition_rows(table, p)), f"partition {p}"


def test_arrow_java_decodes_segments_of_a_sliced_input_and_compact_segments(java, tmp_path):
    # The slice leaves out the one row of partition 1: its segment is empty, nothing to open.
    sliced = keyed_table(java_schema(), 400, seed=42).slice(37, 250)
    streams = map_output_segments(tmp_path, sliced, "zstd", compact_segment_bytes=0)[2:]
    small = keyed_table(java_schema(), 40, seed=43)
    compact = map_output_segments(tmp_path, small, "lz4")[1:]
    assert all(stream for stream in streams)
    assert all(compact_codec(segment) == "lz4" for segment in compact)
    # The README's one step for a compact segment: decompress its frame.
    plain = [segment_stream(segment).read() for segment in compact]
    decoded = decode_with_java(java, tmp_path, streams + plain)
    expected = [partition_rows(sliced, p) for p in range(2, PARTITIONS)] + \
               [partition_rows(small, p) for p in range(1, PARTITIONS)]
    assert len(decoded) == len(expected)
    for got, want in zip(decoded, expected):
        assert isinstance(got, pa.Table), got
        assert got.equals(want)


@pytest.mark.parametrize("type_", JAVA_REFUSES, ids=str)
def test_arrow_java_refuses_the_decimals_it_does_not_implement(java, tmp_path, type_):
    schema = pa.schema([("value", type_)])
    table = random_table(schema, 50, seed=44)
    segments = [sluice.encode_segment(table, codec) for codec in ("none", "lz4", "zstd")]
    for got in decode_with_java(java, tmp_path, segments):
        assert isinstance(got, str) and "128-bit and 256-bit" in got, got


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_sluice_shuffles_what_arrow_java_writes(java, tmp_path, codec):
    table = keyed_table(java_schema(), 500, seed=45)
    table = table.append_column(pa.field("row", pa.int64(), nullable=False),
                                pa.array(range(table.num_rows), pa.int64()))
    plain = tmp_path / "pyarrow.arrow"
    with pa.ipc.new_stream(str(plain), table.schema) as writer:
        writer.write_table(table, max_chunksize=200)
    from_java = tmp_path / "java.arrow"
    java.encode(plain, from_java, codec)
    subprocess.run([CLI, "write", str(from_java), "--output-dir", str(tmp_path / "out"),
                    "--partitions", str(PARTITIONS), "--keys", "c5", "--codec", "lz4"],
                   check=True, capture_output=True)
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", f"0-{PARTITIONS - 1}",
                    "--output", str(tmp_path / "back.arrow")], check=True, capture_output=True)
    back = pa.ipc.open_stream(str(tmp_path / "back.arrow")).read_all()
    assert back.schema.equals(table.schema, check_metadata=True)
    assert back.sort_by("row").equals(table.combine_chunks())
