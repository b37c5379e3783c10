"""Opening a partition segment as a reader that is not Sluice's does.

A segment is an Arrow IPC stream, opened as it is, or a compact segment (a small partition):
one LZ4 or zstd frame around an Arrow IPC stream, which takes one decompression first. This is
the step the README documents, done with pyarrow's own decompressing stream. A compact segment
after its data file's first is compressed against the data file's Schema message (it starts with
a skippable frame naming it): the step is then the reference tool's decompression with that
message as the dictionary (`lz4 -d -D schema.bin`, `zstd -d -D schema.bin`), the message taken
from the data file's first bytes."""

import struct
import subprocess
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc

LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"
ZSTD_FRAME_MAGIC = b"\x28\xb5\x2f\xfd"
# The skippable frame that names the dictionary a compact segment was compressed against.
SCHEMA_REFERENCE_MAGIC = b"\x51\x2a\x4d\x18"
CONTINUATION = b"\xff\xff\xff\xff"


def compact_codec(segment):
    """'lz4' or 'zstd' for a compact segment, None for an Arrow IPC stream."""
    head = bytes(segment[:4])
    if head == SCHEMA_REFERENCE_MAGIC:
        head = bytes(segment[16:20])  # the frame after the 16-byte reference
    return {LZ4_FRAME_MAGIC: "lz4", ZSTD_FRAME_MAGIC: "zstd"}.get(head)


def refers_to_schema(segment):
    """Whether `segment` was compressed against its data file's Schema message."""
    return bytes(segment[:4]) == SCHEMA_REFERENCE_MAGIC


def schema_message(data_file):
    """The Schema message a data file starts with (schema.bin of the README): its first message,
    decompressed first when the first segment is compact."""
    data_file = bytes(data_file)
    codec = compact_codec(data_file)
    source = (pa.input_stream(pa.py_buffer(data_file), compression=codec) if codec
              else pa.BufferReader(data_file))
    prefix = source.read(8)
    if prefix[:4] != CONTINUATION:
        raise ValueError("the data file does not start with an Arrow IPC message")
    (length,) = struct.unpack("<i", prefix[4:8])
    return prefix + source.read(length)


def decompress_with_tool(segment, codec, dictionary=None):
    """The reference command-line decoder of the frame's format, with `dictionary` if given."""
    tool = {"lz4": ["lz4", "-d", "-c"], "zstd": ["zstd", "-d", "-c", "-q"]}[codec]
    if dictionary is None:
        return subprocess.run(tool, input=bytes(segment), capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "schema.bin"
        path.write_bytes(dictionary)
        return subprocess.run(tool + ["-D", str(path)], input=bytes(segment),
                              capture_output=True, check=True).stdout


def segment_stream(segment, data_file=None):
    """The Arrow IPC stream of `segment`, decompressed first when it is compact. A segment
    compressed against the Schema message needs `data_file` (the bytes of its data file, or at
    least of its first segment)."""
    codec = compact_codec(segment)
    if codec is None:
        return pa.BufferReader(segment)
    if refers_to_schema(segment):
        if data_file is None:
            raise ValueError("the segment was compressed against its data file's Schema message: "
                             "pass the data file's bytes")
        plain = decompress_with_tool(segment, codec, schema_message(data_file))
        return pa.BufferReader(plain)
    return pa.input_stream(pa.py_buffer(segment), compression=codec)


def read_segment(segment, data_file=None):
    """The table a segment holds, read by pyarrow (see segment_stream for `data_file`)."""
    return pa.ipc.open_stream(segment_stream(segment, data_file)).read_all()


def plain_streams(segments):
    """Every segment of one data file (in order, empty ones included) as the plain Arrow IPC
    stream the README's step gives: the segments are the data file's bytes."""
    data_file = b"".join(bytes(segment) for segment in segments)
    return [segment_stream(segment, data_file).read() if segment else b""
            for segment in segments]
