#!/usr/bin/env python3
"""Writes the seed corpus of jni_fuzz: a map task that fills a page with valid UnsafeRows of
struct<c0:bigint,c1:string>, hands their pointers over and finishes, then a reduce task over a
Sluice segment of that schema (lz4 and plain), so the fuzzer starts from calls that succeed; and
the columnar mode's: a map task of one valid column batch of that schema, then a reduce task that
exports the segment's batches.

Run after `make build`:  python3 tests/fuzz/make_jni_corpus.py
"""
import pathlib
import struct
import sys
import tempfile

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
import sluice  # noqa: E402

CORPUS = HERE / "corpus" / "jni_fuzz"


def unsafe_row(value, text):
    """An UnsafeRow of (bigint, string): null bitset, the long, (offset << 32 | size), data."""
    data = text.encode()
    padded = data + b"\0" * (-len(data) % 8)
    return struct.pack("<qqq", 0, value, (24 << 32) | len(data)) + padded


def segment(codec):
    table = pa.table({"c0": pa.array([1, 2, 3], pa.int64()), "c1": ["a", None, "ccc"]})
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "shuffle_0_0_0.data"
        with sluice.MapWriter(table.schema, data_path=str(path), partitions=1, keys=["c0"],
                              codec=codec) as writer:
            writer.write(table)
        return path.read_bytes()


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    seeds = {}
    for codec in ("none", "lz4"):
        program = bytes([0, 3])
        program += bytes([0]) + struct.pack("<I", 64)
        for i, text in enumerate(["hello", "", "a longer string value"]):
            row = unsafe_row(i, text)
            program += bytes([1, len(row) // 8]) + row + bytes([i % 4])
        program += bytes([3, 0, 4, 5, 1])
        block = segment(codec)
        program += bytes([0xFF]) + struct.pack("<I", len(block)) + block  # 0xFF: lengths right
        seeds[f"map_and_reduce_{codec}"] = program
    # Columnar: schema byte 6 (schema 0, columnar mode), 3 partitions, the row map task finished
    # at once, then one batch of c0 = [1, 2, 3] and c1 = ["a", "", "ccc"]: five buffers (c0's
    # validity and values, c1's validity, offsets and bytes), each array's (length, null count)
    # written as value + 4, and the row count.
    word = lambda value: struct.pack("<I", value)
    batch = bytes([5]) + b"".join(word(size) for size in (0, 24, 0, 16, 4))
    batch += struct.pack("<qqq", 1, 2, 3) + struct.pack("<iiii", 0, 1, 1, 4) + b"accc"
    batch += bytes([2]) + word(3 + 4) + word(0 + 4) + word(3 + 4) + word(0 + 4) + word(3)
    block = segment("lz4")
    # Hash partitioning (no bound words), then the same batch range-partitioned (descending,
    # nulls last) by one bound, c0 = 2: bound words [count 1, size 16, null bits 0, value 2],
    # each written as value + 8.
    tail = bytes([0xFF]) + bytes([0xFF]) + word(len(block)) + block
    seeds["columnar_map_and_reduce"] = bytes([6, 2, 5, 1, 0]) + batch + tail
    bounds = bytes([4]) + word(1 + 8) + word(16 + 8) + word(0 + 8) + word(2 + 8)
    seeds["columnar_range"] = bytes([6, 2, 5, 1]) + bounds + batch + tail
    # Mode 7: partition ids given with the batch, three (as many as its rows), 0, 1 and 0.
    given_batch = batch + bytes([0, 0, 1, 0])
    seeds["columnar_given_ids"] = bytes([6, 2, 5, 1, 7]) + given_batch + tail
    # Mode 8: round-robin after Spark's sort, map id 3.
    seeds["columnar_sorted_round_robin"] = bytes([6, 2, 5, 1, 8, 3]) + batch + tail
    seeds["text_schema"] = bytes([4, 30]) + b"struct<a:array<map<int,string>>>" + bytes([1])
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print(f"wrote {len(seeds)} seeds to {CORPUS}")


if __name__ == "__main__":
    main()
