#!/usr/bin/env python3
"""Counts the reader's instructions per block outside decompression, under callgrind.

    python3 bench/report/instructions_per_block.py build/bench/read_benchmark 'columns:50/codec:1'

Runs the PerBlock case of read_benchmark named by the second argument under
`valgrind --tool=callgrind`, counting only inside PartitionReader::TryNext, subtracts what the
decompressor's own calls cost, and divides by the blocks decoded. On a noisy machine a timing
moves by tens of percent from run to run; this count does not move, so it shows what a change
to the per-block path did when the timings cannot. Needs valgrind (apt-get install valgrind);
the count includes the segment's fixed cost spread over its 32 blocks. It covers one read of
the segment in the timed loop, the last (callgrind zeroes its counters as each read starts and
dumps them as the loop ends), so the warm-up's one-time work (the schema parsed, contexts made,
the first arenas allocated) is not in it, and the count does not depend on how many iterations
the run made.
"""

import argparse
import json
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

    one_read = "sluice::(anonymous namespace)::WarmReader::Read*"
    timed_loop = "sluice::(anonymous namespace)::TimePaired*"
    with tempfile.TemporaryDirectory() as directory:
        out = pathlib.Path(directory) / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=sluice::PartitionReader::TryNext*",
             f"--zero-before={one_read}", f"--dump-after={timed_loop}",
             f"--callgrind-out-file={out}", args.binary,
             f"--benchmark_filter=PerBlock/{args.case}", "--benchmark_min_time=0.01",
             "--benchmark_format=json"],
            check=True, capture_output=True, text=True)
        reported = json.loads(run.stdout)["benchmarks"]
        if len(reported) != 1:
            sys.exit(f"the case names {len(reported)} benchmarks; name exactly one")
        blocks = int(reported[0]["blocks_per_iteration"])  # a read decodes one segment
        # One dump per round (callgrind.out.1, .2, ...), each of its last read.
        dumps = sorted(pathlib.Path(directory).glob("callgrind.out.*"),
                       key=lambda path: int(path.suffix[1:]))
        if not dumps:
            sys.exit("no timed loop was dumped; is the case name right?")
        inclusive = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(dumps[-1])],
                                   check=True, capture_output=True, text=True).stdout

    total = number(re.search(r"([\d,]+) .*PROGRAM TOTALS", inclusive).group(1))

    def inclusive_of(pattern):
        """The largest inclusive count of a function whose line matches `pattern`, or 0."""
        counts = [number(m.group(1)) for m in
                  (re.match(r"\s*([\d,]+) .*" + pattern, line) for line in inclusive.splitlines())
                  if m]
        return max(counts, default=0)

    decompression = inclusive_of(r"Decompressor\w*::Decompress(WithRoom)?\(")
    print(f"{args.case}: {blocks} blocks, {(total - decompression) // blocks} instructions a block "
          f"outside decompression")


if __name__ == "__main__":
    main()
