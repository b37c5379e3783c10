#!/usr/bin/env python3
"""Writes the seed corpus of c_data_import_fuzz: programs (see the target's header) that build
valid batches of one column of every format, a struct of several, lists, maps and a dictionary,
so the fuzzer starts from arrays the importer accepts and mutates them into ones it must refuse.

Run:  python3 tests/fuzz/make_c_data_import_corpus.py
"""
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "c_data_import_fuzz"


def formats():
    source = (HERE / "c_data_import_fuzz.cc").read_text()
    table = source[source.index("kFormats[] = {"):source.index("};", source.index("kFormats[]"))]
    return re.findall(r'\{"([^"]*)"', table)


def main():
    CORPUS.mkdir(parents=True, exist_ok=True)
    names = formats()
    seeds = {}
    for index, name in enumerate(names):
        # One column of 12 rows: the format, length = the parent's, no offset, a validity bitmap
        # with some nulls, null count unknown (-1), then values and offsets of steps 1..3.
        program = [1, 12, index, 0b00010000, 0, 0b10110101, 0b11111110]
        program += [(i * 37 + 5) % 256 for i in range(64)]
        seeds[f"column_{index:02d}_{re.sub('[^A-Za-z0-9]', '_', name)}"] = bytes(program)
    struct = names.index("+s")
    utf8 = names.index("u")
    int64 = names.index("l")
    lists = names.index("+l")
    # A struct of two children (an int64 and a utf8 column), 8 rows, no validity.
    seeds["struct"] = bytes([1, 8, struct, 0, 0, 2, int64, 0, 0] + [7] * 64 + [utf8, 0, 0]
                            + [1, 2, 3] * 12)
    # A list of int64 whose offsets step by 1.
    seeds["list"] = bytes([1, 6, lists, 0, 0] + [1] * 6 + [int64, 0b1, 6, 0] + [9] * 48)
    # A dictionary-encoded int32 column of utf8 values.
    int32 = names.index("i")
    seeds["dictionary"] = bytes([1, 5, int32, 0, 64] + [0, 0, 0, 0, 1, 0, 0, 0] * 3
                                + [4, utf8, 0, 0] + [1] * 8)
    for name, data in seeds.items():
        (CORPUS / name).write_bytes(data)
    print(f"wrote {len(seeds)} seeds to {CORPUS}")


if __name__ == "__main__":
    main()
