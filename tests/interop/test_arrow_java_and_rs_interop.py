"""Sluice with Arrow Java (arrow-vector 18.3 with arrow-compression) and arrow-rs (arrow-ipc with
lz4 and zstd), both ways.

Each implementation decodes every partition segment of a map output with its own IPC reader and
its own LZ4 and zstd decompression, and writes back what it decoded without compression; pyarrow
only opens that plain stream to compare it with the rows the writer was given. The other way,
each implementation's writer (under each body compression) writes the stream that
`sluice write` shuffles and `sluice read` returns unchanged. A type an implementation does not
implement is refused by it with an error, never misread (Arrow Java: decimal32 and decimal64,
and unions whose type ids are not their child indices: it reads a sparse union with ids 0, 5, 2
and every union with ids 0, 1, ..., and refuses a dense union with ids 3, 1, 7 while loading its
buffers, as it refuses pyarrow's own IPC of it).
"""

import os
import subprocess

import pyarrow as pa
import pytest

import sluice

import transcoders
from arrow_data import (all_types_schema, dictionary_batches, dictionary_schema,
                        dictionary_values, random_table, sort_rows)
from map_outputs import (PARTITIONS, keyed_table, map_output_segments, partition_rows,
                         with_row_numbers)
from segments import compact_codec, plain_streams

CLI = os.environ.get("SLUICE_CLI")
# The types each implementation refuses to read, and the words it refuses each with.
JAVA_UNREADABLE_UNION = next(field.type for field in all_types_schema()
                             if pa.types.is_union(field.type) and field.type.mode == "dense"
                             and list(field.type.type_codes) == [3, 1, 7])
REFUSED = {
    "arrow_java": [(pa.decimal32(7, 2), "128-bit and 256-bit"),
                   (pa.decimal64(15, 3), "128-bit and 256-bit"),
                   (JAVA_UNREADABLE_UNION, "Could not load buffers")],
    "arrow_rs": [],
}


@pytest.fixture(scope="module", params=sorted(REFUSED))
def implementation(request, tmp_path_factory):
    if request.param == "arrow_java":
        return transcoders.build_arrow_java(tmp_path_factory.mktemp("arrow_java"))
    return transcoders.build_arrow_rs()


def readable_schema(implementation):
    """The all-types schema without the types `implementation` cannot read."""
    refused = [type_ for type_, _ in REFUSED[implementation.name]]
    return pa.schema([field for field in all_types_schema() if field.type not in refused])


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_every_segment_of_a_map_output_decodes_to_its_rows(implementation, tmp_path, codec):
    table = keyed_table(readable_schema(implementation), 600, seed=41)
    segments = map_output_segments(tmp_path, table, codec, compact_segment_bytes=0)
    assert segments[0] == b""  # an empty partition is zero bytes: nothing to open
    assert all(compact_codec(segment) is None for segment in segments[1:])
    decoded = implementation.decode(segments[1:], tmp_path)
    for p, got in enumerate(decoded, start=1):
        assert isinstance(got, pa.Table), f"partition {p}: {got}"
        assert got.schema.equals(table.schema, check_metadata=True), got.schema
        assert got.equals(partition_rows(table, p)), f"partition {p}"


def test_segments_of_a_sliced_input_and_compact_segments_decode(implementation, tmp_path):
    # The slice leaves out the one row of partition 1: its segment is empty, nothing to open.
    sliced = keyed_table(readable_schema(implementation), 400, seed=42).slice(37, 250)
    streams = map_output_segments(tmp_path, sliced, "zstd", compact_segment_bytes=0)[2:]
    small = keyed_table(readable_schema(implementation), 40, seed=43)
    compact = map_output_segments(tmp_path, small, "lz4")[1:]
    assert all(streams)
    assert all(compact_codec(segment) == "lz4" for segment in compact)
    # The README's one step for a compact segment: decompress its frame (against the data
    # file's Schema message when it refers to it; the segments are the whole data file).
    plain = plain_streams(compact)
    decoded = implementation.decode(streams + plain, tmp_path)
    expected = [partition_rows(sliced, p) for p in range(2, PARTITIONS)] + \
               [partition_rows(small, p) for p in range(1, PARTITIONS)]
    assert len(decoded) == len(expected)
    for got, want in zip(decoded, expected):
        assert isinstance(got, pa.Table), got
        assert got.equals(want)


def test_types_it_does_not_implement_are_refused_not_misread(implementation, tmp_path):
    for type_, words in REFUSED[implementation.name]:
        table = random_table(pa.schema([("value", type_)]), 50, seed=44)
        segments = [sluice.encode_segment(table, codec) for codec in ("none", "lz4", "zstd")]
        for got in implementation.decode(segments, tmp_path):
            assert isinstance(got, str) and words in got, (type_, got)


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_sluice_shuffles_what_its_writer_writes(implementation, tmp_path, codec):
    table = with_row_numbers(keyed_table(readable_schema(implementation), 500, seed=45))
    plain = tmp_path / "pyarrow.arrow"
    with pa.ipc.new_stream(str(plain), table.schema) as writer:
        writer.write_table(table, max_chunksize=200)
    written = tmp_path / f"{implementation.name}.arrow"
    implementation.encode(plain, written, codec)
    subprocess.run([CLI, "write", str(written), "--output-dir", str(tmp_path / "out"),
                    "--partitions", str(PARTITIONS), "--keys", "c5", "--codec", "lz4"],
                   check=True, capture_output=True)
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", f"0-{PARTITIONS - 1}",
                    "--output", str(tmp_path / "back.arrow")], check=True, capture_output=True)
    back = pa.ipc.open_stream(str(tmp_path / "back.arrow")).read_all()
    assert back.schema.equals(table.schema, check_metadata=True)
    assert sort_rows(back, "row").equals(table.combine_chunks())


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_dictionary_segments_decode_to_their_rows(implementation, tmp_path, codec):
    """Sluice keeps dictionary columns: each block of a segment follows a DictionaryBatch of
    the values its rows use (replacing the one before). The implementation's own reader decodes
    every segment (partitions of 0, 1 and many rows; a sliced input; several blocks of batches
    with different dictionaries; compact segments once decompressed) to the same types and
    values."""
    table = keyed_table(dictionary_schema(), 700, seed=46)
    sliced = keyed_table(dictionary_schema(), 400, seed=47).slice(37, 250)
    for source in (table, sliced):
        # Streams, and (with a codec) compact segments after the README's one decompression.
        segments = map_output_segments(tmp_path, source, codec, compact_segment_bytes=0)
        if codec != "none":
            segments += plain_streams(map_output_segments(tmp_path, source, codec))
        decoded = implementation.decode([s for s in segments if s], tmp_path)
        expected = [partition_rows(source, p % PARTITIONS) for p in range(len(segments))
                    if segments[p]]
        assert len(decoded) == len(expected)
        for got, want in zip(decoded, expected):
            assert isinstance(got, pa.Table), got
            assert got.schema.equals(source.schema), got.schema
            assert got.to_pylist() == want.to_pylist()


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
def test_sluice_shuffles_the_dictionaries_its_writer_writes(implementation, tmp_path):
    """The implementation's own DictionaryBatch messages (its writer's choice of replacement or
    delta) come out of sluice read with the values the indices select, still encoded."""
    batches = dictionary_batches()
    plain = tmp_path / "pyarrow.arrow"
    with pa.ipc.new_stream(str(plain), batches[0].schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    written = tmp_path / f"{implementation.name}.arrow"
    implementation.encode(plain, written, "lz4")
    subprocess.run([CLI, "write", str(written), "--output-dir", str(tmp_path / "out"),
                    "--partitions", str(PARTITIONS), "--keys", "word", "--codec", "lz4"],
                   check=True, capture_output=True)
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", f"0-{PARTITIONS - 1}",
                    "--output", str(tmp_path / "back.arrow")], check=True, capture_output=True)
    back = pa.ipc.open_stream(str(tmp_path / "back.arrow")).read_all()
    assert back.schema.equals(batches[0].schema), back.schema
    expected = dictionary_values(pa.Table.from_batches(batches))
    assert sort_rows(dictionary_values(back), "row").equals(expected.combine_chunks())
