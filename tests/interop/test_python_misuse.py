"""Whatever the Python package is handed, it raises a clear exception: no input reachable from
Python crashes the process or returns wrong values.

An int32 column under an int64 schema used to be accepted and read back as garbage (two int32
values merged into each int64), or crash the process when its buffer sat before a protected
page: a C array carries no buffer sizes, so the native side cannot tell on its own."""

import ctypes

import pyarrow as pa
import pytest

import sluice
from sluice import SluiceError
from sluice._native import ArrowArray, ArrowSchema, library

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


def good_batch(rows=10):
    return pa.record_batch([pa.array(range(rows), pa.int64()),
                            pa.array([f"n{i}" for i in range(rows)])], schema=SCHEMA)


@pytest.fixture
def writer(tmp_path):
    with sluice.MapWriter(SCHEMA, data_path=str(tmp_path / "out.data"), partitions=4,
                          keys=["id"]) as opened:
        yield opened


def test_a_column_of_another_type_is_a_type_error_naming_both(writer):
    batch = pa.record_batch([pa.array(range(10), pa.int32()), pa.array(["x"] * 10)],
                            names=["id", "name"])
    with pytest.raises(TypeError, match=r"column 0 'id': the writer's schema has int64, the "
                                        r"batch has int32"):
        writer.write(batch)


def test_the_native_side_refuses_it_too(writer):
    """The C API checks the schema passed with every batch, whoever calls it."""
    batch = pa.record_batch([pa.array(range(10), pa.int32()), pa.array(["x"] * 10)],
                            names=["id", "name"])
    c_schema, c_array = ArrowSchema(), ArrowArray()
    batch._export_to_c(ctypes.addressof(c_array), ctypes.addressof(c_schema))
    code = library.sluice_map_writer_write(writer._writer, ctypes.byref(c_schema),
                                           ctypes.byref(c_array))
    assert code != 0
    message = library.sluice_last_error().decode()
    assert "column 0 'id': the writer's schema has int64, the batch has int32" in message


def test_other_names_fewer_and_more_columns_are_value_errors(writer):
    renamed = good_batch().rename_columns(["key", "name"])
    with pytest.raises(ValueError, match=r"column 0 is 'key' in the batch but 'id'"):
        writer.write(renamed)
    with pytest.raises(ValueError, match=r"the batch has 1 columns"):
        writer.write(good_batch().select(["id"]))
    wider = good_batch().append_column("extra", pa.array([1.0] * 10))
    with pytest.raises(ValueError, match=r"the batch has 3 columns"):
        writer.write(wider)


def test_nulls_in_a_column_the_schema_says_has_none(writer):
    batch = pa.record_batch([pa.array([1, None, 3], pa.int64()), pa.array(["a", "b", "c"])],
                            names=["id", "name"])
    with pytest.raises(ValueError, match=r"column 0 'id' is not nullable .* 1 nulls"):
        writer.write(batch)


@pytest.mark.parametrize("thing", [None, 42, "text", [1, 2, 3], {"id": [1]}, object()])
def test_an_object_without_arrow_data_is_a_type_error(writer, thing):
    with pytest.raises(TypeError, match="MapWriter.write takes"):
        writer.write(thing)


def test_a_schema_that_is_not_one_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="MapWriter takes a pyarrow Schema"):
        sluice.MapWriter({"id": "int64"}, data_path=str(tmp_path / "x.data"), partitions=2,
                         keys=["id"])


def test_use_after_finish_and_after_close(tmp_path):
    writer = sluice.MapWriter(SCHEMA, data_path=str(tmp_path / "out.data"), partitions=4,
                              keys=["id"])
    writer.write(good_batch())
    output = writer.finish()
    assert sum(output.lengths) > 0
    with pytest.raises(ValueError, match="finished"):
        writer.write(good_batch())
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.write(good_batch())
    with pytest.raises(ValueError, match="closed"):
        writer.finish()
    writer.abort()  # harmless once closed


def test_good_batches_still_round_trip(tmp_path):
    path = tmp_path / "out.data"
    with sluice.MapWriter(SCHEMA, data_path=str(path), partitions=4, keys=["id"],
                          spark_files=True) as writer:
        writer.write(good_batch(100))
        writer.write(pa.Table.from_batches([good_batch(50)]))
    read = sluice.read_partitions([str(path)], 0, 4).read_all()
    assert read.num_rows == 150
    assert sorted(read.column("id").to_pylist()) == sorted(list(range(100)) + list(range(50)))


def test_the_library_exports_its_c_api_only():
    """libsluice.so exported 961 symbols, 43 of them the C API: another library's symbols of the
    same names (a second copy of lz4, the C++ runtime's) could bind to Sluice's."""
    import subprocess
    from sluice._native import _library_path
    symbols = subprocess.run(["nm", "-D", "--defined-only", _library_path()], check=True,
                             capture_output=True, text=True).stdout.split("\n")
    names = [line.split()[-1] for line in symbols if line.strip()]
    assert names and all(name.startswith("sluice_") for name in names), \
        [name for name in names if not name.startswith("sluice_")][:10]


def test_a_closed_reader_raises_and_a_closed_queue_is_refused(tmp_path):
    path = tmp_path / "shuffle_0_0_0.data"
    with sluice.MapWriter(SCHEMA, data_path=str(path), partitions=2, keys=["id"],
                          spark_files=True) as writer:
        writer.write(good_batch(20))
    reader = sluice.read_partitions([str(path)], 0, 2)
    reader.close()
    with pytest.raises((ValueError, OSError, pa.ArrowException)):
        reader.read_next_batch()
    queue = sluice.BlockQueue()
    queue.close()
    with pytest.raises(SluiceError, match="closed"):
        queue.push(b"\xff\xff\xff\xff\x00\x00\x00\x00", 0)
    with pytest.raises(SluiceError):
        sluice.read_partitions([str(tmp_path / "missing.data")], 0).read_all()


def test_a_schema_with_a_malformed_union_is_refused_naming_the_field(tmp_path):
    # Two children with the same type id: pyarrow makes the type, Arrow's format forbids it.
    schema = pa.schema([("k", pa.int64()),
                        ("odd", pa.sparse_union([pa.field("a", pa.int8()), pa.field("b", pa.int8())],
                                                type_codes=[1, 1]))])
    with pytest.raises(SluiceError) as raised:
        sluice.MapWriter(schema, data_path=str(tmp_path / "x.data"), keys=["k"])
    assert "column 'odd'" in str(raised.value) and "+us:1,1" in str(raised.value), str(raised.value)
