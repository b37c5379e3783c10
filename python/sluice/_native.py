"""Loads libsluice and declares the C API's signatures for ctypes."""

import ctypes
import os
import pathlib


class SluiceError(RuntimeError):
    """A failure reported by Sluice, with its status code and message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class SluiceMemoryError(SluiceError, MemoryError):
    """Sluice could not have the memory it needed (SLUICE_OUT_OF_MEMORY): a MemoryError too."""


# sluice.h's status codes.
OUT_OF_MEMORY = 4


class ArrowSchema(ctypes.Structure):
    """The Arrow C Data Interface schema struct, allocated on the Python side."""

    _fields_ = [
        ("format", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("metadata", ctypes.c_char_p),
        ("flags", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


class ArrowArray(ctypes.Structure):
    """The Arrow C Data Interface array struct, allocated on the Python side."""

    _fields_ = [
        ("length", ctypes.c_int64),
        ("null_count", ctypes.c_int64),
        ("offset", ctypes.c_int64),
        ("n_buffers", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("buffers", ctypes.c_void_p),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


class ArrowArrayStream(ctypes.Structure):
    """The Arrow C Stream Interface struct, allocated on the Python side."""

    _fields_ = [
        ("get_schema", ctypes.c_void_p),
        ("get_next", ctypes.c_void_p),
        ("get_last_error", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


def _library_path():
    """SLUICE_LIBRARY when set; else the library the wheel installed beside this module; else,
    in a checkout, the one `make build` made."""
    explicit = os.environ.get("SLUICE_LIBRARY")
    if explicit:
        return explicit
    here = pathlib.Path(__file__).resolve().parent
    for candidate in (here / "libsluice.so", here.parents[1] / "build" / "libsluice.so"):
        if candidate.exists():
            return str(candidate)
    raise OSError("libsluice.so not found: install the package (pip install .), build it with "
                  "`make build`, or set SLUICE_LIBRARY")


def _load():
    library = ctypes.CDLL(_library_path())
    library.sluice_last_error.restype = ctypes.c_char_p
    library.sluice_version.restype = ctypes.c_char_p
    library.sluice_free.argtypes = [ctypes.c_void_p]
    library.sluice_segment_encode.argtypes = [
        ctypes.POINTER(ArrowArrayStream),
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
        ctypes.POINTER(ctypes.c_int64),
    ]
    library.sluice_segment_decode.argtypes = [
        ctypes.c_char_p,
        ctypes.c_int64,
        ctypes.POINTER(ArrowArrayStream),
    ]
    library.sluice_segment_decode_in_map_output.argtypes = [
        ctypes.c_char_p,
        ctypes.c_int64,
        ctypes.c_char_p,
        ctypes.c_int64,
        ctypes.POINTER(ArrowArrayStream),
    ]
    _declare_map_writer(library)
    _declare_row_writer(library)
    return library


def _declare_row_writer(library):
    pointer = ctypes.c_void_p
    library.sluice_row_writer_open.argtypes = [
        pointer, ctypes.POINTER(ArrowSchema), ctypes.POINTER(pointer)]
    library.sluice_row_writer_append_framed.argtypes = [
        pointer, ctypes.POINTER(ctypes.c_uint32), ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64]
    library.sluice_row_writer_spill.argtypes = [pointer, ctypes.POINTER(ctypes.c_int64)]
    library.sluice_row_writer_finish.argtypes = [pointer, ctypes.POINTER(pointer)]
    library.sluice_row_writer_free.argtypes = [pointer]
    library.sluice_rows_from_arrow.argtypes = [
        ctypes.POINTER(ArrowArray), ctypes.POINTER(ArrowSchema),
        ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)), ctypes.POINTER(ctypes.c_int64)]


def _declare_map_writer(library):
    pointer = ctypes.c_void_p
    library.sluice_map_writer_options_new.restype = pointer
    library.sluice_map_writer_options_free.argtypes = [pointer]
    library.sluice_map_writer_options_set.argtypes = [pointer, ctypes.c_char_p, ctypes.c_char_p]
    library.sluice_map_writer_options_set_range_bounds.argtypes = [
        pointer, ctypes.POINTER(ArrowSchema), ctypes.POINTER(ArrowArray)]
    library.sluice_map_writer_open.argtypes = [
        pointer, ctypes.POINTER(ArrowSchema), ctypes.POINTER(pointer)]
    library.sluice_map_writer_write.argtypes = [pointer, ctypes.POINTER(ArrowSchema),
                                                ctypes.POINTER(ArrowArray)]
    library.sluice_map_writer_spill.argtypes = [pointer]
    library.sluice_map_writer_finish.argtypes = [pointer, ctypes.POINTER(pointer)]
    library.sluice_map_writer_abort.argtypes = [pointer]
    library.sluice_map_writer_free.argtypes = [pointer]
    library.sluice_map_writer_held_bytes.argtypes = [pointer]
    library.sluice_map_writer_held_bytes.restype = ctypes.c_int64
    library.sluice_map_output_partition_count.argtypes = [pointer]
    library.sluice_map_output_partition_count.restype = ctypes.c_int32
    library.sluice_map_output_offsets.argtypes = [pointer]
    library.sluice_map_output_offsets.restype = ctypes.POINTER(ctypes.c_int64)
    library.sluice_map_output_lengths.argtypes = [pointer]
    library.sluice_map_output_lengths.restype = ctypes.POINTER(ctypes.c_int64)
    library.sluice_map_output_checksums.argtypes = [pointer]
    library.sluice_map_output_checksums.restype = ctypes.POINTER(ctypes.c_uint32)
    library.sluice_map_output_metrics_json.argtypes = [pointer]
    library.sluice_map_output_metrics_json.restype = ctypes.c_char_p
    library.sluice_map_output_free.argtypes = [pointer]


library = _load()


def check(code):
    """Raises SluiceError for a non-zero status code from the C API."""
    if code != 0:
        message = (library.sluice_last_error() or b"").decode("utf-8", "replace")
        raise (SluiceMemoryError if code == OUT_OF_MEMORY else SluiceError)(code, message)
