#!/usr/bin/env python3
"""Writes the seed corpus of partition_reader_fuzz: small map outputs (data file and Spark index)
written by Sluice's MapWriter with every codec, and one made of pyarrow streams, each with a few
choices of flags and partition range, laid out as partition_reader_fuzz.cc reads them:

    flags, start partition, end partition, index entry count n, n big-endian offsets, data.

Run after `make build`:  python3 tests/fuzz/make_partition_reader_corpus.py
"""
import pathlib
import struct
import sys
import tempfile

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
import sluice  # noqa: E402

CORPUS = HERE / "corpus" / "partition_reader_fuzz"
MAX_SEED_BYTES = 4096
COALESCE, SKIP, READ_AHEAD, CHECKSUM, WRONG_CHECKSUM, HAND_BACK = 1, 2, 4, 8, 16, 32

TABLE = pa.table({
    "id": pa.array([3, 1, None, 7, 2, 9], pa.int64()),
    # Long enough that a block's string data (over 256 bytes) goes through the codec.
    "s": ["a" * 150, None, "hello " * 30, "", "xyz" * 60, "q" * 140],
    "l": pa.array([[1], None, [], [2, 3], [4], None], pa.list_(pa.int16())),
    "st": pa.array([{"x": 1}, None, {"x": None}, {"x": 4}, {"x": 5}, {"x": 6}]),
})


def seed(flags, start, end, offsets, data):
    header = bytes([flags, start, end, len(offsets)])
    return header + struct.pack(f">{len(offsets)}q", *offsets) + data


def sluice_map_output(directory, codec, table=TABLE, compact=False):
    """A map output of 3 partitions; with a codec, its partitions as compact segments when
    `compact` (they are small), else as streams of blocks of up to 4 rows."""
    path = pathlib.Path(tempfile.mkdtemp(dir=directory)) / "shuffle_0_0_0.data"
    with sluice.MapWriter(table.schema, data_path=str(path), partitions=3, keys=["id"],
                          codec=codec, block_rows=4, spark_files=True,
                          compact_segment_bytes="64KiB" if compact else 0) as writer:
        writer.write(table)
    index = path.with_suffix(".index").read_bytes()
    return list(struct.unpack(f">{len(index) // 8}q", index)), path.read_bytes()


def pyarrow_map_output():
    data, offsets = b"", [0]
    for compression, rows in [(None, 2), ("lz4", 3), ("zstd", 1)]:
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, TABLE.schema,
                               options=pa.ipc.IpcWriteOptions(compression=compression)) as writer:
            writer.write_table(TABLE.slice(0, rows))
        data += sink.getvalue().to_pybytes()
        offsets.append(len(data))
    return offsets, data


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    seeds = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, codec, flags in [("none", "none", COALESCE), ("lz4", "lz4", SKIP | CHECKSUM),
                                   ("zstd", "zstd", COALESCE | READ_AHEAD),
                                   ("zstd_wrong_checksum", "zstd", CHECKSUM | WRONG_CHECKSUM)]:
            offsets, data = sluice_map_output(directory, codec)
            seeds[f"sluice_{name}_all"] = seed(flags, 0, 3, offsets, data)
            seeds[f"sluice_{name}_one"] = seed(flags ^ COALESCE, 1, 2, offsets, data)
        for codec, flags in [("lz4", COALESCE | CHECKSUM), ("zstd", SKIP | READ_AHEAD)]:
            offsets, data = sluice_map_output(directory, codec, compact=True)
            seeds[f"sluice_{codec}_compact_all"] = seed(flags, 0, 3, offsets, data)
            seeds[f"sluice_{codec}_compact_one"] = seed(flags, 2, 3, offsets, data)
        # Flat columns only, read handing each batch back: the decoder builds later batches in
        # the storage of earlier ones (its flat path overwrites their columns).
        for codec, flags in [("none", HAND_BACK), ("lz4", HAND_BACK | READ_AHEAD)]:
            offsets, data = sluice_map_output(directory, codec, TABLE.select(["id", "s"]))
            seeds[f"sluice_{codec}_flat_hand_back"] = seed(flags, 0, 3, offsets, data)
    offsets, data = pyarrow_map_output()
    seeds["pyarrow_all"] = seed(COALESCE | CHECKSUM, 0, 3, offsets, data)
    seeds["pyarrow_range"] = seed(SKIP, 1, 3, offsets, data)
    for name, content in sorted(seeds.items()):
        assert len(content) < MAX_SEED_BYTES, (name, len(content))
        (CORPUS / name).write_bytes(content)


if __name__ == "__main__":
    main()
