"""Loads libsluice and declares the C API's signatures for ctypes."""

import ctypes
import os
import pathlib


class SluiceError(RuntimeError):
    """A failure reported by Sluice, with its status code and message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


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
    explicit = os.environ.get("SLUICE_LIBRARY")
    if explicit:
        return explicit
    root = pathlib.Path(__file__).resolve().parents[2]
    for candidate in (root / "build" / "libsluice.so", pathlib.Path(__file__).parent / "libsluice.so"):
        if candidate.exists():
            return str(candidate)
    raise OSError("libsluice.so not found: build it with `make build` or set SLUICE_LIBRARY")


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
    return library


library = _load()


def check(code):
    """Raises SluiceError for a non-zero status code from the C API."""
    if code != 0:
        raise SluiceError(code, library.sluice_last_error().decode("utf-8", "replace"))
