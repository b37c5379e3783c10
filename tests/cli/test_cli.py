"""The `sluice` command-line tool, run as a user runs it: output, files and exit codes.

The binary is $SLUICE_CLI (default build/tools/sluice). Each test makes its own small data in a
temporary directory. pyarrow and zlib check what the tool writes independently of Sluice.
"""

import json
import os
import pathlib
import pty
import struct
import subprocess
import sys
import zlib

import pyarrow as pa
import pyarrow.ipc
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("SLUICE_CLI", str(ROOT / "build" / "tools" / "sluice"))

# Exit codes (tools/exit_status.h).
FAILURE = 1
USAGE = 2


def run(*arguments, stdin=None, check=True, env=None):
    """Runs the tool; returns the CompletedProcess. Progress is off unless a test asks."""
    environment = dict(os.environ, SLUICE_PROGRESS="0")
    environment.update(env or {})
    result = subprocess.run([CLI, *map(str, arguments)], input=stdin, capture_output=True,
                            env=environment, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"sluice {' '.join(map(str, arguments))} exited "
                             f"{result.returncode}: {result.stderr.decode()}")
    return result


# Starts the tool from a small fresh interpreter and reports the tool's peak RSS from wait4: a
# process started straight from pytest carries pytest's own resident memory in ru_maxrss.
_PEAK_RSS_LAUNCHER = """
import json, os, subprocess, sys
feeder = subprocess.Popen(["cat", sys.argv[1]], stdout=subprocess.PIPE) if sys.argv[1] else None
child = subprocess.Popen(sys.argv[2:], stdin=feeder.stdout if feeder else None,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
if feeder:
    feeder.stdout.close()
out, err = child.stdout.read(), child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
sys.stdout.write(json.dumps({"code": os.waitstatus_to_exitcode(status), "rss_kib": usage.ru_maxrss,
                             "out": out.decode(), "err": err.decode()}))
"""


def run_measuring_peak_rss(*arguments, stdin_file=None):
    """Runs the tool (its standard input a pipe fed from `stdin_file` when given); returns
    (CompletedProcess, peak RSS in MiB)."""
    launched = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS_LAUNCHER, str(stdin_file or ""), CLI,
         *map(str, arguments)],
        capture_output=True, env=dict(os.environ, SLUICE_PROGRESS="0"), timeout=600, check=True)
    report = json.loads(launched.stdout)
    result = subprocess.CompletedProcess(arguments, report["code"], report["out"].encode(),
                                         report["err"].encode())
    return result, report["rss_kib"] / 1024


def error_line(result):
    """The tool's error: exactly one line on stderr."""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) >= 1, "no error message"
    return lines[0]


def read_stream(path):
    return pa.ipc.open_stream(pa.OSFile(str(path))).read_all()


def big_endian_longs(path):
    data = pathlib.Path(path).read_bytes()
    return list(struct.unpack(f">{len(data) // 8}q", data))


@pytest.fixture(scope="module")
def lineitem(tmp_path_factory):
    """20,000 lineitem rows in batches of 4096."""
    path = tmp_path_factory.mktemp("input") / "lineitem.arrow"
    run("generate", "lineitem", "--rows", 20000, "--batch-rows", 4096, "--output", path)
    return path


@pytest.fixture(scope="module")
def shuffle(tmp_path_factory, lineitem):
    """Two map outputs of 16 partitions with lz4 and ADLER32, and their write summaries."""
    directory = tmp_path_factory.mktemp("shuffle")
    summaries = []
    for map_id in (0, 1):
        result = run("write", lineitem, "--output-dir", directory, "--partitions", 16, "--keys",
                     "l_orderkey", "--codec", "lz4", "--map-id", map_id, "--json")
        summaries.append(json.loads(result.stdout))
    return directory, summaries


# --- the tool and its help ---------------------------------------------------------------------


def test_without_a_command_prints_the_overview_and_fails_as_usage():
    result = run(check=False)
    assert result.returncode == USAGE
    assert b"Commands:" in result.stderr


def test_unknown_command_is_a_usage_error_naming_it():
    result = run("shuffle", check=False)
    assert result.returncode == USAGE
    assert "unknown command 'shuffle'" in error_line(result)


@pytest.mark.parametrize("command", ["generate", "write", "read", "inspect", "bench"])
def test_every_command_has_help_with_examples(command):
    result = run(command, "--help")
    text = result.stdout.decode()
    assert text.startswith(f"Usage: sluice {command}")
    assert "Examples:" in text and f"sluice {command}" in text.split("Examples:")[1]
    assert "--help" in text


@pytest.mark.parametrize("command", ["generate", "write", "read", "inspect", "bench"])
def test_every_command_refuses_an_unknown_flag_naming_it(command):
    result = run(command, "--frobnicate", "3", check=False)
    assert result.returncode == USAGE
    line = error_line(result)
    assert line.startswith(f"sluice {command}: error:")
    assert "--frobnicate" in line


# --- generate ----------------------------------------------------------------------------------


@pytest.mark.parametrize("workload,columns", [("lineitem", 16), ("mixed", 4), ("flat50", 50),
                                              ("nested", 4), ("wide", 200)])
def test_generate_writes_a_stream_pyarrow_opens(tmp_path, workload, columns):
    path = tmp_path / f"{workload}.arrow"
    result = run("generate", workload, "--rows", 1000, "--batch-rows", 300, "--output", path)
    table = read_stream(path)
    assert table.num_rows == 1000
    assert table.num_columns == columns
    assert len(table.to_batches()) == 4  # 300 + 300 + 300 + 100
    assert b"1,000 rows" in result.stdout


def test_generate_lineitem_is_deterministic_by_seed(tmp_path):
    paths = {}
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        paths[name] = tmp_path / f"{name}.arrow"
        run("generate", "lineitem", "--rows", 500, "--seed", seed, "--output", paths[name])
    assert paths["a"].read_bytes() == paths["b"].read_bytes()
    assert paths["a"].read_bytes() != paths["c"].read_bytes()


def test_generate_to_stdout(tmp_path):
    result = run("generate", "mixed", "--rows", 100, "--output", "-")
    table = pa.ipc.open_stream(result.stdout).read_all()
    assert table.num_rows == 100
    assert b"100 rows" in result.stderr  # the summary stays off the data


def test_generate_replaces_an_existing_file_whole(tmp_path):
    path = tmp_path / "data.arrow"
    run("generate", "mixed", "--rows", 1000, "--output", path)
    run("generate", "mixed", "--rows", 10, "--output", path)
    assert read_stream(path).num_rows == 10
    assert [p.name for p in tmp_path.iterdir()] == ["data.arrow"]  # no temporary left


@pytest.mark.parametrize("arguments,flag", [
    (["lineitem", "--output", "x.arrow"], "--rows"),
    (["lineitem", "--rows", "12k", "--output", "x.arrow"], "--rows"),
    (["lineitem", "--rows", "-5", "--output", "x.arrow"], "--rows"),
    (["lineitem", "--rows", "10"], "--output"),
    (["lineitem", "--rows", "10", "--batch-rows", "0", "--output", "x.arrow"], "--batch-rows"),
    (["lineitem", "--rows", "10", "--rows", "20", "--output", "x.arrow"], "--rows"),
    (["orders", "--rows", "10", "--output", "x.arrow"], "orders"),
    (["--rows", "10", "--output", "x.arrow"], "WORKLOAD"),
])
def test_generate_bad_arguments_are_usage_errors_naming_the_flag(tmp_path, arguments, flag):
    result = run("generate", *arguments, check=False)
    assert result.returncode == USAGE
    assert flag in error_line(result)
    assert not (tmp_path / "x.arrow").exists()


def test_generate_into_a_missing_directory_names_it(tmp_path):
    result = run("generate", "mixed", "--rows", 10, "--output", tmp_path / "no" / "x.arrow",
                 check=False)
    assert result.returncode == FAILURE
    assert str(tmp_path / "no") in error_line(result)


# --- write -------------------------------------------------------------------------------------


def test_write_produces_spark_files_that_agree_with_pyarrow_and_zlib(shuffle, lineitem):
    directory, summaries = shuffle
    summary = summaries[0]
    data = directory / "shuffle_0_0_0.data"
    assert summary["data_path"] == str(data)
    assert summary["rows"] == 20000
    assert summary["partitions"] == 16
    assert summary["codec"] == "lz4"
    assert summary["keys"] == ["l_orderkey"]
    assert sum(summary["partition_rows"]) == 20000
    assert summary["compression_ratio"] > 1
    for key in ("partition_nanos", "gather_nanos", "compress_nanos", "write_nanos"):
        assert key in summary["metrics"]

    offsets = big_endian_longs(directory / "shuffle_0_0_0.index")
    checksums = big_endian_longs(directory / "shuffle_0_0_0.checksum.ADLER32")
    contents = data.read_bytes()
    assert offsets[0] == 0 and offsets[-1] == len(contents) and len(offsets) == 17
    rows = 0
    for partition in range(16):
        segment = contents[offsets[partition]:offsets[partition + 1]]
        assert checksums[partition] == zlib.adler32(segment)
        assert summary["partition_bytes"][partition] == len(segment)
        count = pa.ipc.open_stream(segment).read_all().num_rows if segment else 0
        assert count == summary["partition_rows"][partition]
        rows += count
    assert rows == read_stream(lineitem).num_rows


def test_write_prints_a_summary_with_the_time_split(tmp_path, lineitem):
    result = run("write", lineitem, "--output-dir", tmp_path, "--partitions", 8, "--keys", "c0")
    text = result.stdout.decode()
    assert "20,000 in" in text and "8 partitions" in text
    for phase in ("partitioning", "gathering", "compression", "writing", "wall"):
        assert phase in text
    assert "ratio" in text and "spills" in text


def test_write_hashes_several_keys_by_name_or_index(tmp_path, lineitem):
    by_name = json.loads(run("write", lineitem, "--output-dir", tmp_path / "a", "--partitions",
                             7, "--keys", "l_orderkey,l_linenumber", "--json").stdout)
    by_index = json.loads(run("write", lineitem, "--output-dir", tmp_path / "b", "--partitions",
                              7, "--keys", "c0,c3", "--json").stdout)
    one_key = json.loads(run("write", lineitem, "--output-dir", tmp_path / "c", "--partitions",
                             7, "--keys", "c0", "--json").stdout)
    assert by_name["keys"] == ["l_orderkey", "l_linenumber"]
    assert by_name["partition_rows"] == by_index["partition_rows"]
    assert by_name["partition_rows"] != one_key["partition_rows"]


def test_write_reads_a_stream_from_stdin(tmp_path, lineitem):
    summary = json.loads(run("write", "-", "--output-dir", tmp_path, "--partitions", 4,
                             "--keys", "c0", "--json", stdin=lineitem.read_bytes()).stdout)
    assert summary["rows"] == 20000


def test_write_range_partitions_by_bounds_from_an_arrow_file(tmp_path):
    source = tmp_path / "mixed.arrow"
    run("generate", "mixed", "--rows", 1000, "--output", source)  # c0 = 0..999
    bounds = tmp_path / "bounds.arrow"
    with pa.OSFile(str(bounds), "wb") as sink:
        table = pa.table({"c0": pa.array([99, 499], pa.int32())})
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    summary = json.loads(run("write", source, "--output-dir", tmp_path / "out",
                             "--partitioning", "range", "--bounds", bounds, "--json").stdout)
    # A key equal to a bound goes to that bound's partition: [0, 99], [100, 499], [500, 999].
    assert summary["partitions"] == 3
    assert summary["partition_rows"] == [100, 400, 500]

    # Descending bounds: [999, 499], (499, 99], (99, 0]. A wrong order is refused by name.
    with pa.OSFile(str(bounds), "wb") as sink:
        table = pa.table({"c0": pa.array([499, 99], pa.int32())})
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    summary = json.loads(run("write", source, "--output-dir", tmp_path / "desc",
                             "--partitioning", "range", "--bounds", bounds,
                             "--sort-order", "desc nulls last", "--json").stdout)
    assert summary["partition_rows"] == [501, 400, 99]
    refused = run("write", source, "--output-dir", tmp_path / "wrong", "--partitioning", "range",
                  "--bounds", bounds, "--sort-order", "downwards", check=False)
    assert refused.returncode != 0
    assert b"--sort-order" in refused.stderr and b"downwards" in refused.stderr


@pytest.mark.parametrize("kind,partitions", [("round-robin", 5), ("single", None)])
def test_write_other_partitionings(tmp_path, lineitem, kind, partitions):
    arguments = ["write", lineitem, "--output-dir", tmp_path, "--partitioning", kind, "--json"]
    if partitions:
        arguments += ["--partitions", partitions]
    summary = json.loads(run(*arguments).stdout)
    assert sum(summary["partition_rows"]) == 20000
    if kind == "single":
        assert summary["partition_rows"] == [20000]
    else:
        assert max(summary["partition_rows"]) - min(summary["partition_rows"]) <= 1


def test_write_codec_level_checksum_and_ids_are_honoured(tmp_path, lineitem):
    summary = json.loads(run("write", lineitem, "--output-dir", tmp_path, "--partitions", 4,
                             "--keys", "c0", "--codec", "zstd:3", "--checksum", "crc32",
                             "--shuffle-id", 3, "--map-id", 9, "--json").stdout)
    assert summary["codec"] == "zstd:3"
    data = tmp_path / "shuffle_3_9_0.data"
    assert summary["data_path"] == str(data)
    checksums = big_endian_longs(tmp_path / "shuffle_3_9_0.checksum.CRC32")
    offsets = big_endian_longs(tmp_path / "shuffle_3_9_0.index")
    contents = data.read_bytes()
    for partition in range(4):
        assert checksums[partition] == zlib.crc32(contents[offsets[partition]:
                                                           offsets[partition + 1]])


def test_write_spills_under_a_small_memory_budget(tmp_path, lineitem):
    summary = json.loads(run("write", lineitem, "--output-dir", tmp_path, "--partitions", 4,
                             "--keys", "c0", "--memory-budget", "512KiB", "--json").stdout)
    assert summary["spills"] > 0
    assert summary["memory_budget_bytes"] == 512 * 1024
    assert sum(summary["partition_rows"]) == 20000


def test_write_passes_other_settings_through_set(tmp_path, lineitem):
    small = json.loads(run("write", lineitem, "--output-dir", tmp_path / "a", "--partitions", 2,
                           "--keys", "c0", "--set", "block-rows=100", "--json").stdout)
    large = json.loads(run("write", lineitem, "--output-dir", tmp_path / "b", "--partitions", 2,
                           "--keys", "c0", "--json").stdout)
    assert small["metrics"]["blocks"] > 10 * large["metrics"]["blocks"]


def test_write_refuses_to_replace_a_map_output_unless_asked(tmp_path, lineitem):
    arguments = ["write", lineitem, "--output-dir", tmp_path, "--partitions", 2, "--keys", "c0"]
    run(*arguments)
    result = run(*arguments, check=False)
    assert result.returncode == FAILURE
    assert "already exists" in error_line(result) and "--overwrite" in error_line(result)
    run(*arguments, "--overwrite")


@pytest.mark.parametrize("arguments,words", [
    (["--partitions", "4", "--keys", "c0", "--codec", "brotli"], ["--codec", "brotli"]),
    (["--partitions", "4", "--keys", "c0", "--codec", "zstd:99"], ["--codec", "99"]),
    (["--partitions", "0", "--keys", "c0"], ["--partitions"]),
    (["--partitions", "many", "--keys", "c0"], ["--partitions", "many"]),
    (["--partitions", "4"], ["--keys"]),
    (["--partitions", "4", "--keys", "l_nothing"], ["--keys", "l_nothing"]),
    (["--partitions", "4", "--keys", "c99"], ["--keys", "c99"]),
    (["--partitions", "4", "--keys", "c0", "--memory-budget", "12XB"],
     ["--memory-budget", "12XB"]),
    (["--partitions", "4", "--keys", "c0", "--checksum", "md5"], ["--checksum", "md5"]),
    (["--partitions", "4", "--keys", "c0", "--partitioning", "zigzag"],
     ["--partitioning", "zigzag"]),
    (["--partitioning", "range"], ["--bounds"]),
    (["--keys", "c0"], ["--partitions"]),
    (["--partitions", "4", "--keys", "c0", "--set", "block-rows"], ["--set"]),
    (["--partitions", "4", "--keys", "c0", "--set", "colour=red"], ["--set", "colour"]),
])
def test_write_bad_arguments_are_usage_errors_naming_the_flag(tmp_path, lineitem, arguments,
                                                              words):
    result = run("write", lineitem, "--output-dir", tmp_path / "out", *arguments, check=False)
    assert result.returncode == USAGE, result.stderr
    line = error_line(result)
    for word in words:
        assert word in line
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True


def test_write_of_a_missing_input_names_it(tmp_path):
    result = run("write", tmp_path / "nothing.arrow", "--output-dir", tmp_path, "--partitions",
                 2, "--keys", "c0", check=False)
    assert result.returncode == FAILURE
    assert "nothing.arrow" in error_line(result)


def test_write_of_an_input_that_is_not_arrow_names_it_and_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.arrow"
    bad.write_bytes(b"this is not an arrow stream at all, not even close")
    result = run("write", bad, "--output-dir", tmp_path / "out", "--partitions", 2, "--keys",
                 "c0", check=False)
    assert result.returncode == FAILURE
    assert "bad.arrow" in error_line(result) and "byte" in error_line(result)
    assert not list((tmp_path / "out").glob("shuffle_*"))



def test_overwrite_with_another_checksum_leaves_no_file_of_the_old_output(tmp_path, lineitem):
    """--overwrite with another algorithm left the old .checksum.ADLER32 beside the new output,
    and read and inspect --verify then called the valid new output corrupt."""
    base = ["write", lineitem, "--output-dir", tmp_path, "--partitions", 4, "--keys", "c0"]
    run(*base)
    assert (tmp_path / "shuffle_0_0_0.checksum.ADLER32").exists()
    run(*base, "--overwrite", "--checksum", "crc32c", "--codec", "lz4")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["shuffle_0_0_0.checksum.CRC32C", "shuffle_0_0_0.data",
                     "shuffle_0_0_0.index"], names
    run("inspect", tmp_path / "shuffle_0_0_0.data", "--verify")
    assert json.loads(run("read", tmp_path, "--partition", "0-3", "--json").stdout)["rows"] == \
        20000
    run(*base, "--overwrite", "--checksum", "none", "--codec", "zstd")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shuffle_0_0_0.data",
                                                          "shuffle_0_0_0.index"]
    run("inspect", tmp_path / "shuffle_0_0_0.data", "--verify")
    assert json.loads(run("read", tmp_path, "--partition", "0-3", "--json").stdout)["rows"] == \
        20000


def test_an_interrupted_overwrite_leaves_the_old_output_whole(tmp_path):
    """SIGINT while --overwrite runs: the old map output stays readable and verified, and no
    temporary file is left."""
    import signal
    import time
    big = tmp_path / "big.arrow"
    run("generate", "lineitem", "--rows", 2_000_000, "--output", big)
    out = tmp_path / "out"
    base = ["write", big, "--output-dir", out, "--partitions", 64, "--keys", "c0"]
    run(*base, "--codec", "none")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    process = subprocess.Popen([CLI, *map(str, base), "--overwrite", "--codec", "zstd:19",
                                "--checksum", "crc32"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=dict(os.environ, SLUICE_PROGRESS="0"))
    time.sleep(1.0)
    assert process.poll() is None, "the write ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr.decode()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    run("inspect", out / "shuffle_0_0_0.data", "--verify")


@pytest.mark.parametrize("command", ["generate", "read"])
def test_output_onto_a_character_device_writes_to_it_and_keeps_it(tmp_path, shuffle, command):
    """--output /dev/null as root replaced the machine's /dev/null with a regular file. A device
    node made in a scratch directory (the null device's numbers) must still be that device."""
    import stat
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD)")
    arguments = (["generate", "mixed", "--rows", 1000] if command == "generate" else
                 ["read", shuffle[0], "--partition", "0-3"])
    run(*arguments, "--output", device)
    info = os.lstat(device)
    assert stat.S_ISCHR(info.st_mode) and info.st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@pytest.mark.parametrize("command", ["generate", "read"])
def test_output_onto_a_fifo_streams_to_its_reader(tmp_path, shuffle, command):
    import stat
    import threading
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    arguments = (["generate", "mixed", "--rows", 1000] if command == "generate" else
                 ["read", shuffle[0], "--partition", "0-3"])
    run(*arguments, "--output", fifo)
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    table = pa.ipc.open_stream(received[0]).read_all()
    assert table.num_rows == (1000 if command == "generate" else
                              sum(shuffle[1][m]["partition_rows"][p]
                                  for m in (0, 1) for p in range(4)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_output_onto_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "data" / "real.arrow"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link.arrow"
    link.symlink_to(pathlib.Path("data") / "real.arrow")
    run("generate", "mixed", "--rows", 500, "--output", link)
    assert link.is_symlink() and os.readlink(link) == str(pathlib.Path("data") / "real.arrow")
    assert read_stream(target).num_rows == 500
    # A dangling link: its target is created.
    dangling = tmp_path / "dangling.arrow"
    dangling.symlink_to(tmp_path / "data" / "new.arrow")
    run("generate", "mixed", "--rows", 7, "--output", dangling)
    assert dangling.is_symlink() and read_stream(tmp_path / "data" / "new.arrow").num_rows == 7
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["new.arrow", "real.arrow"]


def test_output_onto_a_directory_is_refused(tmp_path):
    result = run("generate", "mixed", "--rows", 5, "--output", tmp_path, check=False)
    assert result.returncode == FAILURE
    assert "is a directory" in error_line(result) and str(tmp_path) in error_line(result)


def test_map_output_onto_links_and_devices(tmp_path, lineitem):
    """A map output replaces the target of a symbolic link, and refuses to replace a FIFO."""
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.data"
    elsewhere.write_bytes(b"old")
    (out / "shuffle_0_0_0.data").symlink_to(elsewhere)
    base = ["write", lineitem, "--output-dir", out, "--partitions", 4, "--keys", "c0"]
    run(*base, "--overwrite")
    assert (out / "shuffle_0_0_0.data").is_symlink()
    assert elsewhere.stat().st_size > 1000
    os.mkfifo(out / "shuffle_0_1_0.data")
    result = run(*base, "--map-id", 1, "--overwrite", check=False)
    assert result.returncode == FAILURE and "FIFO" in error_line(result), error_line(result)
    import stat
    assert stat.S_ISFIFO(os.lstat(out / "shuffle_0_1_0.data").st_mode)
    assert not list(out.glob("*.tmp"))


def _declared_rows_stream(path, with_null_column, rows=2**31):
    """A stream whose one batch declares `rows` rows of no columns, or of one null column: a
    few hundred bytes of legal Arrow IPC (pyarrow refuses to write such a batch, so its length
    is patched into a small one)."""
    batch = pa.record_batch([pa.nulls(12345)], names=["n"])
    if not with_null_column:
        batch = batch.select([])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    data = sink.getvalue().to_pybytes().replace(struct.pack("<q", 12345), struct.pack("<q", rows))
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("with_null_column", [False, True])
def test_a_batch_declaring_2_to_the_31_rows_shuffles_within_the_budget(tmp_path,
                                                                      with_null_column):
    """2^31 declared rows made `write --memory-budget 64MiB` allocate 8 GiB of per-row state
    (and abort where that failed). Now: success, peak RSS within the budget plus 64 MiB."""
    source = _declared_rows_stream(tmp_path / "rows.arrow", with_null_column)
    out = tmp_path / "out"
    keys = ["--keys", "n", "--partitions", 8] if with_null_column else \
        ["--partitioning", "round-robin", "--partitions", 8]
    result, peak_rss_mib = run_measuring_peak_rss(
        "write", source, "--output-dir", out, "--json", "--memory-budget", "64MiB", *keys)
    assert result.returncode == 0, result.stderr.decode()
    summary = json.loads(result.stdout)
    assert summary["rows"] == 2**31
    assert peak_rss_mib <= 64 + 64, f"peak RSS {peak_rss_mib:.0f} MiB"
    assert sum(summary["partition_rows"]) == 2**31
    read = json.loads(run("read", out, "--partition", "0-7", "--json").stdout)
    assert read["rows"] == 2**31


def test_write_streams_its_input_within_the_budget(tmp_path):
    """`write -` read all of standard input before writing (2.1 GB for 8M rows under a 64 MiB
    budget). 2M lineitem rows (322 MiB) through a pipe, and from a file: peak RSS within the
    budget plus 64 MiB, and the same output."""
    source = tmp_path / "lineitem.arrow"
    run("generate", "lineitem", "--rows", 2_000_000, "--output", source)
    arguments = ["--partitions", 50, "--keys", "l_orderkey", "--codec", "lz4",
                 "--memory-budget", "64MiB", "--json"]
    piped, piped_rss = run_measuring_peak_rss("write", "-", "--output-dir", tmp_path / "piped",
                                              *arguments, stdin_file=source)
    from_file, file_rss = run_measuring_peak_rss("write", source, "--output-dir",
                                                 tmp_path / "file", *arguments)
    assert piped.returncode == 0 and from_file.returncode == 0, piped.stderr + from_file.stderr
    assert piped_rss <= 64 + 64 and file_rss <= 64 + 64, (piped_rss, file_rss)
    piped_summary, file_summary = json.loads(piped.stdout), json.loads(from_file.stdout)
    assert piped_summary["rows"] == file_summary["rows"] == 2_000_000
    assert piped_summary["partition_checksums"] == file_summary["partition_checksums"]
    assert sum(piped_summary["partition_rows"]) == 2_000_000

def test_partition_state_the_budget_cannot_carry_is_refused_before_it_is_made(tmp_path):
    """2^24 partitions (Spark's largest count) under a 1 MiB budget and one row took 941 MB with
    the summary saying "peak reserved 20 B". Now: refused before the state is made, naming what
    it would cost; peak RSS within the budget plus 64 MiB and no file left. With a budget that
    can carry it, the summary reports the state."""
    source = tmp_path / "one.arrow"
    run("generate", "lineitem", "--rows", 1, "--output", source)
    out = tmp_path / "out"
    result, peak_rss_mib = run_measuring_peak_rss(
        "write", source, "--output-dir", out, "--partitions", 2**24, "--keys", "l_orderkey",
        "--memory-budget", "1MiB")
    assert result.returncode == 1
    assert "16777216 partitions need 832 MiB of per-partition state" in error_line(result)
    assert "raise the budget or use fewer partitions" in error_line(result)
    assert peak_rss_mib <= 1 + 64, f"peak RSS {peak_rss_mib:.0f} MiB"
    assert not out.exists() or not any(out.iterdir())
    summary = run("write", source, "--output-dir", tmp_path / "small", "--partitions", 1000,
                  "--keys", "l_orderkey").stdout.decode()
    assert "per-partition state 50.8 KiB" in summary


# --- read --------------------------------------------------------------------------------------


def test_read_every_partition_of_every_map_output_matches_the_writes(shuffle):
    directory, summaries = shuffle
    result = json.loads(run("read", directory, "--partition", "0-15", "--json").stdout)
    assert result["map_ids"] == [0, 1]
    assert result["rows"] == 40000
    assert result["checksums_verified"]
    expected = [summaries[0]["partition_rows"][p] + summaries[1]["partition_rows"][p]
                for p in range(16)]
    assert [entry["rows"] for entry in result["partitions"]] == expected


def test_read_selected_map_ids_and_one_partition(shuffle):
    directory, summaries = shuffle
    result = json.loads(run("read", directory, "--map-ids", "1", "--partition", 5,
                            "--json").stdout)
    assert result["map_ids"] == [1]
    assert result["rows"] == summaries[1]["partition_rows"][5]


def test_read_writes_arrow_that_pyarrow_opens(tmp_path, shuffle):
    directory, summaries = shuffle
    path = tmp_path / "part.arrow"
    run("read", directory, "--partition", "2-3", "--output", path)
    table = read_stream(path)
    expected = sum(summaries[m]["partition_rows"][p] for m in (0, 1) for p in (2, 3))
    assert table.num_rows == expected
    assert table.schema.names[0] == "l_orderkey"


def test_read_writes_arrow_to_stdout(shuffle):
    directory, summaries = shuffle
    result = run("read", directory, "--partition", 4, "--output", "-")
    table = pa.ipc.open_stream(result.stdout).read_all()
    assert table.num_rows == summaries[0]["partition_rows"][4] + summaries[1]["partition_rows"][4]



def test_read_of_empty_partitions_has_the_map_outputs_schema(tmp_path):
    """An empty partition (or a map output with no rows at all) read back without columns."""
    source = tmp_path / "in.arrow"
    run("generate", "mixed", "--rows", 3, "--output", source)
    run("write", source, "--output-dir", tmp_path / "out", "--partitions", 64, "--keys", "c0")
    counts = json.loads(run("read", tmp_path / "out", "--partition", "0-63", "--json").stdout)
    empty = next(p["partition"] for p in counts["partitions"] if p["rows"] == 0)
    run("read", tmp_path / "out", "--partition", empty, "--output", tmp_path / "empty.arrow")
    table = read_stream(tmp_path / "empty.arrow")
    assert table.num_rows == 0 and table.schema.equals(read_stream(source).schema)

    nothing = tmp_path / "nothing.arrow"
    with pa.ipc.new_stream(str(nothing), pa.schema([("k", pa.int64()), ("v", pa.string())])):
        pass
    run("write", nothing, "--output-dir", tmp_path / "none", "--partitions", 4, "--keys", "k")
    run("read", tmp_path / "none", "--partition", "0-3", "--output", tmp_path / "bare.arrow")
    assert read_stream(tmp_path / "bare.arrow").schema.names == []
    run("read", tmp_path / "none", "--partition", "0-3", "--schema", nothing,
        "--output", tmp_path / "given.arrow")
    assert read_stream(tmp_path / "given.arrow").schema.names == ["k", "v"]

def test_read_head_prints_an_aligned_table(shuffle):
    directory, _ = shuffle
    lines = run("read", directory, "--partition", 0, "--head", 3).stdout.decode().splitlines()
    assert lines[0].split()[:2] == ["l_orderkey", "l_partkey"]
    assert set(lines[1]) <= {"-", " "}
    assert len(lines) == 2 + 3 + 1 and lines[-1] == "(3 rows)"
    # Columns line up: every row has its second column where the header's starts.
    start = lines[0].index("l_partkey")
    for line in lines[2:5]:
        assert line[start - 2:start] == "  "
    assert any(text.count("-") == 2 and len(text) == 10 for text in lines[2].split())  # a date


def test_read_summary_lists_partitions(shuffle):
    directory, _ = shuffle
    text = run("read", directory, "--partition", "0-2").stdout.decode()
    assert "partition" in text and "total" in text and "checksums verified" in text


@pytest.mark.parametrize("arguments,words,code", [
    # The range is checked against the index files: a failure of the data at hand.
    (["--partition", "16"], ["16 partitions", "--partition"], FAILURE),
    (["--partition", "5-2"], ["--partition", "5-2"], USAGE),
    (["--partition", "x"], ["--partition", "'x'"], USAGE),
    ([], ["--partition"], USAGE),
    (["--partition", "1", "--map-ids", "7"], ["shuffle_0_7_0.data", "not found"], FAILURE),
    (["--partition", "1", "--shuffle-id", "4"], ["no map outputs of shuffle 4"], FAILURE),
    (["--partition", "1", "--head", "2", "--output", "x.arrow"], ["--head", "--output"], USAGE),
])
def test_read_bad_arguments(shuffle, arguments, words, code):
    directory, _ = shuffle
    result = run("read", directory, *arguments, check=False)
    assert result.returncode == code, result.stderr
    line = error_line(result)
    for word in words:
        assert word in line


def test_read_of_a_missing_directory_names_it(tmp_path):
    result = run("read", tmp_path / "absent", "--partition", 0, check=False)
    assert result.returncode == FAILURE
    assert "absent" in error_line(result)


# --- inspect -----------------------------------------------------------------------------------


def test_inspect_describes_partitions(shuffle):
    directory, summaries = shuffle
    text = run("inspect", directory / "shuffle_0_0_0.data").stdout.decode()
    assert "16 partitions" in text and "20,000 rows" in text and "ADLER32" in text
    assert "l_orderkey int64" in text
    rows = [line.split() for line in text.splitlines() if line.split()[:1] == ["0"]]
    assert rows[0][5] == "lz4"



def test_inspect_of_a_million_mostly_empty_partitions_is_quick_and_small(tmp_path):
    """An 8 MB index of a million partitions, ten with rows: inspect cost 3.7 s and 345 MB
    listing every empty partition; they are counted, not listed."""
    source = tmp_path / "tiny.arrow"
    run("generate", "mixed", "--rows", 10, "--output", source)
    run("write", source, "--output-dir", tmp_path / "out", "--partitions", 1_000_000,
        "--keys", "c0")
    result, peak_rss_mib = run_measuring_peak_rss(
        "inspect", tmp_path / "out" / "shuffle_0_0_0.data", "--verify")
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "empty)" in text and len(text.splitlines()) < 40, text
    assert peak_rss_mib < 128, peak_rss_mib

def test_inspect_verifies_compact_segments_of_a_default_write(tmp_path):
    """Small partitions with a codec are compact segments compressed against the data file's
    Schema message (the default); inspect reported every one after the first as a problem."""
    source = tmp_path / "small.arrow"
    run("generate", "mixed", "--rows", 5000, "--output", source)
    run("write", source, "--output-dir", tmp_path / "out", "--partitions", 100, "--keys", "c0",
        "--codec", "lz4")
    result = run("inspect", tmp_path / "out" / "shuffle_0_0_0.data", "--verify")
    text = result.stdout.decode()
    assert "lz4 compact" in text and "5,000 rows" in text, text
    assert "verified:" in text and result.stderr == b"", result.stderr


def test_a_map_output_whose_readers_have_the_schema_is_read_with_it(tmp_path):
    """With readers-have-schema no segment holds the Schema message: inspect and read refuse
    without the schema, naming what they lack, and read every row with --schema."""
    source = tmp_path / "small.arrow"
    run("generate", "mixed", "--rows", 5000, "--output", source)
    out = tmp_path / "out"
    run("write", source, "--output-dir", out, "--partitions", 100, "--keys", "c0", "--codec",
        "lz4", "--set", "readers-have-schema=true")
    data = out / "shuffle_0_0_0.data"
    refused = run("inspect", data, check=False)
    assert refused.returncode == FAILURE
    assert b"compressed against its map output's Schema message" in refused.stderr
    result = run("inspect", data, "--verify", "--schema", source)
    assert b"verified:" in result.stdout and b"5,000 rows" in result.stdout

    refused = run("read", out, "--partition", "0-99", check=False)
    assert refused.returncode == FAILURE and b"give the reader the schema" in refused.stderr
    stream = tmp_path / "rows.arrows"
    run("read", out, "--partition", "0-99", "--schema", source, "--output", stream)
    got = pa.ipc.open_stream(stream.read_bytes()).read_all()
    want = pa.ipc.open_stream(source.read_bytes()).read_all()
    assert got.num_rows == want.num_rows == 5000
    assert sorted(got.column(0).to_pylist()) == sorted(want.column(0).to_pylist())


def test_inspect_json_agrees_with_the_write(shuffle):
    directory, summaries = shuffle
    description = json.loads(run("inspect", directory / "shuffle_0_1_0.data", "--verify",
                                 "--json").stdout)
    assert description["verified"] and description["problems"] == []
    assert description["map_id"] == 1
    assert [p["rows"] for p in description["partition_list"]] == summaries[1]["partition_rows"]
    assert [p["bytes"] for p in description["partition_list"]] == summaries[1]["partition_bytes"]
    assert all(p["codec"] in ("lz4", "-") for p in description["partition_list"])


def test_inspect_verify_passes_on_a_good_output(shuffle):
    directory, _ = shuffle
    result = run("inspect", directory / "shuffle_0_0_0.data", "--verify")
    assert b"verified:" in result.stdout and b"16 ADLER32 checksums match" in result.stdout


@pytest.fixture
def copied_output(tmp_path, shuffle):
    """A private copy of map output 0, to damage."""
    directory, summaries = shuffle
    for path in directory.glob("shuffle_0_0_0.*"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    offsets = big_endian_longs(tmp_path / "shuffle_0_0_0.index")
    return tmp_path, offsets


def flip_byte(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x55
    path.write_bytes(bytes(data))


def test_corrupt_body_byte_is_named_by_inspect_and_read(copied_output):
    directory, offsets = copied_output
    partition = 5
    # A byte near the end of the partition: inside the last block's body.
    flip_byte(directory / "shuffle_0_0_0.data", offsets[partition + 1] - 20)

    result = run("inspect", directory / "shuffle_0_0_0.data", "--verify", check=False)
    assert result.returncode == FAILURE
    problems = result.stderr.decode()
    assert f"shuffle_0_0_0.data partition {partition}" in problems
    assert "ADLER32" in problems and "checksum.ADLER32" in problems
    assert f"bytes {offsets[partition]}..{offsets[partition + 1]}" in problems

    result = run("read", directory, "--partition", partition, check=False)
    assert result.returncode == FAILURE
    line = error_line(result)
    assert "shuffle_0_0_0.data" in line and f"partition {partition}" in line
    assert "checksum" in line.lower()

    # The other partitions are untouched and still read.
    run("read", directory, "--partition", partition + 1)


def test_corrupt_metadata_is_named_with_its_offset_without_checksums(copied_output):
    directory, offsets = copied_output
    partition = 3
    for checksum in directory.glob("*.checksum.*"):
        checksum.unlink()
    # The continuation marker of the partition's first message: the segment can no longer be
    # framed, and the error points at the partition's first byte.
    flip_byte(directory / "shuffle_0_0_0.data", offsets[partition])

    result = run("inspect", directory / "shuffle_0_0_0.data", check=False)
    assert result.returncode == FAILURE
    line = error_line(result)
    assert f"shuffle_0_0_0.data partition {partition}" in line
    assert f"byte {offsets[partition]}" in line

    result = run("read", directory, "--partition", partition, check=False)
    assert result.returncode == FAILURE
    line = error_line(result)
    assert f"partition {partition}" in line and "byte" in line


def test_truncated_data_file_is_caught_against_the_index(copied_output):
    directory, offsets = copied_output
    data = directory / "shuffle_0_0_0.data"
    data.write_bytes(data.read_bytes()[:-100])
    result = run("inspect", data, check=False)
    assert result.returncode == FAILURE
    line = error_line(result)
    assert "shuffle_0_0_0.index" in line and str(offsets[-1]) in line

    result = run("read", directory, "--partition", "0-15", check=False)
    assert result.returncode == FAILURE
    assert "shuffle_0_0_0" in error_line(result)


def test_missing_index_is_named(copied_output):
    directory, _ = copied_output
    (directory / "shuffle_0_0_0.index").unlink()
    result = run("inspect", directory / "shuffle_0_0_0.data", check=False)
    assert result.returncode == FAILURE
    assert "shuffle_0_0_0.index" in error_line(result) and "not found" in error_line(result)


def test_inspect_of_a_missing_file_names_it(tmp_path):
    result = run("inspect", tmp_path / "shuffle_0_0_0.data", check=False)
    assert result.returncode == FAILURE
    assert "shuffle_0_0_0.data" in error_line(result)


# --- progress ----------------------------------------------------------------------------------


def run_with_terminal_stderr(*arguments):
    """Runs the tool with stderr on a pseudo-terminal; returns what it drew there."""
    leader, follower = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "SLUICE_PROGRESS"}
    process = subprocess.Popen([CLI, *map(str, arguments)], stdout=subprocess.DEVNULL,
                               stderr=follower, env=environment)
    os.close(follower)
    drawn = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the follower closed
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    assert process.wait(timeout=300) == 0
    return drawn.decode(errors="replace")


def test_progress_is_drawn_on_a_terminal_with_rate_and_eta(tmp_path):
    drawn = run_with_terminal_stderr("generate", "lineitem", "--rows", 200000, "--output",
                                     tmp_path / "x.arrow")
    assert "generate" in drawn and "rows/s" in drawn and "%" in drawn and "ETA" in drawn
    assert "\r" in drawn


def test_progress_stays_quiet_when_piped(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k != "SLUICE_PROGRESS"}
    result = subprocess.run([CLI, "generate", "lineitem", "--rows", "200000", "--output",
                             str(tmp_path / "x.arrow")], capture_output=True, env=environment)
    assert result.returncode == 0
    assert result.stderr == b""


# --- bench -------------------------------------------------------------------------------------


def fake_benchmark(directory):
    """A benchmark program in Google Benchmark's JSON format, to test merging."""
    program = directory / "fake_benchmark"
    document = {
        "context": {"date": "today", "host_name": "test", "num_cpus": 1},
        "benchmarks": [
            {"name": "BM_Copy", "run_name": "BM_Copy", "run_type": "iteration",
             "iterations": 10, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ns",
             "bytes_per_second": 1e9},
            {"name": "BM_Thing", "run_name": "BM_Thing", "run_type": "iteration",
             "iterations": 10, "real_time": 10.0, "cpu_time": 10.0, "time_unit": "ns",
             "vs_raw": 2.0},
        ],
    }
    program.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(document) + "\nEOF\n")
    program.chmod(0o755)
    failing = directory / "broken_benchmark"
    failing.write_text("#!/bin/sh\necho 'it broke' >&2\nexit 3\n")
    failing.chmod(0o755)


def test_bench_lists_the_suites_beside_it(tmp_path):
    fake_benchmark(tmp_path)
    text = run("bench", "--list", "--bench-dir", tmp_path).stdout.decode()
    assert [line.split()[0] for line in text.splitlines()] == ["broken", "fake", "end_to_end"]


def test_bench_unknown_suite_is_a_usage_error(tmp_path):
    fake_benchmark(tmp_path)
    result = run("bench", "nothing", "--bench-dir", tmp_path, check=False)
    assert result.returncode == USAGE
    assert "unknown suite 'nothing'" in error_line(result)


def test_bench_quick_merges_suites_and_renders_plots(tmp_path):
    pytest.importorskip("matplotlib")
    fake_benchmark(tmp_path)
    results = tmp_path / "results.json"
    plots = tmp_path / "plots"
    result = run("bench", "end_to_end", "fake", "--quick", "--bench-dir", tmp_path, "--json",
                 results, "--plots", plots)
    document = json.loads(results.read_text())
    # Google Benchmark's format: a context and a list of entries, each with its suite.
    assert document["context"]["host_name"] == "test"
    assert document["context"]["sluice"]["quick"] is True
    suites = {entry["suite"] for entry in document["benchmarks"]}
    assert suites == {"end_to_end", "fake"}
    for entry in document["benchmarks"]:
        for key in ("name", "run_name", "run_type", "iterations", "real_time", "cpu_time",
                    "time_unit"):
            assert key in entry
    names = {entry["run_name"] for entry in document["benchmarks"]}
    assert "end_to_end/ipc_write" in names
    assert "end_to_end/write/partitions:200/codec:lz4" in names
    assert "end_to_end/read/partitions:200/codec:zstd" in names
    medians = {e["run_name"]: e for e in document["benchmarks"]
               if e.get("aggregate_name") == "median"}
    assert medians["end_to_end/write/partitions:16/codec:none"]["vs_ipc_write"] > 0
    assert medians["end_to_end/read/partitions:200/codec:lz4"]["vs_raw_decompress"] > 0
    timeline = document["memory_timelines"][0]
    assert len(timeline["samples"]) >= 2 and timeline["budget_bytes"] > 0
    for figure in ("writer_partitions.png", "codec_throughput.png", "decode_overhead.png",
                   "memory_timeline.png", "suite_fake.png"):
        assert (plots / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (plots / "report.md").read_text()
    assert "| end_to_end |" in report and "vs_raw" in report
    assert b"end_to_end" in result.stdout  # the suite table


def test_bench_report_takes_the_map_writer_ratios_from_its_paired_cases(tmp_path):
    pytest.importorskip("matplotlib")
    # A map_writer suite as the real program names its manually timed cases: ".../manual_time".
    def case(name, milliseconds, **counters):
        return {"name": name + "/manual_time", "run_name": name + "/manual_time",
                "run_type": "iteration", "iterations": 3, "real_time": milliseconds,
                "cpu_time": milliseconds, "time_unit": "ms", **counters}
    document = {
        "context": {"date": "today", "host_name": "test", "num_cpus": 1},
        "benchmarks": [case(f"BM_WriteMixed/partitions:{count}/codec:0", time)
                       for count, time in ((16, 4.0), (200, 5.0), (8000, 11.0))] +
                      [case("BM_WriteMixedOver200/partitions:8000", 9.0, over_200_median=1.8),
                       case("BM_WriteMixed/partitions:200/codec:1", 12.0),
                       case("BM_WriteMixedBesideRaw/partitions:200/codec:1/compression_threads:0",
                            12.5, raw_over_wall=0.4)] +
                      [{"name": "BM_RawCodecSameBytes/codec:1",
                        "run_name": "BM_RawCodecSameBytes/codec:1", "run_type": "iteration",
                        "iterations": 9, "real_time": 5.0, "cpu_time": 5.0, "time_unit": "ms"}],
    }
    program = tmp_path / "map_writer_benchmark"
    program.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(document) + "\nEOF\n")
    program.chmod(0o755)
    plots = tmp_path / "plots"
    run("bench", "end_to_end", "map_writer", "--quick", "--bench-dir", tmp_path, "--json",
        tmp_path / "results.json", "--plots", plots)
    report = (plots / "report.md").read_text()
    # 16 partitions: the ratio of the medians; 8000: the paired ratio, not 11 / 5.
    assert "| map_writer | BM_WriteMixed 16 partitions | 200 partitions | 0.8 |" in report
    assert "| map_writer | BM_WriteMixed 8000 partitions | 200 partitions | 1.8 |" in report
    # The codec against the raw codec: the paired BesideRaw ratio (1 / 0.4), not 12 / 5.
    assert "| lz4: whole write, mixed batches | raw codec on the same buffers | 2.5 |" in report


def test_bench_reports_a_failing_suite_and_still_writes_the_others(tmp_path):
    fake_benchmark(tmp_path)
    results = tmp_path / "results.json"
    result = run("bench", "fake", "broken", "--quick", "--bench-dir", tmp_path, "--json",
                 results, check=False)
    assert result.returncode == FAILURE
    assert "broken" in result.stderr.decode() and "it broke" in result.stderr.decode()
    document = json.loads(results.read_text())
    assert {entry["suite"] for entry in document["benchmarks"]} == {"fake"}


def test_extension_types_and_field_metadata_pass_through_write_and_read(tmp_path):
    element = pa.field("item", pa.int64(), metadata={"unit": "cents"})
    schema = pa.schema([
        pa.field("key", pa.int64(), metadata={"role": "key"}),
        pa.field("id", pa.uuid()),
        pa.field("amounts", pa.list_(element), metadata={"origin": "ledger"}),
    ], metadata={"writer": "cli test"})
    table = pa.table({
        "key": pa.array(range(50), pa.int64()),
        "id": pa.ExtensionArray.from_storage(
            pa.uuid(), pa.array([bytes([i]) * 16 for i in range(50)], pa.binary(16))),
        "amounts": pa.array([[i] * (i % 3) for i in range(50)], pa.list_(element)),
    }, schema=schema)
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), schema) as writer:
        writer.write_table(table)
    run("write", source, "--output-dir", tmp_path / "out", "--partitions", 3, "--keys", "key",
        "--codec", "zstd")
    run("read", tmp_path / "out", "--partition", "0-2", "--output", tmp_path / "back.arrow")
    back = pa.ipc.open_stream(str(tmp_path / "back.arrow")).read_all()
    assert back.schema.equals(schema, check_metadata=True), back.schema
    assert back.sort_by("key").equals(table, check_metadata=True)


def test_bench_reads_the_nan_and_infinities_google_benchmark_writes(tmp_path):
    # A stand-in benchmark program whose JSON has the bare NaN and infinities Google Benchmark
    # writes for undefined counters, and a name that spells them inside a string.
    bench_dir = tmp_path / "bench"
    bench_dir.mkdir()
    program = bench_dir / "codec_benchmark"
    program.write_text("#!/bin/sh\ncat <<'JSON'\n"
                       '{"context": {"host_name": "h"}, "benchmarks": ['
                       '{"name": "BM_nan/inf \\"NaN\\"", "ratio": NaN, "low": -inf,'
                       ' "high": Infinity, "rows": 12345678901234}]}\n'
                       "JSON\n")
    program.chmod(0o755)
    run("bench", "codec", "--bench-dir", bench_dir, "--repetitions", 1, "--json",
        tmp_path / "out.json")
    merged = json.loads((tmp_path / "out.json").read_text())
    entry = merged["benchmarks"][0]
    assert entry["name"] == 'BM_nan/inf "NaN"'
    assert entry["ratio"] is None and entry["low"] is None and entry["high"] is None
    assert entry["rows"] == 12345678901234 and entry["suite"] == "codec"
    assert merged["context"]["host_name"] == "h"


def dictionary_batches():
    """Three batches whose dictionary-encoded columns (string values under int8 indices, int64
    values under uint16, strings inside a list, a struct and a map, nulls among the indices and
    among the dictionary values) change their dictionaries from batch to batch."""
    batches = []
    for b in range(3):
        rows = 40 + b
        names = pa.array([f"name-{b}-{i % 7}" if i % 5 else None for i in range(rows)])
        name_dictionary = pa.DictionaryArray.from_arrays(
            pa.array([i % 4 if i % 9 else None for i in range(rows)], pa.int8()),
            pa.array(["a", None, f"b{b}", "ccccccccccccccccc"]))
        amounts = pa.DictionaryArray.from_arrays(
            pa.array([(i * 3) % 5 for i in range(rows)], pa.uint16()),
            pa.array([10 * b + v for v in range(5)], pa.int64()))
        tags = pa.ListArray.from_arrays(
            pa.array([2 * i for i in range(rows + 1)], pa.int32()),
            pa.DictionaryArray.from_arrays(pa.array([i % 3 for i in range(2 * rows)], pa.int32()),
                                           pa.array(["x", "y", f"z{b}"])))
        point = pa.StructArray.from_arrays(
            [pa.array(range(rows), pa.int32()),
             pa.DictionaryArray.from_arrays(pa.array([i % 2 for i in range(rows)], pa.int64()),
                                            pa.array(["left", "right"]))],
            names=["x", "side"])
        batches.append(pa.record_batch(
            [pa.array(range(100 * b, 100 * b + rows), pa.int64()), names.dictionary_encode(),
             name_dictionary, amounts, tags, point],
            names=["id", "name", "label", "amount", "tags", "point"]))
    return batches


def write_dictionary_stream(path, batches, **options):
    with pa.ipc.new_stream(str(path), batches[0].schema,
                           options=pa.ipc.IpcWriteOptions(**options)) as writer:
        for batch in batches:
            writer.write_batch(batch)


def decoded(table):
    """The table with every dictionary-encoded column, at every level, as its values."""
    return pa.table({name: column.cast(unpacked_type(column.type))
                     for name, column in zip(table.column_names, table.columns)})


def unpacked_type(type_):
    if pa.types.is_dictionary(type_):
        return unpacked_type(type_.value_type)
    if pa.types.is_list(type_):
        return pa.list_(pa.field(type_.value_field.name, unpacked_type(type_.value_type)))
    if pa.types.is_struct(type_):
        return pa.struct([pa.field(f.name, unpacked_type(f.type), f.nullable) for f in type_])
    return type_


@pytest.mark.parametrize("how", ["replacement", "delta", "file", "stdin", "unpacked"])
def test_write_keeps_dictionary_encoded_columns(tmp_path, how):
    # Kept encoded by default (each block preceded by the DictionaryBatch of the values its rows
    # use); with unpack-dictionaries=true written as their values.
    batches = dictionary_batches()
    source = tmp_path / "in.arrow"
    if how == "file":
        # The file format holds one dictionary per id: one batch's, over several record batches.
        batches = batches[:1]
        with pa.ipc.new_file(str(source), batches[0].schema) as writer:
            writer.write_table(pa.Table.from_batches(batches), max_chunksize=17)
    else:
        write_dictionary_stream(source, batches, emit_dictionary_deltas=how == "delta")
    expected = decoded(pa.Table.from_batches(batches))
    output = tmp_path / "out"
    arguments = ["write", "-" if how == "stdin" else source, "--output-dir", output,
                 "--partitions", 5, "--keys", "name", "--codec", "lz4"]
    if how == "unpacked":
        arguments += ["--set", "unpack-dictionaries=true"]
    run(*arguments, stdin=source.read_bytes() if how == "stdin" else None)
    run("read", output, "--partition", "0-4", "--output", tmp_path / "back.arrow")
    back = read_stream(tmp_path / "back.arrow")
    assert back.schema.equals(expected.schema if how == "unpacked" else batches[0].schema), \
        back.schema
    assert decoded(back).sort_by("id").equals(expected.sort_by("id"))
    # Each row in the partition its values put it in: the same shuffle of the plain columns.
    plain = tmp_path / "plain.arrow"
    with pa.ipc.new_stream(str(plain), expected.schema) as writer:
        writer.write_table(expected)
    run("write", plain, "--output-dir", tmp_path / "plain", "--partitions", 5, "--keys", "name",
        "--codec", "lz4")
    for p in range(5):
        run("read", output, "--partition", p, "--output", tmp_path / "a.arrow")
        run("read", tmp_path / "plain", "--partition", p, "--output", tmp_path / "b.arrow")
        assert decoded(read_stream(tmp_path / "a.arrow")).equals(
            read_stream(tmp_path / "b.arrow")), p
    # The segments, opened by pyarrow itself, hold the same rows, dictionaries and all (written
    # as streams: small partitions are otherwise compact segments, opened after lz4 -d).
    streams = tmp_path / "streams"
    run(*(arguments[:3] + [streams] + arguments[4:] + ["--set", "compact-segment-bytes=0"]),
        stdin=source.read_bytes() if how == "stdin" else None)
    data = (streams / "shuffle_0_0_0.data").read_bytes()
    offsets = big_endian_longs(streams / "shuffle_0_0_0.index")
    segments = [pa.ipc.open_stream(data[start:end]).read_all()
                for start, end in zip(offsets, offsets[1:]) if end > start]
    assert decoded(pa.concat_tables(segments)).sort_by("id").equals(expected.sort_by("id"))


def test_dictionary_segments_carry_only_the_values_their_rows_use(tmp_path):
    # A dictionary of 10,000 long strings, 5,000 rows over 1,000 partitions: each partition's
    # segment carries its few rows' values, not the dictionary.
    values = pa.array([f"a long dictionary value, number {i:05d}" for i in range(10000)])
    indices = pa.array([(i * 7919) % 10000 for i in range(5000)], pa.int32())
    table = pa.table({"k": pa.array(range(5000), pa.int64()),
                      "d": pa.DictionaryArray.from_arrays(indices, values)})
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table)
    run("write", source, "--output-dir", tmp_path / "kept", "--partitions", 1000, "--keys", "k",
        "--codec", "lz4")
    run("write", source, "--output-dir", tmp_path / "unpacked", "--partitions", 1000, "--keys", "k",
        "--codec", "lz4", "--set", "unpack-dictionaries=true")
    kept = (tmp_path / "kept" / "shuffle_0_0_0.data").stat().st_size
    unpacked = (tmp_path / "unpacked" / "shuffle_0_0_0.data").stat().st_size
    # Every value's bytes once, plus framing: far below 1,000 copies of a 400 KB dictionary.
    assert kept < 3 * unpacked, (kept, unpacked)
    run("read", tmp_path / "kept", "--partition", "0-999", "--output", tmp_path / "back.arrow")
    back = read_stream(tmp_path / "back.arrow")
    assert decoded(back).sort_by("k").equals(decoded(table))


def test_write_refuses_a_dictionary_whose_values_hold_a_dictionary(tmp_path):
    inner = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int8()), pa.array(["p", "q"]))
    outer = pa.DictionaryArray.from_arrays(
        pa.array([0, 0, 1], pa.int8()),
        pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), inner))
    source = tmp_path / "in.arrow"
    table = pa.table({"k": pa.array([1, 2, 3], pa.int64()), "d": outer})
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table)
    result = run("write", source, "--output-dir", tmp_path / "out", "--partitions", 2,
                 "--keys", "k", check=False)
    assert result.returncode == FAILURE
    message = error_line(result)
    assert "field 'd': dictionary<values=list<item: string>, indices=int8> holds a " \
           "dictionary-encoded field in its values ('d.item')" in message, message
    assert not (tmp_path / "out" / "shuffle_0_0_0.data").exists()


# Types Sluice carries since 2026-12-05, each through sluice write and sluice read: the same
# type, the same values, every row in the partition the hash rule puts it in.
NEWLY_CARRIED_TYPES = [
    pa.float16(), pa.date64(), pa.time32("s"), pa.time32("ms"), pa.time64("us"),
    pa.time64("ns"), pa.duration("s"), pa.duration("ms"), pa.duration("us"), pa.duration("ns"),
    pa.month_day_nano_interval(), pa.decimal32(7, 2), pa.decimal64(15, 3),
    pa.decimal256(10, 0), pa.decimal256(60, 5), pa.list_(pa.int16(), 2),
]


@pytest.mark.parametrize("type_", NEWLY_CARRIED_TYPES, ids=str)
def test_temporal_half_float_decimal_and_fixed_size_list_types_round_trip(tmp_path, type_):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "interop"))
    import arrow_data
    values = pa.schema([("value", type_), ("listed", pa.list_(pa.field("item", type_)))])
    table = arrow_data.random_table(values, 400, seed=5)
    table = table.add_column(0, pa.field("row", pa.int64(), nullable=False),
                             pa.array(range(400), pa.int64()))
    schema = table.schema
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), schema) as writer:
        writer.write_table(table, max_chunksize=150)
    for codec in ("none", "lz4", "zstd"):
        out = tmp_path / codec
        run("write", source, "--output-dir", out, "--partitions", 7, "--keys", "value",
            "--codec", codec)
        run("read", out, "--partition", "0-6", "--output", tmp_path / "back.arrow")
        back = pa.ipc.open_stream(str(tmp_path / "back.arrow")).read_all()
        assert back.schema.equals(schema, check_metadata=True), back.schema
        assert back.sort_by("row").equals(table), codec


def test_read_head_shows_times_intervals_and_wide_decimals_as_values(tmp_path):
    import decimal
    table = pa.table({
        "k": pa.array([1], pa.int64()),
        "t": pa.array([3_723_004], pa.time32("ms")),
        "d": pa.array([86_400_000 * 3], pa.date64()),
        "i": pa.array([pa.MonthDayNano([1, 2, 3])], pa.month_day_nano_interval()),
        "w": pa.array([decimal.Decimal("-" + "9" * 45 + ".5")], pa.decimal256(60, 1)),
        "h": pa.array([1.5], pa.float16()),
        "f": pa.array([[1, 2]], pa.list_(pa.int8(), 2)),
    })
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table)
    run("write", source, "--output-dir", tmp_path / "out", "--partitions", 1, "--keys", "k")
    row = run("read", tmp_path / "out", "--partition", 0, "--head", 1).stdout.decode().splitlines()[2]
    # A cell is cut at 32 characters: the decimal shows its first 28 digits.
    for value in ("01:02:03.004", "1970-01-04", "1M2d3ns", "-" + "9" * 28,
                  "1.5", "[1, 2]"):
        assert value in row, row


def test_a_malformed_union_in_an_ipc_stream_is_refused_naming_the_field(tmp_path):
    # Two children with the same type id: pyarrow writes the type, Arrow's format forbids it.
    schema = pa.schema([("k", pa.int64()),
                        ("odd", pa.dense_union([pa.field("a", pa.int32()), pa.field("b", pa.int8())],
                                               type_codes=[3, 3]))])
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), schema):
        pass
    result = run("write", source, "--output-dir", tmp_path / "out", "--partitions", 2,
                 "--keys", "k", check=False)
    assert result.returncode == FAILURE
    message = result.stderr.decode()
    assert "field 'odd': dense_union type id 3 is outside 0 to 127 or repeated" in message, message


def union_table():
    """The same values (strings, longs and nulls) as a sparse union, a dense union and the
    strings alone, in 300 rows."""
    rows = 300
    choices = [0 if i % 3 else 1 for i in range(rows)]
    strings = [None if i % 17 == 0 else f"s{i % 23}" for i in range(rows)]
    longs = [i * 7 for i in range(rows)]
    type_ids = pa.array([[4, 9][c] for c in choices], pa.int8())
    sparse = pa.UnionArray.from_sparse(type_ids, [pa.array(strings), pa.array(longs, pa.int64())],
                                       ["s", "l"], [4, 9])
    offsets, counts = [], [0, 0]
    for c in choices:
        offsets.append(counts[c])
        counts[c] += 1
    dense = pa.UnionArray.from_dense(
        type_ids, pa.array(offsets, pa.int32()),
        [pa.array([v for v, c in zip(strings, choices) if c == 0]),
         pa.array([v for v, c in zip(longs, choices) if c == 1], pa.int64())], ["s", "l"], [4, 9])
    return pa.table({"row": pa.array(range(rows), pa.int64()), "sparse": sparse, "dense": dense})


def test_write_and_read_carry_unions_and_place_rows_by_the_value_selected(tmp_path):
    table = union_table()
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table.slice(4), max_chunksize=70)
    expected = table.slice(4)
    for codec in ("none", "lz4", "zstd"):
        placed = {}
        for key in ("sparse", "dense"):
            out = tmp_path / f"{codec}-{key}"
            run("write", source, "--output-dir", out, "--partitions", 5, "--keys", key,
                "--codec", codec)
            run("read", out, "--partition", "0-4", "--output", tmp_path / "back.arrow")
            back = read_stream(tmp_path / "back.arrow")
            assert back.schema.equals(expected.schema), back.schema
            assert sorted(back.to_pylist(), key=lambda r: r["row"]) == expected.to_pylist(), key
            placed[key] = []
            for p in range(5):
                run("read", out, "--partition", p, "--output", tmp_path / "p.arrow")
                placed[key].append(sorted(read_stream(tmp_path / "p.arrow").column("row").to_pylist()))
        # A row lands where its value does, whichever mode holds it.
        assert placed["sparse"] == placed["dense"], codec


def list_view_table():
    """list_view and large_list_view columns whose rows are out of order, overlapping, empty and
    null (with garbage entries), beside the list of the same values."""
    values = pa.array([10, 11, None, 13, 14, 15, 16, 17], pa.int64())
    rows = 300
    offsets = [(7 * i) % 6 for i in range(rows)]
    sizes = [(i % 3) if i % 11 else 2 for i in range(rows)]
    mask = pa.array([i % 13 == 0 for i in range(rows)])
    # Null rows may hold anything; pyarrow keeps what it is given.
    offsets = [999 if i % 13 == 0 else o for i, o in enumerate(offsets)]
    view = pa.ListViewArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(sizes, pa.int32()),
                                        values, mask=mask)
    large = pa.LargeListViewArray.from_arrays(pa.array(offsets, pa.int64()),
                                              pa.array(sizes, pa.int64()),
                                              pa.array([f"s{v}" for v in range(8)]), mask=mask)
    return pa.table({"row": pa.array(range(rows), pa.int64()), "view": view, "large": large,
                     "as_list": pa.array(view.to_pylist(), pa.list_(pa.int64()))})


def test_write_and_read_carry_list_views_as_list_views(tmp_path):
    table = list_view_table()
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table.slice(5), max_chunksize=100)
    expected = table.slice(5)
    for codec in ("none", "lz4"):
        out = tmp_path / codec
        run("write", source, "--output-dir", out, "--partitions", 5, "--keys", "view",
            "--codec", codec)
        run("read", out, "--partition", "0-4", "--output", tmp_path / "back.arrow")
        back = read_stream(tmp_path / "back.arrow")
        assert back.schema.equals(expected.schema), back.schema
        assert back.sort_by("row").to_pylist() == expected.to_pylist(), codec
        # Each row where the list of the same elements goes.
        by_list = tmp_path / f"{codec}-by-list"
        run("write", source, "--output-dir", by_list, "--partitions", 5, "--keys", "as_list",
            "--codec", codec)
        for p in range(5):
            run("read", out, "--partition", p, "--output", tmp_path / "a.arrow")
            run("read", by_list, "--partition", p, "--output", tmp_path / "b.arrow")
            assert read_stream(tmp_path / "a.arrow").equals(read_stream(tmp_path / "b.arrow")), p
    head = run("read", tmp_path / "lz4", "--partition", "0-4", "--head", 3).stdout.decode()
    assert "[" in head.splitlines()[2], head


def run_end_encoded_table():
    """Run-end encoded strings and doubles in runs of one to five rows, a null run among them,
    beside the plain strings they stand for."""
    rows = 400
    strings = [None if (i // 5) % 7 == 3 else f"value-{(i // 5) % 11}" for i in range(rows)]
    doubles = [float(i // 3) for i in range(rows)]
    return pa.table({"row": pa.array(range(rows), pa.int64()),
                     "encoded": pa.array(strings, pa.run_end_encoded(pa.int32(), pa.string())),
                     "doubles": pa.array(doubles, pa.run_end_encoded(pa.int16(), pa.float64())),
                     "plain": pa.array(strings, pa.string())})


def test_write_and_read_carry_run_end_encoded_columns_and_place_rows_by_value(tmp_path):
    table = run_end_encoded_table()
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table.slice(3), max_chunksize=90)
    expected = table.slice(3)
    for codec in ("none", "lz4", "zstd"):
        out = tmp_path / codec
        run("write", source, "--output-dir", out, "--partitions", 5, "--keys", "encoded",
            "--codec", codec)
        run("read", out, "--partition", "0-4", "--output", tmp_path / "back.arrow")
        back = read_stream(tmp_path / "back.arrow")
        assert back.schema.equals(expected.schema), back.schema
        assert sorted(back.to_pylist(), key=lambda r: r["row"]) == expected.to_pylist(), codec
        # Each row where the plain string of the same value goes.
        by_plain = tmp_path / f"{codec}-by-plain"
        run("write", source, "--output-dir", by_plain, "--partitions", 5, "--keys", "plain",
            "--codec", codec)
        for p in range(5):
            run("read", out, "--partition", p, "--output", tmp_path / "a.arrow")
            run("read", by_plain, "--partition", p, "--output", tmp_path / "b.arrow")
            assert (read_stream(tmp_path / "a.arrow").column("row").to_pylist()
                    == read_stream(tmp_path / "b.arrow").column("row").to_pylist()), p
    head = run("read", tmp_path / "lz4", "--partition", "0-4", "--head", 3).stdout.decode()
    assert "value-" in head, head


def test_dictionaries_under_list_views_run_end_encoded_and_unions_are_kept(tmp_path):
    # The stream's DictionaryBatch messages fill dictionary-encoded children below each of these
    # parents (a list view of them was once rebuilt as a struct and refused).
    words = pa.array(["a", "b", "a", "c", None, "b"]).dictionary_encode()
    view = pa.ListViewArray.from_arrays(pa.array([0, 2, 1, 4], pa.int32()),
                                        pa.array([2, 2, 1, 2], pa.int32()), words)
    encoded = pa.RunEndEncodedArray.from_arrays(pa.array([1, 3, 4], pa.int32()),
                                                pa.array(["x", "y", "x"]).dictionary_encode())
    union = pa.UnionArray.from_dense(pa.array([0, 1, 0, 0], pa.int8()),
                                     pa.array([0, 0, 1, 2], pa.int32()),
                                     [words.slice(0, 3), pa.array([7], pa.int64())], ["w", "n"])
    table = pa.table({"k": pa.array(range(4), pa.int64()), "view": view, "encoded": encoded,
                      "union": union})
    source = tmp_path / "in.arrow"
    with pa.ipc.new_stream(str(source), table.schema) as writer:
        writer.write_table(table)
    run("write", source, "--output-dir", tmp_path / "out", "--partitions", 3, "--keys", "k")
    run("read", tmp_path / "out", "--partition", "0-2", "--output", tmp_path / "back.arrow")
    back = read_stream(tmp_path / "back.arrow")
    assert back.schema.equals(table.schema), back.schema
    assert sorted(back.to_pylist(), key=lambda r: r["k"]) == table.to_pylist()
