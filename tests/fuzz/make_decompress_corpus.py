#!/usr/bin/env python3
"""Writes the seed corpus of decompress_fuzz: small frames of each codec, made by pyarrow
(Arrow C++'s codecs, so the seeds also stand for what other Arrow writers produce).

Each seed is laid out as decompress_fuzz.cc reads it: one byte choosing codec and mode, the
expected size as 4 little-endian bytes, then the payload. Run from anywhere:

    python3 tests/fuzz/make_decompress_corpus.py
"""
import pathlib
import struct

import pyarrow as pa

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus" / "decompress_fuzz"
CODECS = {"lz4": 0, "zstd": 1}  # index into decompress_fuzz.cc's kCodecs
DECOMPRESS, ROUND_TRIP = 0, 1
MAX_SEED_BYTES = 4096


def text(size):
    out = b""
    i = 0
    while len(out) < size:
        out += b"this is string number %d" % i
        i += 1
    return out[:size]


PAYLOADS = {
    "empty": b"",
    "text": text(1500),
    "int32": b"".join(struct.pack("<i", i) for i in range(256)),
    "zeros": bytes(3000),
    "byte": b"x",
}


def seed(codec, mode, expected_size, payload):
    return bytes([CODECS[codec] + len(CODECS) * mode]) + struct.pack("<I", expected_size) + payload


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    seeds = {}
    for codec in CODECS:
        for name, data in PAYLOADS.items():
            compressed = pa.compress(data, codec=codec, asbytes=True)
            seeds[f"{codec}_{name}"] = seed(codec, DECOMPRESS, len(data), compressed)
        seeds[f"{codec}_round_trip_text"] = seed(codec, ROUND_TRIP, 0, PAYLOADS["text"])
    for name, content in sorted(seeds.items()):
        assert len(content) < MAX_SEED_BYTES, name
        (CORPUS / name).write_bytes(content)


if __name__ == "__main__":
    main()
