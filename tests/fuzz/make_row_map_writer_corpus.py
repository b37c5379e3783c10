#!/usr/bin/env python3
"""Writes the seed corpus of row_map_writer_fuzz: headers choosing each schema kind, row counts,
partition counts and both strategies, without mutations (valid rows) and with a few.

Run:  python3 tests/fuzz/make_row_map_writer_corpus.py
"""
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "row_map_writer_fuzz"


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    seeds = {}
    for schema in range(8):
        for rows, partitions, flags in [(5, 3, 0x00), (200, 40, 0x80), (64, 1, 0x40)]:
            header = bytes([schema]) + struct.pack("<H", rows) + struct.pack("<Q", schema * 977 + rows) \
                + bytes([partitions - 1, flags])
            seeds[f"s{schema}_r{rows}_p{partitions}_f{flags:02x}"] = header
            mutations = b"".join(struct.pack("<I", (i * 40503) & 0xffffff)[:3] + bytes([i % 3, i * 29 % 256])
                                 for i in range(1, 6))
            seeds[f"s{schema}_r{rows}_p{partitions}_f{flags:02x}_m"] = header + mutations
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print(f"wrote {len(seeds)} seeds to {CORPUS}")


if __name__ == "__main__":
    main()
