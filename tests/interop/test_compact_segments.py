"""Compact segments read by readers Sluice did not write, after the one documented step.

A small partition is one LZ4 or zstd frame around an Arrow IPC stream. Whoever is not Sluice
decompresses the frame first with any LZ4 or zstd decoder and reads the stream that comes out:
here pyarrow's decompressing stream, the reference command-line tools (`lz4 -d`, `zstd -d`)
with pyarrow and with polars reading the result. By default the segments after a data file's
first are compressed against its Schema message, and the step is the same tools' decompression
with that message as the dictionary (`-D schema.bin`). Everything matches what the writer was
given and what Sluice's own reader returns; with compaction off every segment opens as it
is."""

import random
import struct
import subprocess

import polars as pl
import pyarrow as pa
import pyarrow.ipc
import pytest
import sluice

from arrow_data import all_types_schema, random_table, take_rows
from segments import (compact_codec, decompress_with_tool, read_segment, refers_to_schema,
                      schema_message)

PARTITIONS = 300


def lineitem_like(rows, seed):
    rng = random.Random(seed)
    return pa.table({
        "orderkey": pa.array([rng.randint(1, 10**9) for _ in range(rows)], pa.int64()),
        "quantity": pa.array([rng.randint(1, 50) for _ in range(rows)], pa.int32()),
        "price": pa.array([rng.random() * 1000 for _ in range(rows)], pa.float64()),
        "flag": pa.array([rng.choice(["A", "N", "R", None]) for _ in range(rows)]),
        "comment": pa.array([" ".join(rng.choice(["quick", "brown", "fox", "jumps"])
                                      for _ in range(rng.randint(0, 6))) for _ in range(rows)]),
    })


def with_partition_ids(table):
    """The table with a first column "pid": row i goes to partition i % PARTITIONS."""
    ids = pa.array([i % PARTITIONS for i in range(table.num_rows)], pa.int32())
    return table.add_column(0, pa.field("pid", pa.int32(), nullable=False), ids)


def expected(table, partition):
    return take_rows(table, range(partition, table.num_rows, PARTITIONS))


def write(tmp_path, table, codec, **settings):
    data_path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(table.schema, data_path=str(data_path), partitioning="given",
                          keys=["pid"], partitions=PARTITIONS, codec=codec, overwrite=True, spark_files=True,
                          **settings) as writer:
        for batch in table.to_batches(max_chunksize=500):
            writer.write(batch)
    data = data_path.read_bytes()
    offsets = writer.output.offsets
    segments = [data[offsets[p]:offsets[p + 1]] for p in range(PARTITIONS)]
    return data_path, segments


def sluice_table(data_path, partition, schema):
    return sluice.read_partitions([str(data_path)], partition, partition + 1,
                                  schema=schema).read_all()


def tool_stream(segment, codec, data):
    """The README's step with the reference tool: the frame decompressed, against the data
    file's Schema message when the segment refers to it."""
    dictionary = schema_message(data) if refers_to_schema(segment) else None
    return decompress_with_tool(segment, codec, dictionary)


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_every_type_in_compact_segments_reads_back_after_decompression(tmp_path, codec):
    table = with_partition_ids(random_table(all_types_schema(), 2000, 8))
    data_path, segments = write(tmp_path, table, codec, memory_budget="200KiB")
    data = data_path.read_bytes()
    assert all(compact_codec(segment) == codec for segment in segments)
    assert [refers_to_schema(segment) for segment in segments] == [p > 0 for p in range(PARTITIONS)]
    for p, segment in enumerate(segments):
        got = read_segment(segment, data)  # pyarrow (after the tool when it refers to the Schema)
        got.validate(full=True)
        assert got.schema.equals(table.schema)
        assert got.equals(expected(table, p)), f"partition {p}"
        assert got.equals(sluice_table(data_path, p, table.schema))
        assert sluice.decode_segment(segment, first_segment=data).read_all().equals(got)
        from_tool = pa.ipc.open_stream(tool_stream(segment, codec, data)).read_all()
        assert from_tool.equals(got)


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_polars_reads_compact_segments_after_the_reference_decoder(tmp_path, codec):
    table = with_partition_ids(lineitem_like(6000, seed=3))
    data_path, segments = write(tmp_path, table, codec)
    data = data_path.read_bytes()
    assert all(compact_codec(segment) == codec for segment in segments)
    for p, segment in enumerate(segments):
        frame = pl.read_ipc_stream(tool_stream(segment, codec, data))
        assert frame.to_arrow().to_pylist() == expected(table, p).to_pylist(), f"partition {p}"


def test_compaction_off_gives_streams_every_reader_opens_as_they_are(tmp_path):
    table = with_partition_ids(lineitem_like(6000, seed=4))
    _, segments = write(tmp_path, table, "lz4", compact_segment_bytes=0)
    for p, segment in enumerate(segments):
        assert compact_codec(segment) is None
        got = pa.ipc.open_stream(pa.BufferReader(segment)).read_all()
        assert got.equals(expected(table, p))
        assert pl.read_ipc_stream(segment).to_arrow().to_pylist() == got.to_pylist()


def test_compact_segments_are_smaller_and_start_aligned(tmp_path):
    table = with_partition_ids(lineitem_like(6000, seed=5))
    _, compact = write(tmp_path, table, "lz4")
    _, streams = write(tmp_path, table, "lz4", compact_segment_bytes=0)
    assert sum(map(len, compact)) < 0.8 * sum(map(len, streams))
    # Each segment that another follows ends 8-byte aligned (the next segment's buffers stay
    # aligned in the file): padding is an LZ4/zstd skippable frame (magic 0x184D2A50), which the
    # decoders above skipped. The data file's last segment is not padded.
    non_empty = [segment for segment in compact if segment]
    assert all(len(segment) % 8 == 0 for segment in non_empty[:-1])
    assert sum(struct.pack("<I", 0x184D2A50) in segment[-16:] for segment in non_empty) > 0


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_segments_compressed_against_the_schema_read_back_through_every_front_end(tmp_path, codec):
    table = with_partition_ids(lineitem_like(6000, seed=6))
    data_path, segments = write(tmp_path, table, codec, compact_schema_dictionary=True)
    data = data_path.read_bytes()
    reference = b"\x51\x2a\x4d\x18"
    assert not segments[0].startswith(reference), "the first segment holds the Schema"
    assert all(segment.startswith(reference) for segment in segments[1:])
    (tmp_path / "plain").mkdir()
    _, plain = write(tmp_path / "plain", table, codec, compact_schema_dictionary=False)
    assert not any(refers_to_schema(segment) for segment in plain)
    assert sum(map(len, segments)) < sum(map(len, plain))
    schema_file = tmp_path / "schema.bin"
    schema_file.write_bytes(schema_message(segments[0]))
    tool = {"lz4": ["lz4", "-d", "-c", "-D", str(schema_file)],
            "zstd": ["zstd", "-d", "-c", "-q", "-D", str(schema_file)]}[codec]
    for p in (0, 1, 17, PARTITIONS - 1):
        want = expected(table, p)
        assert sluice_table(data_path, p, None).equals(want), f"partition {p}"
        assert sluice.decode_segment(segments[p], first_segment=data).read_all().equals(want)
        # The README's step with the reference tool, then readers Sluice did not write.
        stream = subprocess.run(tool, input=segments[p], capture_output=True, check=True).stdout
        assert pa.ipc.open_stream(stream).read_all().equals(want)
        assert pl.read_ipc_stream(stream).to_arrow().to_pylist() == want.to_pylist()
    with pytest.raises(Exception, match="compressed against its map output's Schema message"):
        sluice.decode_segment(segments[1]).read_all()
    with pytest.raises(Exception, match="segment"):
        sluice.decode_segment(segments[1], first_segment=b"\x00" * 16).read_all()
    other = with_partition_ids(random_table(all_types_schema(), 600, 2))
    (tmp_path / "other").mkdir()
    other_path, other_segments = write(tmp_path / "other", other, codec)
    with pytest.raises(Exception, match="compressed against its map output's Schema message"):
        sluice.decode_segment(segments[1], first_segment=other_path.read_bytes()).read_all()
