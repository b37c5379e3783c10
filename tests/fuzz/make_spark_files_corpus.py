#!/usr/bin/env python3
"""Writes the seed corpus of spark_files_fuzz: real map outputs of Sluice (every codec and
checksum algorithm, a few partition counts), each as its index file, checksum file and data
file behind the target's header.

Run after `make build`:  python3 tests/fuzz/make_spark_files_corpus.py
"""
import pathlib
import struct
import sys
import tempfile

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
import sluice  # noqa: E402

CORPUS = HERE / "corpus" / "spark_files_fuzz"
ALGORITHMS = ["none", "adler32", "crc32", "crc32c"]
FILE_NAMES = {"adler32": "ADLER32", "crc32": "CRC32", "crc32c": "CRC32C"}

TABLE = pa.table({"id": pa.array(range(40), pa.int64()),
                  "s": [f"row {i}" if i % 5 else None for i in range(40)],
                  "l": [[i, i + 1] if i % 3 else [] for i in range(40)]})


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    seeds = {}
    with tempfile.TemporaryDirectory() as directory:
        for n, (codec, algorithm, partitions) in enumerate(
                [("none", "adler32", 4), ("lz4", "crc32c", 7), ("zstd", "crc32", 3),
                 ("lz4", "none", 5)]):
            path = pathlib.Path(directory) / f"m{n}" / "shuffle_0_0_0.data"
            path.parent.mkdir()
            with sluice.MapWriter(TABLE.schema, data_path=str(path), partitions=partitions,
                                  keys=["id"], codec=codec, checksum=algorithm, block_rows=8,
                                  spark_files=True) as writer:
                writer.write(TABLE)
            index = path.with_suffix(".index").read_bytes()
            checksums = b""
            if algorithm != "none":
                checksums = (path.parent / f"shuffle_0_0_0.checksum.{FILE_NAMES[algorithm]}"
                             ).read_bytes()
            header = bytes([ALGORITHMS.index(algorithm), 0, partitions]) + \
                struct.pack("<HH", len(index), len(checksums))
            seeds[f"sluice_{codec}_{algorithm}_{partitions}"] = \
                header + index + checksums + path.read_bytes()
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print(f"wrote {len(seeds)} seeds to {CORPUS}")


if __name__ == "__main__":
    main()
