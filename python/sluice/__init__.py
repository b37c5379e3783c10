"""Sluice from Python: a native columnar shuffle engine, driven through its C API.

Data moves between pyarrow and Sluice through the Arrow C Data and C Stream Interfaces, without
copies on the way in.
"""

from sluice.segments import decode_segment, encode_segment

__all__ = ["decode_segment", "encode_segment"]
