"""Segments between Sluice and pyarrow, both ways, through the C Data Interface.

Sluice's segments must open in any Arrow reader and pass pyarrow's full validation; streams
pyarrow writes must decode in Sluice to equal data.
"""

import io

import pyarrow as pa
import pyarrow.ipc
import pytest

import sluice
from sluice._native import SluiceError

from arrow_data import all_types_schema, random_table

ARROW_CODECS = ["none", "lz4", "zstd", "zstd:6"]
ROW_COUNTS = [0, 1, 7, 100, 1000]


def read_with_pyarrow(data):
    table = pa.ipc.open_stream(pa.BufferReader(data)).read_all()
    table.validate(full=True)
    return table


@pytest.fixture(scope="module")
def schema():
    return all_types_schema()


@pytest.mark.parametrize("codec", ARROW_CODECS)
@pytest.mark.parametrize("rows", ROW_COUNTS)
def test_pyarrow_opens_sluice_segments(schema, codec, rows):
    table = random_table(schema, rows, seed=rows)
    segment = sluice.encode_segment(table, codec)
    decoded = read_with_pyarrow(segment)
    assert decoded.schema.equals(table.schema)
    assert decoded.equals(table)


@pytest.mark.parametrize("codec", ARROW_CODECS)
def test_sliced_input(schema, codec):
    table = random_table(schema, 300, seed=3)
    for start, length in [(1, 100), (64, 64), (299, 1), (17, 0)]:
        sliced = table.slice(start, length)
        decoded = read_with_pyarrow(sluice.encode_segment(sliced, codec))
        assert decoded.equals(sliced), (start, length)


@pytest.mark.parametrize("codec", ARROW_CODECS)
def test_several_batches_of_several_sizes(schema, codec):
    batches = [random_table(schema, rows, seed=rows).to_batches(max_chunksize=1 << 20) for rows in (5, 0, 64, 1)]
    batches = [batch for group in batches for batch in group]
    reader = pa.RecordBatchReader.from_batches(schema, batches)
    decoded = read_with_pyarrow(sluice.encode_segment(reader, codec))
    assert decoded.equals(pa.Table.from_batches(batches, schema=schema))


@pytest.mark.parametrize("compression", [None, "lz4", "zstd"])
def test_sluice_reads_pyarrow_streams(schema, compression):
    table = random_table(schema, 500, seed=11)
    sink = io.BytesIO()
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.ipc.new_stream(sink, schema, options=options) as writer:
        for batch in table.to_batches(max_chunksize=128):
            writer.write_batch(batch)
    decoded = sluice.decode_segment(sink.getvalue()).read_all()
    decoded.validate(full=True)
    assert decoded.equals(table)


def test_sluice_reads_pyarrow_files(schema):
    table = random_table(schema, 50, seed=12)
    sink = io.BytesIO()
    with pa.ipc.new_file(sink, schema) as writer:
        writer.write_table(table)
    assert sluice.decode_segment(sink.getvalue()).read_all().equals(table)


@pytest.mark.parametrize("codec", ["none", "lz4", "zstd"])
def test_round_trip_through_sluice(schema, codec):
    table = random_table(schema, 200, seed=13)
    decoded = sluice.decode_segment(sluice.encode_segment(table, codec)).read_all()
    decoded.validate(full=True)
    assert decoded.equals(table)


def test_snappy_is_refused_with_the_reason(schema):
    """Snappy segments carried a codec id of Sluice's own, which Arrow Java read as
    uncompressed: no snappy segment is written any more."""
    table = random_table(schema, 20, seed=14)
    with pytest.raises(SluiceError, match="LZ4_FRAME and ZSTD"):
        sluice.encode_segment(table, "snappy")


def test_dictionary_input_is_kept():
    values = pa.array(["a", "bb", None, "a", "ccc"]).dictionary_encode()
    nested = pa.ListArray.from_arrays([0, 2, 5], values)
    flat = read_with_pyarrow(sluice.encode_segment(pa.table({"d": values})))
    assert flat.column("d").to_pylist() == ["a", "bb", None, "a", "ccc"]
    assert flat.schema.field("d").type == values.type
    in_list = read_with_pyarrow(sluice.encode_segment(pa.table({"l": nested})))
    assert in_list.column("l").to_pylist() == [["a", "bb"], [None, "a", "ccc"]]
    assert in_list.schema.field("l").type == nested.type
    # And back through Sluice's own decoder (and the C Data export) unchanged.
    for table in (pa.table({"d": values}), pa.table({"l": nested})):
        for codec in ("none", "lz4", "zstd"):
            decoded = sluice.decode_segment(sluice.encode_segment(table, codec)).read_all()
            decoded.validate(full=True)
            assert decoded.equals(table), codec


def test_corrupt_segment_error_names_the_offset():
    with pytest.raises(SluiceError, match="byte 0"):
        sluice.decode_segment(b"\xff\xff\xff\xff\x10\x00\x00\x00garbage!")


def dictionary_stream(batches, **options):
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, batches[0].schema,
                           options=pa.ipc.IpcWriteOptions(**options)) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return sink.getvalue()


def dictionary_batch(values, indices, index_type=pa.int16()):
    column = pa.DictionaryArray.from_arrays(pa.array(indices, index_type), pa.array(values))
    # Rows of two, none and then one element each.
    offsets = [0, 2] + list(range(2, len(indices) + 1))
    nested = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), column)
    return pa.record_batch([column, nested], names=["d", "l"])


@pytest.mark.parametrize("deltas", [False, True])
def test_an_ipc_stream_with_dictionaries_decodes_to_their_values(deltas):
    """pyarrow's DictionaryBatch messages (a replacement or a delta for each new dictionary)
    set the dictionary each batch's indices select from."""
    batches = [dictionary_batch(["a", "bb"], [0, 1, None, 1]),
               dictionary_batch(["a", "bb", None, "dddddddddddddddd"], [3, 2, 0, 1, 3])]
    got = sluice.decode_segment(dictionary_stream(batches, emit_dictionary_deltas=deltas))
    assert got.schema.equals(batches[0].schema), got.schema
    rows = got.read_all()
    assert rows.column("d").to_pylist() == ["a", "bb", None, "bb",
                                             "dddddddddddddddd", None, "a", "bb",
                                             "dddddddddddddddd"]
    assert rows.column("l").to_pylist() == [["a", "bb"], [], [None], ["bb"],
                                             ["dddddddddddddddd", None], [], ["a"], ["bb"],
                                             ["dddddddddddddddd"]]


def test_a_dictionary_index_out_of_range_is_refused_with_its_row():
    column = pa.DictionaryArray.from_arrays(pa.array([0, 5, 1], pa.int8()), pa.array(["a", "b"]),
                                            safe=False)
    data = dictionary_stream([pa.record_batch([column], names=["d"])])
    with pytest.raises(pa.ArrowInvalid, match="byte 352: column .d.: row 1 has dictionary index 5, "
                                          "outside the dictionary's 2 values"):
        sluice.decode_segment(data).read_all()


def test_a_record_batch_before_its_dictionary_is_refused():
    """A stream whose DictionaryBatch is dropped: the batch names the id no message set."""
    data = dictionary_stream([dictionary_batch(["a"], [0, 0])])
    messages = list(pa.ipc.MessageReader.open_stream(pa.BufferReader(data)))
    assert [m.type for m in messages] == ["schema", "dictionary", "dictionary", "record batch"]
    without = b"".join(m.serialize().to_pybytes() for m in messages if m.type != "dictionary")
    without += b"\xff\xff\xff\xff\0\0\0\0"
    with pytest.raises(pa.ArrowInvalid, match="field 'd' refers to dictionary id 0, which no "
                                             "DictionaryBatch before it set"):
        sluice.decode_segment(without).read_all()


@pytest.mark.parametrize("values", [
    pa.array([10**45, -(10**50), None], pa.decimal256(60, 0)),
    pa.array([pa.MonthDayNano([1, 2, 3]), None, pa.MonthDayNano([-1, 0, 5])],
             pa.month_day_nano_interval()),
    pa.array([b"abcde", None, b"vwxyz"], pa.binary(5)),
    pa.array([1.5, None, -0.0], pa.float16()),
], ids=lambda values: str(values.type))
def test_dictionaries_of_every_width_unpack_whole_values(values):
    """Through the C Data interface and through IPC: a 32-byte decimal256 was unpacked as its
    first 16 bytes before 2026-12-06."""
    column = pa.DictionaryArray.from_arrays(pa.array([2, 0, None, 1, 0], pa.int32()), values)
    expected = column.cast(values.type).to_pylist()
    table = pa.table({"d": column})
    through_c_data = read_with_pyarrow(sluice.encode_segment(table))
    assert through_c_data.column("d").to_pylist() == expected
    through_ipc = sluice.decode_segment(dictionary_stream(table.to_batches())).read_all()
    assert through_ipc.column("d").to_pylist() == expected
