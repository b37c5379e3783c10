"""Opening a partition segment as a reader that is not Sluice's does.

A segment is either an Arrow IPC stream, opened as it is, or a compact segment (a small
partition): one LZ4 or zstd frame around an Arrow IPC stream, which takes one decompression
first. This is the step the README documents, done with pyarrow's own decompressing stream."""

import pyarrow as pa
import pyarrow.ipc

LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"
ZSTD_FRAME_MAGIC = b"\x28\xb5\x2f\xfd"


def compact_codec(segment):
    """'lz4' or 'zstd' for a compact segment, None for an Arrow IPC stream."""
    head = bytes(segment[:4])
    return {LZ4_FRAME_MAGIC: "lz4", ZSTD_FRAME_MAGIC: "zstd"}.get(head)


def segment_stream(segment):
    """The Arrow IPC stream of `segment`, decompressed first when it is compact."""
    codec = compact_codec(segment)
    if codec is None:
        return pa.BufferReader(segment)
    return pa.input_stream(pa.py_buffer(segment), compression=codec)


def read_segment(segment):
    """The table a segment holds, read by pyarrow."""
    return pa.ipc.open_stream(segment_stream(segment)).read_all()
