"""Sluice and polars (PyPI, its default settings), both ways.

polars decodes every partition segment of an all-types map output with its own IPC reader; each
column it reads equals the rows written once cast back to the Arrow type that went in (polars
keeps its own types: String for every string type, Datetime for date64). Where polars has no
type for a column (month_day_nano intervals, decimal256) or no IPC reader for it (list_view,
large_list_view, run_end_encoded: it panics, "not yet implemented"; unions: "cannot create
series from Union") it refuses the segment, never misreads it.

The other way: what polars writes, with its default string_view and binary_view or with
`compat_level=CompatLevel.oldest()` (plain strings and binaries), `sluice write` shuffles and
`sluice read` returns unchanged, view types kept; a value lands where its plain form does.
"""

import os
import subprocess

import polars as pl
import pyarrow as pa
import pytest
import sluice

from arrow_data import all_types_schema, dictionary_schema, random_table
from map_outputs import PARTITIONS, keyed_table, map_output_segments, partition_rows
from segments import plain_streams, segment_stream

CLI = os.environ.get("SLUICE_CLI")
# The Arrow types polars has no type for, and what its refusal says.
POLARS_REFUSES = {
    "month_day_nano_interval": "month_day_nano_interval",
    "decimal256": "Int256",
    "list_view": "not yet implemented",
    "large_list_view": "not yet implemented",
    "run_end_encoded": "not yet implemented",
    "sparse_union": "cannot create series from Union",
    "dense_union": "cannot create series from Union",
}


def polars_refuses(type_):
    return any(str(type_).startswith(prefix) for prefix in POLARS_REFUSES) or \
        any(str(child.type).startswith(prefix) for prefix in POLARS_REFUSES
            for child in getattr(type_, "fields", []))


def readable_schema():
    return pa.schema([field for field in all_types_schema() if not polars_refuses(field.type)])


def rebuilt(type_, leaf):
    """`type_` with every field nullable and every leaf type replaced by leaf(type)."""
    def field(f):
        return pa.field(f.name, rebuilt(f.type, leaf))
    if pa.types.is_struct(type_):
        return pa.struct([field(f) for f in type_])
    if pa.types.is_map(type_):
        return pa.map_(rebuilt(type_.key_type, leaf), rebuilt(type_.item_type, leaf))
    if pa.types.is_fixed_size_list(type_):
        return pa.list_(field(type_.value_field), type_.list_size)
    if pa.types.is_large_list(type_):
        return pa.large_list(field(type_.value_field))
    if pa.types.is_list(type_):
        return pa.list_(field(type_.value_field))
    return leaf(type_)


def count_of(type_):
    """A temporal type as its stored count: rows are compared as counts, since Python's
    datetime objects cannot hold every timestamp."""
    if pa.types.is_timestamp(type_) or pa.types.is_date64(type_) or \
            pa.types.is_duration(type_) or pa.types.is_time64(type_):
        return pa.int64()
    if pa.types.is_time32(type_) or pa.types.is_date32(type_):
        return pa.int32()
    return type_


def comparable_rows(table, schema):
    """`table` cast to `schema`'s types with every field nullable (polars marks a non-nullable
    child null under a null parent), as Python rows of temporal counts."""
    nullable = pa.schema([pa.field(f.name, rebuilt(f.type, lambda t: t)) for f in schema])
    counts = pa.schema([pa.field(f.name, rebuilt(f.type, count_of)) for f in schema])
    return table.cast(nullable).cast(counts).to_pylist()


def read_with_polars(stream, schema):
    """The rows polars decodes from an IPC stream, cast back to `schema`'s types."""
    return comparable_rows(pl.read_ipc_stream(stream).to_arrow(), schema)


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_polars_decodes_every_segment_of_a_map_output(tmp_path, codec):
    table = keyed_table(readable_schema(), 600, seed=51)
    segments = map_output_segments(tmp_path, table, codec)
    assert segments[0] == b""
    # A compact segment takes the README's one step first: decompress its frame (against the
    # data file's Schema message when it refers to it).
    plain = plain_streams(segments)
    for p in range(1, PARTITIONS):
        got = read_with_polars(plain[p], table.schema)
        assert got == comparable_rows(partition_rows(table, p), table.schema), f"partition {p}"


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_polars_decodes_dictionary_segments(tmp_path, codec):
    """Dictionary columns stay encoded (each block after the DictionaryBatch of its rows'
    values): polars reads every segment, partitions of 0, 1 and many rows, a sliced input, as
    its Categorical (strings) or the values (others), equal to the rows written."""
    table = keyed_table(dictionary_schema(), 700, seed=53)
    sliced = keyed_table(dictionary_schema(), 400, seed=54).slice(37, 250)
    for source in (table, sliced):
        # Streams, and (with a codec) compact segments after the README's one decompression.
        segments = map_output_segments(tmp_path, source, codec, compact_segment_bytes=0)
        if codec != "none":
            segments += plain_streams(map_output_segments(tmp_path, source, codec))
        for p, segment in enumerate(segments):
            if not segment:
                continue
            got = pl.read_ipc_stream(segment).to_arrow()
            assert got.to_pylist() == partition_rows(source, p % PARTITIONS).to_pylist(), p


@pytest.mark.parametrize("type_", [pa.month_day_nano_interval(), pa.decimal256(50, 5),
                                   pa.list_view(pa.int32()), pa.large_list_view(pa.string()),
                                   pa.run_end_encoded(pa.int32(), pa.string()),
                                   pa.sparse_union([pa.field("i", pa.int32())]),
                                   pa.dense_union([pa.field("i", pa.int32()),
                                                   pa.field("s", pa.string())], type_codes=[4, 2])],
                         ids=str)
def test_polars_refuses_the_types_it_has_none_for(tmp_path, type_):
    table = random_table(pa.schema([("value", type_)]), 50, seed=52)
    stream = segment_stream(map_output_segments(
        tmp_path, table.add_column(0, "pid", pa.array([1] * 50, pa.int32())), "lz4")[1]).read()
    with pytest.raises(BaseException) as refused:  # polars raises a PanicException here
        pl.read_ipc_stream(stream)
    assert any(words in str(refused.value) for words in POLARS_REFUSES.values()), refused.value


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
def test_sluice_shuffles_what_polars_writes_with_plain_strings(tmp_path):
    frame = pl.DataFrame({
        "id": range(3000),
        "name": [f"name-{i % 97}" if i % 13 else None for i in range(3000)],
        "price": [i * 0.25 for i in range(3000)],
        "tags": [[f"t{i % 5}", f"u{i % 3}"] for i in range(3000)],
        "day": pl.date_range(pl.date(2020, 1, 1), pl.date(2028, 3, 18), eager=True)[:3000],
    })
    source = tmp_path / "polars.arrow"
    frame.write_ipc_stream(source, compat_level=pl.CompatLevel.oldest())
    subprocess.run([CLI, "write", str(source), "--output-dir", str(tmp_path / "out"),
                    "--partitions", str(PARTITIONS), "--keys", "name", "--codec", "zstd"],
                   check=True, capture_output=True)
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", f"0-{PARTITIONS - 1}",
                    "--output", str(tmp_path / "back.arrow")], check=True, capture_output=True)
    back = pl.read_ipc_stream(tmp_path / "back.arrow").sort("id")
    assert back.equals(frame)


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
def polars_frame_of_views(rows):
    """A polars frame as polars makes it by default: string_view and binary_view columns whose
    values are inline (12 bytes at most) or in several data buffers, with nulls."""
    return pl.DataFrame({
        "id": list(range(rows)),
        "name": [None if i % 13 == 0 else "name-" + "x" * (i % 40) + str(i) for i in range(rows)],
        "blob": [bytes([i % 251]) * (i % 33) for i in range(rows)],
    })


def test_sluice_write_and_read_keep_polars_default_views(tmp_path):
    frame = polars_frame_of_views(60_000)
    source = tmp_path / "polars.arrow"
    frame.write_ipc_stream(source)
    assert str(pa.ipc.open_stream(source).schema.field("name").type) == "string_view"
    subprocess.run([CLI, "write", str(source), "--output-dir", str(tmp_path / "out"),
                    "--partitions", "7", "--keys", "id", "--codec", "lz4"],
                   check=True, capture_output=True)
    back = tmp_path / "back.arrow"
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", "0-6", "--output",
                    str(back)], check=True, capture_output=True)
    schema = pa.ipc.open_stream(back).schema
    assert [str(field.type) for field in schema] == ["int64", "string_view", "binary_view"]
    got = pl.read_ipc_stream(back).sort("id")
    assert got.equals(frame)
    # Partitioned by the bytes: each row where its large_string form goes.
    plain = pa.Table.from_batches(pa.ipc.open_stream(source)).cast(
        pa.schema([("id", pa.int64()), ("name", pa.large_string()), ("blob", pa.large_binary())]))
    with sluice.MapWriter(plain.schema, data_path=str(tmp_path / "plain.data"), partitions=7,
                          keys=["name"], overwrite=True, spark_files=True) as writer:
        writer.write(plain)
    with sluice.MapWriter(schema, data_path=str(tmp_path / "views.data"),
                          partitions=7, keys=["name"], overwrite=True, spark_files=True) as writer:
        writer.write(frame)  # through __arrow_c_stream__: polars' buffers, not copied
    for p in range(7):
        from_plain = sluice.read_partitions([str(tmp_path / "plain.data")], p, p + 1).read_all()
        from_views = sluice.read_partitions([str(tmp_path / "views.data")], p, p + 1).read_all()
        assert from_views.schema.field("name").type == pa.string_view()
        assert from_views.cast(plain.schema).equals(from_plain), f"partition {p}"


@pytest.mark.skipif(CLI is None, reason="SLUICE_CLI names the sluice tool")
def test_sluice_shuffles_polars_categoricals_and_enums_keeping_them(tmp_path):
    """polars writes Categorical and Enum columns as dictionary<string_view, uint32 / uint8>:
    sluice write keeps them dictionary-encoded, sluice read returns them so, and polars reads
    back its own Categorical and Enum, equal to the frame's; polars also reads every segment
    itself (each block after the DictionaryBatch of its rows' values)."""
    rows = 5000
    frame = pl.DataFrame({
        "id": list(range(rows)),
        "city": pl.Series([None if i % 11 == 0 else f"city-{i % 37}" for i in range(rows)],
                          dtype=pl.Categorical),
        "size": pl.Series(["small", "medium", "large"][i % 3] for i in range(rows)).cast(
            pl.Enum(["small", "medium", "large"])),
    })
    source = tmp_path / "polars.arrow"
    frame.write_ipc_stream(source)
    assert pa.types.is_dictionary(pa.ipc.open_stream(source).schema.field("city").type)
    subprocess.run([CLI, "write", str(source), "--output-dir", str(tmp_path / "out"),
                    "--partitions", "6", "--keys", "city", "--codec", "zstd"],
                   check=True, capture_output=True)
    back = tmp_path / "back.arrow"
    subprocess.run([CLI, "read", str(tmp_path / "out"), "--partition", "0-5", "--output",
                    str(back)], check=True, capture_output=True)
    schema = pa.ipc.open_stream(back).schema
    assert schema.equals(pa.ipc.open_stream(source).schema, check_metadata=True), schema
    got = pl.read_ipc_stream(back).sort("id")
    assert got.schema == frame.schema, got.schema
    assert got.select(pl.col("city").cast(pl.String), pl.col("size").cast(pl.String)).equals(
        frame.select(pl.col("city").cast(pl.String), pl.col("size").cast(pl.String)))
    data = (tmp_path / "out" / "shuffle_0_0_0.data").read_bytes()
    index = (tmp_path / "out" / "shuffle_0_0_0.index").read_bytes()
    offsets = [int.from_bytes(index[i:i + 8], "big") for i in range(0, len(index), 8)]
    segments = [pl.read_ipc_stream(stream) for stream in
                plain_streams([data[start:end] for start, end in zip(offsets, offsets[1:])])
                if stream]
    together = pl.concat([segment.select(pl.col("id"), pl.col("city").cast(pl.String),
                                         pl.col("size").cast(pl.String))
                          for segment in segments]).sort("id")
    assert together.equals(frame.select(pl.col("id"), pl.col("city").cast(pl.String),
                                        pl.col("size").cast(pl.String)))