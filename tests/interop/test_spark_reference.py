"""The Python reference of Spark's hashing agrees with the shared vectors, so it can judge Sluice."""

import pytest

from spark_reference import crc32c, hash_value, vectors_dir


def rows(name):
    path = vectors_dir() / name
    if not path.exists():
        pytest.skip(f"shared vectors not found at {path}")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            yield line.split("\t")


def parse(text):
    value = int(text, 16) if text.startswith("0x") else int(text)
    return value - (1 << 32) if value >= 1 << 31 else value


def test_murmur3_vectors():
    checked = 0
    for kind, text, seed, expected in rows("murmur3.tsv"):
        if kind not in ("int", "long", "string"):
            continue
        value = None if text == "null" else (text if kind == "string" else int(text))
        assert hash_value(value, kind, parse(seed)) == parse(expected), (kind, text)
        checked += 1
    assert checked > 30


def test_crc32c_vectors():
    for algorithm, text, expected in rows("checksums.tsv"):
        if algorithm == "CRC32C":
            assert crc32c(text.encode()) == int(expected, 16)
