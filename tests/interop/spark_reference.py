"""Spark's partitioning written independently in Python, to check Sluice's from outside.

Murmur3_x86_32 as Spark's Murmur3_x86_32 class computes it (hashInt, hashLong, and
hashUnsafeBytes with its byte-at-a-time tail), columns folded left to right from seed 42, and
pmod by the partition count. Checked against the shared vectors in test_spark_reference.py.
"""

import os
import pathlib

MASK = 0xFFFFFFFF
SEED = 42


def _rotl(value, bits):
    return ((value << bits) | (value >> (32 - bits))) & MASK


def _mix_k1(k1):
    k1 = (k1 * 0xCC9E2D51) & MASK
    k1 = _rotl(k1, 15)
    return (k1 * 0x1B873593) & MASK


def _mix_h1(h1, k1):
    h1 ^= k1
    h1 = _rotl(h1, 13)
    return (h1 * 5 + 0xE6546B64) & MASK


def _fmix(h1, length):
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & MASK
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & MASK
    return h1 ^ (h1 >> 16)


def _signed(value):
    return value - (1 << 32) if value & 0x80000000 else value


def hash_int(value, seed):
    return _signed(_fmix(_mix_h1(seed & MASK, _mix_k1(value & MASK)), 4))


def hash_long(value, seed):
    h1 = _mix_h1(seed & MASK, _mix_k1(value & MASK))
    h1 = _mix_h1(h1, _mix_k1((value >> 32) & MASK))
    return _signed(_fmix(h1, 8))


def hash_bytes(data, seed):
    h1 = seed & MASK
    aligned = len(data) - len(data) % 4
    for i in range(0, aligned, 4):
        h1 = _mix_h1(h1, _mix_k1(int.from_bytes(data[i : i + 4], "little")))
    for byte in data[aligned:]:
        signed_byte = byte - 256 if byte >= 128 else byte
        h1 = _mix_h1(h1, _mix_k1(signed_byte & MASK))
    return _signed(_fmix(h1, len(data)))


def hash_value(value, kind, seed):
    """Hashes one value of kind 'int', 'long' or 'string'; None leaves the seed unchanged."""
    if value is None:
        return seed
    if kind == "int":
        return hash_int(value, seed)
    if kind == "long":
        return hash_long(value, seed)
    if kind == "string":
        return hash_bytes(value.encode("utf-8") if isinstance(value, str) else value, seed)
    raise ValueError(kind)


def partition_of(values, kinds, partitions):
    """Spark's HashPartitioning: pmod(murmur3(values folded from seed 42), partitions)."""
    hash_ = SEED
    for value, kind in zip(values, kinds):
        hash_ = hash_value(value, kind, hash_)
    return hash_ % partitions


def vectors_dir():
    explicit = os.environ.get("SLUICE_VECTORS_DIR")
    if explicit:
        return pathlib.Path(explicit)
    return pathlib.Path(__file__).resolve().parents[3] / "shared" / "vectors"


def crc32c(data, value=0):
    """CRC32C (Castagnoli), table-driven: the checksum Spark's CRC32C algorithm computes."""
    table = _crc32c_table()
    crc = value ^ MASK
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ MASK


_TABLE = []


def _crc32c_table():
    if not _TABLE:
        for index in range(256):
            crc = index
            for _ in range(8):
                crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
            _TABLE.append(crc)
    return _TABLE
