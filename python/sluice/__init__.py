"""Sluice from Python: a native columnar shuffle engine, driven through its C API.

Data moves between pyarrow and Sluice through the Arrow C Data and C Stream Interfaces, without
copies on the way in.
"""

from sluice._native import SluiceError, SluiceMemoryError
from sluice.reader import BlockQueue, ReadReport, read_blocks, read_partitions
from sluice.segments import decode_segment, encode_segment
from sluice.row_writer import RowMapWriter, rows_from_arrow
from sluice.shuffle import ShuffleResult, shuffle
from sluice.writer import MapOutput, MapWriter

__all__ = [
    "BlockQueue",
    "MapOutput",
    "MapWriter",
    "ReadReport",
    "RowMapWriter",
    "ShuffleResult",
    "SluiceError",
    "SluiceMemoryError",
    "decode_segment",
    "encode_segment",
    "read_blocks",
    "read_partitions",
    "rows_from_arrow",
    "shuffle",
]

__version__ = "0.1.0"
