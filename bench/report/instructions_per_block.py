#!/usr/bin/env python3
"""Counts the reader's instructions per block outside decompression, under callgrind.

    python3 bench/report/instructions_per_block.py build/bench/read_benchmark 'columns:50/codec:1'

Runs the PerBlock case of read_benchmark named by the second argument under
`valgrind --tool=callgrind`, counting only inside PartitionReader::TryNext, subtracts what the
decompressor's own calls cost, and divides by the blocks decoded. On a noisy machine a timing
moves by tens of percent from run to run; this count does not move, so it shows what a change
to the per-block path did when the timings cannot. Needs valgrind (apt-get install valgrind);
the count includes the segment's fixed cost spread over its 32 blocks, but not the warm-up's
one-time schema parse.
"""

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile


def number(text):
    return int(text.replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="a read_benchmark program")
    parser.add_argument("case", help="the PerBlock arguments, such as 'columns:50/codec:1'")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        out = pathlib.Path(directory) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=sluice::PartitionReader::TryNext*",
             f"--callgrind-out-file={out}", args.binary,
             f"--benchmark_filter=PerBlock/{args.case}", "--benchmark_min_time=0.01"],
            check=True, capture_output=True)
        inclusive = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)],
                                   check=True, capture_output=True, text=True).stdout
        calls = subprocess.run(["callgrind_annotate", "--tree=calling", str(out)],
                               check=True, capture_output=True, text=True).stdout

    total = number(re.search(r"([\d,]+) .*PROGRAM TOTALS", inclusive).group(1))

    def inclusive_of(pattern):
        """The largest inclusive count of a function whose line matches `pattern`, or 0."""
        counts = [number(m.group(1)) for m in
                  (re.match(r"\s*([\d,]+) .*" + pattern, line) for line in inclusive.splitlines())
                  if m]
        return max(counts, default=0)

    decompression = inclusive_of(r"Decompressor\w*::Decompress(WithRoom)?\(")
    # The warm-up's one-time work (parsing the schema, making the decompressor) is not a
    # block's: left in, it would make the count depend on how many blocks the run decoded.
    one_time = inclusive_of(r"ipc::SchemaFromFlatbuffer\(") + inclusive_of(r"Decompressor::Make\(")
    blocks_match = re.search(r"> .*DecodeRecordBatch.*\(([\d,]+)x\)", calls)
    if blocks_match is None:
        sys.exit("no block was decoded; is the case name right?")
    blocks = number(blocks_match.group(1))
    print(f"{args.case}: {blocks} blocks, {(total - decompression - one_time) // blocks} instructions a block "
          f"outside decompression")


if __name__ == "__main__":
    main()
