"""The row path: Spark UnsafeRows in, the same map output files as MapWriter."""

import ctypes

import pyarrow as pa

from sluice._native import ArrowArray, ArrowSchema, check, library
from sluice.writer import _NativeWriter, _options, _read_output


def rows_from_arrow(batch):
    """Converts a RecordBatch into Spark UnsafeRows, framed as Spark's UnsafeRowSerializer writes
    them (big-endian int32 size, then the row). Returns bytes."""
    c_schema, c_array = ArrowSchema(), ArrowArray()
    batch._export_to_c(ctypes.addressof(c_array), ctypes.addressof(c_schema))
    out_data = ctypes.POINTER(ctypes.c_uint8)()
    out_size = ctypes.c_int64()
    check(library.sluice_rows_from_arrow(ctypes.byref(c_array), ctypes.byref(c_schema),
                                         ctypes.byref(out_data), ctypes.byref(out_size)))
    try:
        return ctypes.string_at(out_data, out_size.value)
    finally:
        library.sluice_free(out_data)


class RowMapWriter(_NativeWriter):
    """Writes one map task's output from UnsafeRows. Settings: MapWriter's, plus page_bytes,
    strategy (auto | sort | scatter) and validate_utf8."""

    def __init__(self, schema, **settings):
        self._writer = ctypes.c_void_p()
        self.output = None
        options = _options(settings)
        try:
            c_schema = ArrowSchema()
            schema._export_to_c(ctypes.addressof(c_schema))
            check(library.sluice_row_writer_open(options, ctypes.byref(c_schema),
                                                 ctypes.byref(self._writer)))
        finally:
            library.sluice_map_writer_options_free(options)

    def append(self, partitions, framed_rows):
        """Appends rows framed as rows_from_arrow returns them, one partition id per row."""
        ids = (ctypes.c_uint32 * len(partitions))(*partitions)
        check(library.sluice_row_writer_append_framed(self._writer, ids, len(partitions),
                                                      framed_rows, len(framed_rows)))

    def spill(self):
        released = ctypes.c_int64()
        check(library.sluice_row_writer_spill(self._writer, ctypes.byref(released)))
        return released.value

    def finish(self):
        handle = ctypes.c_void_p()
        check(library.sluice_row_writer_finish(self._writer, ctypes.byref(handle)))
        self.output = _read_output(handle)
        return self.output


RowMapWriter._free = staticmethod(library.sluice_row_writer_free)
