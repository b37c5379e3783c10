#!/usr/bin/env python3
"""Writes the seed corpus of segment_decoder_fuzz: small Arrow IPC streams of many types, from
pyarrow (uncompressed, lz4, zstd) and from Sluice (every codec, tiny buffers compressed), and
Sluice's compact segments (one LZ4 or zstd frame around a plain stream, as a map writer makes of
small partitions, and ones compressed against the Schema message of the "mixed" table, which
the fuzzer's decoder is given, or against the dictionary derived from that schema), so the fuzzer starts from valid segments of every shape it must
take apart.

Run after `make build`:  python3 tests/fuzz/make_segment_decoder_corpus.py
"""
import io
import pathlib
import sys
import tempfile

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
import sluice  # noqa: E402

CORPUS = HERE / "corpus" / "segment_decoder_fuzz"
MAX_SEED_BYTES = 4096

TABLES = {
    "ints": pa.table({"a": pa.array([1, None, 3], pa.int32()), "b": pa.array([7, 8, 9], pa.int64())}),
    "strings": pa.table({"s": ["x", None, "hello world", ""], "l": pa.array(["a", "b", None, "d"], pa.large_string())}),
    "mixed": pa.table({
        "c0": pa.array([0, 1], pa.int32()), "c1": [None, "this is string number 1"],
        "c2": pa.array([0, 1], pa.date32()), "c3": pa.array([0, 1000000], pa.decimal128(11, 2)),
    }),
    "nested": pa.table({
        "l": pa.array([[1, 2], None, []], pa.list_(pa.int16())),
        "st": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "c"}]),
        "m": pa.array([[("k", 1)], [], None], pa.map_(pa.string(), pa.int64())),
    }),
    "other": pa.table({
        "b": [True, None, False], "f": [1.5, None, -0.0], "t": pa.array([1, 2, None], pa.timestamp("us", "UTC")),
        "fsb": pa.array([b"abc", None, b"xyz"], pa.binary(3)), "n": pa.array([None] * 3, pa.null()),
        "bin": pa.array([b"\x00", None, b"\xff\xfe"], pa.large_binary()),
    }),
    "empty": pa.table({"a": pa.array([], pa.int32()), "s": pa.array([], pa.string())}),
    # Halffloat, date64, times, durations, intervals and decimals of every width.
    "temporal": pa.table({
        "h": pa.array([1.5, None, -0.0], pa.float16()), "d": pa.array([0, 86400000, None], pa.date64()),
        "t32": pa.array([1, None, 86399], pa.time32("s")), "t64": pa.array([None, 5, 7], pa.time64("ns")),
        "du": pa.array([-1, 0, None], pa.duration("us")),
        "i": pa.array([pa.MonthDayNano([1, 2, 3]), None, pa.MonthDayNano([-1, 0, 5])], pa.month_day_nano_interval()),
    }),
    "fixed_size_lists": pa.table({
        "xyz": pa.array([[1.0, 2.0, 3.0], None, [4.0, None, 6.0]], pa.list_(pa.float32(), 3)),
        "pairs": pa.array([[{"a": 1}, None], None, [{"a": None}, {"a": 4}]], pa.list_(pa.struct([("a", pa.int8())]), 2)),
    }),
    "decimals": pa.table({
        "d32": pa.array([1, None, -99999], pa.decimal32(7, 2)), "d64": pa.array([None, 5, 7], pa.decimal64(15, 3)),
        "d256": pa.array([10**45, None, -(10**50)], pa.decimal256(60, 0)),
    }),
    # Views inline and out of line, in nested columns too (variadic buffer counts).
    "views": pa.table({
        "s": pa.array(["short", None, "a value longer than twelve bytes", ""], pa.string_view()),
        "b": pa.array([b"\x00" * 20, b"ab", None, b"\xff" * 13], pa.binary_view()),
        "l": pa.array([["x" * 15, None], None, [], ["y"]], pa.list_(pa.string_view())),
    }),
    # Field metadata at several levels, an extension type among it (custom_metadata tables).
    "metadata": pa.table({
        "id": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"0123456789abcdef", None], pa.binary(16))),
        "l": pa.array([[1], None], pa.list_(pa.field("item", pa.int8(), metadata={"unit": "cents"}))),
    }, schema=pa.schema([pa.field("id", pa.uuid()),
                         pa.field("l", pa.list_(pa.field("item", pa.int8(), metadata={"unit": "cents"})),
                                  metadata={"origin": "ledger"})], metadata={"writer": "corpus"})),
    # List views out of order and overlapping, with a null row's garbage entries.
    "list_views": pa.table({
        "v": pa.ListViewArray.from_arrays(pa.array([2, 99, 0, 1], pa.int32()), pa.array([2, -3, 4, 0], pa.int32()),
                                          pa.array([1, None, 3, 4], pa.int16()), mask=pa.array([False, True, False, False])),
        "w": pa.LargeListViewArray.from_arrays(pa.array([1, 0, 0, 0], pa.int64()), pa.array([1, 2, 0, 1], pa.int64()),
                                               pa.array(["x", "a value of more than twelve bytes"])),
    }),
    # Run-end encoded columns: int16 run ends over strings (a null run among them), int64 over a
    # struct.
    "run_end_encoded": pa.table({
        "r": pa.array(["a", "a", None, "ccc", "ccc", "ccc", "d"], pa.run_end_encoded(pa.int16(), pa.string())),
        "s": pa.array([{"x": 1}, {"x": 1}, {"x": None}, {"x": 2}, None, None, {"x": 3}],
                      pa.run_end_encoded(pa.int64(), pa.struct([("x", pa.int32())]))),
    }),
    # Unions of both modes, type ids that are not the child indices.
    "unions": pa.table({
        "s": pa.UnionArray.from_sparse(pa.array([5, 2, 5], pa.int8()),
                                       [pa.array([1, None, 3], pa.int32()), pa.array(["a", "b", None])],
                                       ["i", "s"], [5, 2]),
        "d": pa.UnionArray.from_dense(pa.array([1, 0, 1], pa.int8()), pa.array([0, 0, 1], pa.int32()),
                                      [pa.array([1.5]), pa.array(["x", "a value of more than twelve"])],
                                      ["f", "s"], [0, 1]),
    }),
    # Dictionary-encoded columns (DictionaryBatch messages), top-level and inside a list.
    "dictionaries": pa.table({
        "d": pa.DictionaryArray.from_arrays(pa.array([1, None, 0], pa.int8()), pa.array(["a", None])),
        "l": pa.ListArray.from_arrays(pa.array([0, 2, 2, 3], pa.int32()), pa.DictionaryArray.from_arrays(
            pa.array([0, 1, 1], pa.uint16()), pa.array([5, 6], pa.int64()))),
    }),
}


def dictionary_changes(deltas):
    """A stream whose dictionary grows from batch to batch: replacements, or deltas."""
    sink = io.BytesIO()
    batches = [pa.record_batch([pa.DictionaryArray.from_arrays(pa.array(list(range(n)), pa.int32()),
                                                               pa.array(["x", "y", "z"][:n]))], names=["d"])
               for n in (1, 2, 3)]
    options = pa.ipc.IpcWriteOptions(emit_dictionary_deltas=deltas)
    with pa.ipc.new_stream(sink, batches[0].schema, options=options) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue()


# Tables cut into blocks of 1, 2 and all rows: streams of several RecordBatch messages of one
# layout, as a partition's segment holds, for the decoder's once-per-layout verification.
MULTI_BLOCK = ("ints", "strings", "mixed")


def in_blocks(table):
    batch = table.combine_chunks().to_batches()[0]
    return pa.Table.from_batches([batch.slice(0, 1), batch.slice(1, 2), batch])


def pyarrow_stream(table, compression):
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, table.schema, options=pa.ipc.IpcWriteOptions(compression=compression)) as writer:
        writer.write_table(table)
    return sink.getvalue()


def compact_segment(table, codec):
    """The one segment of a single-partition map output: compact, as the partition is small."""
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "shuffle_0_0_0.data"
        with sluice.MapWriter(table.schema, data_path=str(path), partitioning="round-robin",
                              partitions=1, codec=codec) as writer:
            writer.write(table)
        data = path.read_bytes()
    assert not data or data[:4] in (b"\x04\x22\x4d\x18", b"\x28\xb5\x2f\xfd"), data[:4]
    return data


def referring_segment(table, codec, readers_have_schema=False):
    """A compact segment compressed against its map output's Schema message: the second of a
    two-partition map output (the fuzzer's decoder is given the "mixed" table's schema); with
    `readers_have_schema`, against the dictionary a reader given the schema derives from it."""
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "shuffle_0_0_0.data"
        with sluice.MapWriter(table.schema, data_path=str(path), partitioning="round-robin",
                              partitions=2, codec=codec,
                              readers_have_schema=readers_have_schema) as writer:
            writer.write(table)
        data = path.read_bytes()
        offsets = writer.output.offsets
    segment = data[offsets[1]:offsets[2]]
    assert segment[:4] == b"\x51\x2a\x4d\x18", segment[:4]
    return segment


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    # The seeds this script writes; others (inputs a fuzzer found) stay.
    for old in CORPUS.iterdir():
        if "-pyarrow-" in old.name or "-sluice-" in old.name:
            old.unlink()
    count = 0
    tables = dict(TABLES)
    tables.update({f"{name}_blocks": in_blocks(TABLES[name]) for name in MULTI_BLOCK})
    for name, table in tables.items():
        seeds = {f"{name}-pyarrow-{c or 'none'}": pyarrow_stream(table, c) for c in (None, "lz4", "zstd")}
        for codec in ("none", "lz4", "zstd"):
            seeds[f"{name}-sluice-{codec}"] = sluice.encode_segment(table, codec)
        if table.num_rows > 0:
            for codec in ("lz4", "zstd"):
                seeds[f"{name}-sluice-compact-{codec}"] = compact_segment(table, codec)
        if name == "mixed":
            for codec in ("lz4", "zstd"):
                seeds[f"{name}-sluice-referring-{codec}"] = referring_segment(table, codec)
                seeds[f"{name}-sluice-given-{codec}"] = referring_segment(table, codec, True)
        if name == "dictionaries":
            seeds[f"{name}-pyarrow-replacements"] = dictionary_changes(False)
            seeds[f"{name}-pyarrow-deltas"] = dictionary_changes(True)
        for seed_name, data in seeds.items():
            if len(data) <= MAX_SEED_BYTES:
                (CORPUS / seed_name).write_bytes(data)
                count += 1
    print(f"wrote {count} seeds to {CORPUS}")


if __name__ == "__main__":
    main()
