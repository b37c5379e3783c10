"""Sluice from Python: a native columnar shuffle engine, driven through its C API.

Data moves between pyarrow and Sluice through the Arrow C Data and C Stream Interfaces, without
copies on the way in.
"""

from sluice._native import SluiceError
from sluice.segments import decode_segment, encode_segment
from sluice.writer import MapOutput, MapWriter

__all__ = ["MapOutput", "MapWriter", "SluiceError", "decode_segment", "encode_segment"]
