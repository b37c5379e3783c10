"""Partition segments encoded and decoded by Sluice: Arrow IPC streams, and compact segments
(one LZ4 or zstd frame around an Arrow IPC stream, which a map writer makes of small partitions;
decode_segment reads both)."""

import ctypes

import pyarrow as pa

from sluice._native import ArrowArrayStream, check, library


def _as_reader(data):
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return pa.RecordBatchReader.from_batches(data.schema, data.to_batches())
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(data.schema, [data])
    raise TypeError(f"expected a pyarrow Table, RecordBatch or RecordBatchReader, got {type(data)}")


def encode_segment(data: "pa.Table | pa.RecordBatch | pa.RecordBatchReader",
                   codec: str = "none") -> bytes:
    """Encodes a Table, RecordBatch or RecordBatchReader as one segment; returns its bytes.

    codec: "none", "lz4", "zstd" or "zstd:LEVEL".
    """
    stream = ArrowArrayStream()
    _as_reader(data)._export_to_c(ctypes.addressof(stream))
    out_data = ctypes.POINTER(ctypes.c_uint8)()
    out_size = ctypes.c_int64()
    code = library.sluice_segment_encode(
        ctypes.byref(stream), codec.encode(), ctypes.byref(out_data), ctypes.byref(out_size)
    )
    check(code)
    try:
        return ctypes.string_at(out_data, out_size.value)
    finally:
        library.sluice_free(out_data)


def decode_segment(data: bytes, first_segment: "bytes | None" = None) -> pa.RecordBatchReader:
    """Decodes a segment (or any Arrow IPC stream or file) into a pyarrow RecordBatchReader.

    A compact segment other than its map output's first is compressed against the Schema
    message that the map output's data file starts with: give `first_segment`, the data file's
    first bytes (at least its first non-empty segment).
    """
    stream = ArrowArrayStream()
    if first_segment is None:
        check(library.sluice_segment_decode(bytes(data), len(data), ctypes.byref(stream)))
    else:
        first = bytes(first_segment)
        check(library.sluice_segment_decode_in_map_output(
            bytes(data), len(data), first, len(first), ctypes.byref(stream)))
    return pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))
