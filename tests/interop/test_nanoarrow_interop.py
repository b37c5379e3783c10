"""Sluice and nanoarrow (the Arrow C library's IPC reader and writer, from PyPI), both ways.

nanoarrow decodes every partition segment of a map output itself (its own IPC reader and its
own LZ4 and zstd decompression); pyarrow only receives the decoded arrays through the C Data
interface to compare them with the rows the writer was given. The other way, nanoarrow writes
the IPC stream that `sluice write` shuffles and `sluice read` returns unchanged.

nanoarrow 0.9 (the latest on PyPI) has no view types in its IPC reader or writer, neither
string_view and binary_view nor list_view and large_list_view, and no run_end_encoded: the tests
use every other type, and check that it refuses segments with each of those. It reads
dictionary-encoded segments (Sluice writes their DictionaryBatch bodies uncompressed, which it
needs) and its writer writes no dictionaries.
"""

import io
import os
import subprocess

import nanoarrow
import nanoarrow.ipc
import pyarrow as pa
import pytest

from arrow_data import all_types_schema, dictionary_schema, sort_rows
from map_outputs import (PARTITIONS, keyed_table, map_output_segments, partition_rows,
                         with_row_numbers)
from segments import compact_codec, plain_streams, refers_to_schema

CLI = os.environ.get("SLUICE_CLI")
# The types nanoarrow's IPC reader does not know, with the words of its refusal.
UNKNOWN_TO_NANOARROW = [
    (pa.string_view(), "View not yet supported"),
    (pa.binary_view(), "View not yet supported"),
    (pa.list_view(pa.int32()), "View not yet supported"),
    (pa.large_list_view(pa.string()), "View not yet supported"),
    (pa.run_end_encoded(pa.int32(), pa.string()), "RunEndEncoded not yet supported"),
]


def known_to_nanoarrow(type_):
    return not (pa.types.is_string_view(type_) or pa.types.is_binary_view(type_)
                or pa.types.is_list_view(type_) or pa.types.is_large_list_view(type_)
                or pa.types.is_run_end_encoded(type_))


def nanoarrow_schema():
    """The all-types schema without the types nanoarrow's IPC does not know."""
    return pa.schema([field for field in all_types_schema() if known_to_nanoarrow(field.type)])


def read_with_nanoarrow(stream_bytes):
    """The table nanoarrow decodes from an Arrow IPC stream."""
    stream = nanoarrow.ipc.InputStream.from_readable(io.BytesIO(stream_bytes))
    return pa.table(nanoarrow.ArrayStream(stream))


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_nanoarrow_decodes_every_segment_of_a_map_output(tmp_path, codec):
    table = keyed_table(nanoarrow_schema(), 600, seed=31)
    # Compaction off: every segment is an Arrow IPC stream nanoarrow opens as it is.
    segments = map_output_segments(tmp_path, table, codec, compact_segment_bytes=0)
    assert segments[0] == b""  # an empty partition is zero bytes: nothing to open
    for p in range(1, PARTITIONS):
        assert compact_codec(segments[p]) is None
        got = read_with_nanoarrow(segments[p])
        assert got.schema.equals(table.schema, check_metadata=True), got.schema
        assert got.equals(partition_rows(table, p)), f"partition {p}"


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_nanoarrow_decodes_compact_segments_after_one_decompression(tmp_path, codec):
    table = keyed_table(nanoarrow_schema(), 60, seed=32)
    segments = map_output_segments(tmp_path, table, codec)
    # The README's one step: decompress the frame (against the data file's Schema message for
    # the segments after the first, which refer to it).
    plain = plain_streams(segments)
    assert not refers_to_schema(segments[1])
    for p in range(1, PARTITIONS):
        assert compact_codec(segments[p]) == codec
        assert refers_to_schema(segments[p]) == (p > 1)
        assert read_with_nanoarrow(plain[p]).equals(partition_rows(table, p)), f"partition {p}"


def test_nanoarrow_decodes_segments_of_a_sliced_input(tmp_path):
    table = keyed_table(nanoarrow_schema(), 400, seed=33).slice(37, 250)
    segments = map_output_segments(tmp_path, table, "lz4", compact_segment_bytes=0)
    for p in range(1, PARTITIONS):
        if segments[p]:
            assert read_with_nanoarrow(segments[p]).equals(partition_rows(table, p))


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
@pytest.mark.parametrize("rows", [0, 1, 500])
def test_sluice_shuffles_what_nanoarrow_writes(tmp_path, rows):
    table = with_row_numbers(keyed_table(nanoarrow_schema(), max(rows, 1), seed=34).slice(0, rows))
    source = tmp_path / "nanoarrow.arrow"
    with open(source, "wb") as sink:
        writer = nanoarrow.ipc.StreamWriter.from_writable(sink)
        writer.write_stream(table)
        writer.close()
    subprocess.run([CLI, "write", str(source), "--output-dir", str(tmp_path / "out"), "--partitions",
                    str(PARTITIONS), "--keys", "pid", "--codec", "zstd"], check=True, capture_output=True)
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", f"0-{PARTITIONS - 1}",
                    "--output", str(tmp_path / "back.arrow")], check=True, capture_output=True)
    back = pa.ipc.open_stream(str(tmp_path / "back.arrow")).read_all()
    if rows == 0:
        # Every partition is empty, and so the data file: no bytes hold the schema to return.
        assert (tmp_path / "out" / "shuffle_0_0_0.data").stat().st_size == 0
        assert back.num_rows == 0
        return
    assert back.schema.equals(table.schema, check_metadata=True)
    assert back.num_rows == rows
    assert sort_rows(back, "row").equals(table.combine_chunks())


@pytest.mark.parametrize("type_,refusal", UNKNOWN_TO_NANOARROW, ids=str)
def test_nanoarrow_refuses_segments_of_types_it_lacks_rather_than_misreading_them(
        tmp_path, type_, refusal):
    table = keyed_table(pa.schema([("value", type_)]), 60, seed=35)
    segments = map_output_segments(tmp_path, table, "none", compact_segment_bytes=0)
    with pytest.raises(Exception, match=refusal):
        read_with_nanoarrow(segments[2])


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_nanoarrow_decodes_dictionary_segments(tmp_path, codec):
    """Dictionary columns stay encoded: each block follows a DictionaryBatch of the values its
    rows use, written uncompressed (nanoarrow 0.9 reads a DictionaryBatch's buffers as raw
    whatever its compression says: it misreads pyarrow's compressed dictionaries). Partitions of
    0, 1 and many rows, a sliced input."""
    table = keyed_table(dictionary_schema(views=False), 700, seed=36)
    sliced = keyed_table(dictionary_schema(views=False), 400, seed=37).slice(37, 250)
    for source in (table, sliced):
        # Streams, and (with a codec) compact segments after the README's one decompression.
        segments = map_output_segments(tmp_path, source, codec, compact_segment_bytes=0)
        if codec != "none":
            segments += plain_streams(map_output_segments(tmp_path, source, codec))
        for p, segment in enumerate(segments):
            if not segment:
                continue
            got = read_with_nanoarrow(segment)
            assert got.schema.equals(source.schema), got.schema
            assert got.to_pylist() == partition_rows(source, p % PARTITIONS).to_pylist(), p


def test_nanoarrow_writes_no_dictionaries(tmp_path):
    """The other way has no dictionaries to give: nanoarrow 0.9's IPC writer refuses them
    ("Cannot encode dictionary arrays"), so Sluice is never handed a nanoarrow dictionary."""
    table = pa.table({"d": pa.array(["a", "b", "a"]).dictionary_encode()})
    with open(tmp_path / "nanoarrow.arrow", "wb") as sink:
        writer = nanoarrow.ipc.StreamWriter.from_writable(sink)
        with pytest.raises(Exception, match="Cannot encode dictionary arrays"):
            writer.write_stream(table)
