"""The map side: a MapWriter partitions batches and commits one data file per map task."""

from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass, field
from typing import Any, Optional

import pyarrow as pa

from sluice._native import ArrowArray, ArrowSchema, check, library


@dataclass
class MapOutput:
    """What a finished map task produced."""

    offsets: list[int]
    lengths: list[int]
    checksums: list[int]
    metrics: dict[str, Any] = field(default_factory=dict)


def _read_output(handle):
    """Copies a SluiceMapOutput into a MapOutput and frees it."""
    try:
        count = library.sluice_map_output_partition_count(handle)
        offsets = library.sluice_map_output_offsets(handle)[: count + 1]
        lengths = library.sluice_map_output_lengths(handle)[:count]
        checksums_pointer = library.sluice_map_output_checksums(handle)
        checksums = checksums_pointer[:count] if checksums_pointer else []
        raw = library.sluice_map_output_metrics_json(handle)
        metrics = json.loads(raw.decode()) if raw else {}  # NULL: no memory for the text
    finally:
        library.sluice_map_output_free(handle)
    return MapOutput(offsets, lengths, checksums, metrics)


def _options(settings):
    """Makes a SluiceMapWriterOptions from keyword settings; the caller frees it."""
    options = library.sluice_map_writer_options_new()
    try:
        for key, value in settings.items():
            check(library.sluice_map_writer_options_set(
                options, key.replace("_", "-").encode(), _setting_text(value).encode()))
    except Exception:
        library.sluice_map_writer_options_free(options)
        raise
    return options


def _batches(data):
    """The record batches of `data`: a pyarrow RecordBatch, Table or RecordBatchReader, or any
    object that speaks the Arrow PyCapsule interface (__arrow_c_stream__ or __arrow_c_array__: a
    polars DataFrame, a nanoarrow array, ...), taken without copies."""
    if isinstance(data, pa.RecordBatch):
        return [data]
    if isinstance(data, pa.Table):
        return data.to_batches()
    if isinstance(data, pa.RecordBatchReader):
        return data
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    if hasattr(data, "__arrow_c_array__"):
        return [pa.record_batch(data)]
    raise TypeError(
        f"MapWriter.write takes a pyarrow RecordBatch, Table or RecordBatchReader, or an object "
        f"with __arrow_c_stream__ or __arrow_c_array__ (a polars DataFrame, ...); got "
        f"{type(data).__module__}.{type(data).__qualname__}")


def _check_fields(expected, batch):
    """Raises ValueError (columns, names, nullability) or TypeError (types) naming the first
    column where `batch` differs from the writer's `expected` schema, before native code reads
    a byte of it."""
    given = batch.schema
    def describe(schema):
        return ", ".join(f"{f.name}: {f.type}" for f in schema)
    if len(given) != len(expected):
        raise ValueError(f"the batch has {len(given)} columns ({describe(given)}) where the "
                         f"writer's schema has {len(expected)} ({describe(expected)})")
    for index, (want, got) in enumerate(zip(expected, given)):
        if want.name != got.name:
            raise ValueError(f"column {index} is '{got.name}' in the batch but '{want.name}' in "
                             f"the writer's schema")
        if not want.type.equals(got.type):
            raise TypeError(f"column {index} '{want.name}': the writer's schema has {want.type}, "
                            f"the batch has {got.type}")
        if not want.nullable and batch.column(index).null_count > 0:
            raise ValueError(f"column {index} '{want.name}' is not nullable in the writer's "
                             f"schema, but the batch has {batch.column(index).null_count} nulls")


def _setting_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return str(value)


class _NativeWriter:
    """Lifetime shared by the writers: `with` finishes on success, and the handle is freed (which
    aborts an unfinished writer, removing its files) on close, exit or garbage collection."""

    _free = None  # the C function that frees the handle

    def close(self):
        if getattr(self, "_writer", None):
            type(self)._free(self._writer)
            self._writer = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        try:
            if exc_type is None and self.output is None:
                self.finish()
        finally:
            self.close()

    def __del__(self):
        self.close()


class MapWriter(_NativeWriter):
    """Writes one map task's output. Settings are the keys of MapWriterSettings with '_' or '-'
    (partitioning, partitions, keys, codec, memory_budget, checksum, data_path, spark_files...).

        with MapWriter(schema, data_path="out.data", partitions=200, keys=["id"]) as writer:
            writer.write(batch)
        output = writer.output
    """

    def __init__(self, schema: Any, range_bounds: Any = None, **settings: Any) -> None:
        self._writer = ctypes.c_void_p()
        self.output = None
        if hasattr(schema, "__arrow_c_schema__") and not isinstance(schema, pa.Schema):
            schema = pa.schema(schema)
        if not isinstance(schema, pa.Schema):
            raise TypeError(f"MapWriter takes a pyarrow Schema (or an object with "
                            f"__arrow_c_schema__); got {type(schema).__qualname__}")
        self.schema = schema
        self._options = _options(settings)
        try:
            if range_bounds is not None:
                bounds = range_bounds if isinstance(range_bounds, pa.RecordBatch) else \
                    pa.RecordBatch.from_pydict(range_bounds)
                c_schema, c_array = ArrowSchema(), ArrowArray()
                bounds._export_to_c(ctypes.addressof(c_array), ctypes.addressof(c_schema))
                check(library.sluice_map_writer_options_set_range_bounds(
                    self._options, ctypes.byref(c_schema), ctypes.byref(c_array)))
            c_schema = ArrowSchema()
            schema._export_to_c(ctypes.addressof(c_schema))
            check(library.sluice_map_writer_open(
                self._options, ctypes.byref(c_schema), ctypes.byref(self._writer)))
        finally:
            library.sluice_map_writer_options_free(self._options)
            self._options = None

    def write(self, data: Any) -> None:
        """Partitions and buffers a RecordBatch, every batch of a Table or RecordBatchReader, or
        of any object with __arrow_c_stream__ / __arrow_c_array__ (a polars DataFrame). Each
        batch must have the writer's columns: names, types and nullability are checked first
        (ValueError or TypeError naming the column and both types)."""
        if not self._writer:
            raise ValueError("this MapWriter is closed")
        if self.output is not None:
            raise ValueError("this MapWriter is finished; open another for more rows")
        for batch in _batches(data):
            _check_fields(self.schema, batch)
            c_schema, c_array = ArrowSchema(), ArrowArray()
            batch._export_to_c(ctypes.addressof(c_array), ctypes.addressof(c_schema))
            check(library.sluice_map_writer_write(
                self._writer, ctypes.byref(c_schema), ctypes.byref(c_array)))

    def spill(self) -> None:
        """Writes everything held to a spill file and releases its memory."""
        if not self._writer:
            raise ValueError("this MapWriter is closed")
        check(library.sluice_map_writer_spill(self._writer))

    def finish(self) -> MapOutput:
        """Writes and commits the map output; returns its offsets, lengths, checksums, metrics."""
        if not self._writer:
            raise ValueError("this MapWriter is closed")
        handle = ctypes.c_void_p()
        check(library.sluice_map_writer_finish(self._writer, ctypes.byref(handle)))
        self.output = _read_output(handle)
        return self.output

    def abort(self) -> None:
        """Removes every file of the unfinished output."""
        if self._writer:
            library.sluice_map_writer_abort(self._writer)


MapWriter._free = staticmethod(library.sluice_map_writer_free)
