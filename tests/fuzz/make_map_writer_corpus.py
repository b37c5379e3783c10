#!/usr/bin/env python3
"""Writes the seed corpus of map_writer_fuzz: the Arrow IPC streams of segment_decoder_fuzz's
corpus (many types, every codec, pyarrow's and Sluice's), each behind a two-byte header choosing
the partition count and the writer's codec, partitioning and checksum, plus streams of several
batches and an IPC file.

Run after make_segment_decoder_corpus.py:  python3 tests/fuzz/make_map_writer_corpus.py
"""
import io
import pathlib

import pyarrow as pa

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "corpus" / "segment_decoder_fuzz"
CORPUS = HERE / "corpus" / "map_writer_fuzz"


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    seeds = {}
    for index, path in enumerate(sorted(SOURCE.iterdir())):
        # Partition counts 1..256 and every writer flag combination, spread over the seeds.
        header = bytes([(index * 37) % 256, index % 32])
        seeds[path.name] = header + path.read_bytes()
    table = pa.table({"k": pa.array(range(300), pa.int64()),
                      "s": [f"value {i}" if i % 7 else None for i in range(300)]})
    for name, options in [("batches_lz4", pa.ipc.IpcWriteOptions(compression="lz4")),
                          ("batches_plain", pa.ipc.IpcWriteOptions())]:
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
            for batch in table.to_batches(max_chunksize=64):
                writer.write_batch(batch)
        seeds[name] = bytes([15, 9]) + sink.getvalue()
    sink = io.BytesIO()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    seeds["ipc_file"] = bytes([3, 2]) + sink.getvalue()
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print(f"wrote {len(seeds)} seeds to {CORPUS}")


if __name__ == "__main__":
    main()
