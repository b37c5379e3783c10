"""The reduce side: partitions of many map outputs read back as one pyarrow RecordBatchReader.

    reader = sluice.read_partitions(["shuffle_0_0_0.data", "shuffle_0_1_0.data"], 3)
    table = reader.read_all()   # partition 3 of both map outputs, map 0's rows first

Settings are the keys of PartitionReaderSettings with '_' or '-' (coalesce, batch_rows,
batch_bytes, read_ahead, max_read_bytes, pooled_read_bytes, partitions, skip_failed,
max_block_bytes, checksum).
"""

from __future__ import annotations

import ctypes
import json
from typing import Any, Optional, Sequence

import pyarrow as pa

from sluice._native import ArrowArrayStream, ArrowSchema, check, library

_pointer = ctypes.c_void_p
library.sluice_reader_options_new.restype = _pointer
library.sluice_reader_options_free.argtypes = [_pointer]
library.sluice_reader_options_set.argtypes = [_pointer, ctypes.c_char_p, ctypes.c_char_p]
library.sluice_reader_options_set_schema.argtypes = [_pointer, ctypes.POINTER(ArrowSchema)]
library.sluice_read_report_new.restype = _pointer
library.sluice_read_report_json.argtypes = [_pointer]
library.sluice_read_report_json.restype = ctypes.c_char_p
library.sluice_read_report_free.argtypes = [_pointer]
library.sluice_reader_open_files.argtypes = [
    ctypes.POINTER(ctypes.c_char_p),
    ctypes.POINTER(ctypes.c_char_p),
    ctypes.c_int64,
    ctypes.c_int32,
    ctypes.c_int32,
    _pointer,
    _pointer,
    ctypes.POINTER(ArrowArrayStream),
]
library.sluice_block_queue_new.restype = _pointer
library.sluice_block_queue_push.argtypes = [
    _pointer,
    ctypes.c_char_p,
    ctypes.c_int64,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.POINTER(ctypes.c_int64),
    ctypes.c_char_p,
    _pointer,
    _pointer,
]
library.sluice_block_queue_push_failure.argtypes = [_pointer, ctypes.c_char_p, ctypes.c_char_p]
library.sluice_block_queue_close.argtypes = [_pointer]
library.sluice_block_queue_queued_bytes.argtypes = [_pointer]
library.sluice_block_queue_queued_bytes.restype = ctypes.c_int64
library.sluice_block_queue_free.argtypes = [_pointer]
library.sluice_reader_open_queue.argtypes = [
    _pointer,
    ctypes.POINTER(ArrowSchema),
    _pointer,
    _pointer,
    ctypes.POINTER(ArrowArrayStream),
]


def _as_schema(schema):
    """A pyarrow Schema from a Schema or any object with __arrow_c_schema__."""
    if isinstance(schema, pa.Schema):
        return schema
    if hasattr(schema, "__arrow_c_schema__"):
        return pa.schema(schema)
    raise TypeError(f"schema must be a pyarrow Schema (or have __arrow_c_schema__); got "
                    f"{type(schema).__qualname__}")


def _setting_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Options:
    """A SluiceReaderOptions made from keyword settings, freed on exit."""

    def __init__(self, settings, schema=None):
        self.handle = library.sluice_reader_options_new()
        if not self.handle:
            raise MemoryError("sluice_reader_options_new: out of memory")
        try:
            for key, value in settings.items():
                check(library.sluice_reader_options_set(
                    self.handle, key.replace("_", "-").encode(), _setting_text(value).encode()))
            if schema is not None:
                c_schema = ArrowSchema()
                _as_schema(schema)._export_to_c(ctypes.addressof(c_schema))
                check(library.sluice_reader_options_set_schema(self.handle,
                                                               ctypes.byref(c_schema)))
        except Exception:
            library.sluice_reader_options_free(self.handle)
            raise

    def __enter__(self):
        return self.handle

    def __exit__(self, *exc):
        library.sluice_reader_options_free(self.handle)


class ReadReport:
    """What a reader did and which map outputs it skipped; current as of the last batch read.

    Pass one as `report=` when opening a reader, then call json() while or after reading.
    """

    def __init__(self):
        self._handle = library.sluice_read_report_new()

    def json(self):
        """Returns {"metrics": {...}, "failures": [{"source", "block", "code", "message"}]}."""
        raw = library.sluice_read_report_json(self._handle)
        if not raw:
            raise MemoryError("sluice_read_report_json: out of memory")
        return json.loads(raw.decode())

    @property
    def metrics(self):
        return self.json()["metrics"]

    @property
    def failures(self):
        return self.json()["failures"]

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            library.sluice_read_report_free(handle)


def _report_handle(report):
    return report._handle if report is not None else None


def read_partitions(data_paths: Sequence[Any], start_partition: int,
                    end_partition: Optional[int] = None,
                    index_paths: Optional[Sequence[Any]] = None,
                    report: Optional["ReadReport"] = None, schema: Any = None,
                    **settings: Any) -> pa.RecordBatchReader:
    """Reads partitions [start_partition, end_partition) of the map outputs `data_paths` (Spark's
    layout: each with its ".index" beside it, which MapWriter writes with spark_files=True, or
    the paths in `index_paths`), in the order given.

    end_partition defaults to start_partition + 1. Returns a pyarrow.RecordBatchReader; errors
    while reading name the map output, the partition and the byte offset. Its schema is that of
    the map outputs, also when the partitions asked for are empty; `schema` gives the one to
    return when no map output has a row at all (and every segment must have its fields).
    """
    if end_partition is None:
        end_partition = start_partition + 1
    paths = [str(path).encode() for path in data_paths]
    data = (ctypes.c_char_p * max(len(paths), 1))(*paths)
    index = None
    if index_paths is not None:
        if len(index_paths) != len(paths):
            raise ValueError("index_paths must have one entry per data path")
        index = (ctypes.c_char_p * max(len(paths), 1))(
            *[None if path is None else str(path).encode() for path in index_paths])
    stream = ArrowArrayStream()
    with _Options(settings, schema) as options:
        check(library.sluice_reader_open_files(
            data, index, len(paths), start_partition, end_partition, options,
            _report_handle(report), ctypes.byref(stream)))
    return pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))


class BlockQueue:
    """Blocks pushed by the host (one map output's bytes for a range of partitions each), read
    by a stream from read_blocks() while more arrive. push() may be called from any thread.
    """

    def __init__(self):
        self._handle = library.sluice_block_queue_new()

    def push(self, data, start_partition, end_partition=None, partition_lengths=None, name=None):
        """Pushes a block (bytes-like; copied). partition_lengths: one length per partition."""
        if end_partition is None:
            end_partition = start_partition + 1
        data = bytes(data)
        lengths = None
        if partition_lengths is not None:
            lengths = (ctypes.c_int64 * max(len(partition_lengths), 1))(*partition_lengths)
        check(library.sluice_block_queue_push(
            self._handle, data, len(data), start_partition, end_partition, lengths,
            None if name is None else name.encode(), None, None))

    def push_failure(self, name, message):
        """Reports a map output that could not be fetched."""
        check(library.sluice_block_queue_push_failure(
            self._handle, name.encode(), message.encode()))

    def close(self):
        """No more blocks: the stream ends after those pushed."""
        library.sluice_block_queue_close(self._handle)

    @property
    def queued_bytes(self):
        return library.sluice_block_queue_queued_bytes(self._handle)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            library.sluice_block_queue_free(handle)


def read_blocks(queue: "BlockQueue", schema: Any = None, report: Optional["ReadReport"] = None,
                **settings: Any) -> pa.RecordBatchReader:
    """Reads the blocks pushed into `queue`, in push order, as a pyarrow.RecordBatchReader.

    Without `schema` this waits for the first block: push first, or from another thread.
    """
    c_schema = None
    if schema is not None:
        c_schema = ArrowSchema()
        schema._export_to_c(ctypes.addressof(c_schema))
    stream = ArrowArrayStream()
    with _Options(settings) as options:
        check(library.sluice_reader_open_queue(
            queue._handle, None if c_schema is None else ctypes.byref(c_schema), options,
            _report_handle(report), ctypes.byref(stream)))
    return pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))
