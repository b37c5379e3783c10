"""The map side: a MapWriter partitions batches and commits one data file per map task."""

import ctypes
import json
from dataclasses import dataclass, field

import pyarrow as pa

from sluice._native import ArrowArray, ArrowSchema, check, library


@dataclass
class MapOutput:
    """What a finished map task produced."""

    offsets: list
    lengths: list
    checksums: list
    metrics: dict = field(default_factory=dict)


def _read_output(handle):
    """Copies a SluiceMapOutput into a MapOutput and frees it."""
    try:
        count = library.sluice_map_output_partition_count(handle)
        offsets = library.sluice_map_output_offsets(handle)[: count + 1]
        lengths = library.sluice_map_output_lengths(handle)[:count]
        checksums_pointer = library.sluice_map_output_checksums(handle)
        checksums = checksums_pointer[:count] if checksums_pointer else []
        metrics = json.loads(library.sluice_map_output_metrics_json(handle).decode())
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

    def __init__(self, schema, range_bounds=None, **settings):
        self._writer = ctypes.c_void_p()
        self.output = None
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

    def write(self, data):
        """Partitions and buffers a RecordBatch or every batch of a Table."""
        batches = data.to_batches() if isinstance(data, pa.Table) else [data]
        for batch in batches:
            c_array = ArrowArray()
            batch._export_to_c(ctypes.addressof(c_array))
            check(library.sluice_map_writer_write(self._writer, ctypes.byref(c_array)))

    def spill(self):
        check(library.sluice_map_writer_spill(self._writer))

    def finish(self):
        handle = ctypes.c_void_p()
        check(library.sluice_map_writer_finish(self._writer, ctypes.byref(handle)))
        self.output = _read_output(handle)
        return self.output

    def abort(self):
        library.sluice_map_writer_abort(self._writer)


MapWriter._free = staticmethod(library.sluice_map_writer_free)
