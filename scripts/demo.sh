#!/usr/bin/env bash
# make demo: Sluice's main job on generated data, end to end, with the tool a user runs.
#
#   1. generate 10,000,000 TPC-H lineitem rows as the inputs of two map tasks (5,000,000 rows
#      each, seeds 1 and 2), as Arrow IPC streams
#   2. shuffle each into 200 partitions (hash on l_orderkey, lz4, a 256 MiB memory budget) as
#      Spark's shuffle_0_<map>_0.data / .index / .checksum.ADLER32
#   3. inspect --verify each map output: the index against the file, every block decoded, every
#      partition's checksum recomputed
#   4. read every partition back from both map outputs through the reduce-side PartitionReader,
#      which verifies the checksums as it reads
#   5. check: rows read = rows generated; per partition, rows read = the rows the two writes put
#      there; pyarrow opens a partition written out by `sluice read --output`
# and print a summary. Exits non-zero when any check fails.
#
# Usage: scripts/demo.sh [BUILD_DIR]   (default build; uses BUILD_DIR/tools/sluice)
# Everything lives in BUILD_DIR/demo and is made anew on each run; the generated inputs are kept
# when they already hold the same rows (DEMO_ROWS overrides the 10,000,000).
set -euo pipefail

build="${1:-build}"
sluice="$build/tools/sluice"
demo="$build/demo"
rows="${DEMO_ROWS:-10000000}"
maps=2
partitions=200
codec=lz4
budget=256MiB

if [ ! -x "$sluice" ]; then
  echo "demo: $sluice not found; build first (make build)" >&2
  exit 1
fi
mkdir -p "$demo/input"
rm -rf "$demo/shuffle" "$demo/report"
mkdir -p "$demo/shuffle" "$demo/report"

now() { date +%s.%N; }
elapsed() { awk -v start="$1" -v end="$(now)" 'BEGIN { printf "%.1f", end - start }'; }
step() { printf '\n== %s\n' "$*"; }
# Prints one line about a write's or an inspection's JSON summary.
describe() {
  python3 - "$1" "$2" <<'PY'
import json, sys
kind, summary = sys.argv[1], json.load(open(sys.argv[2]))
if kind == "write":
    print(f"{summary['rows']:,} rows -> {summary['data_path']}: "
          f"{summary['output_bytes'] / 2**20:,.0f} MiB ({summary['compression_ratio']:.2f}x), "
          f"{summary['spills']} spills")
else:
    state = "verified" if summary["verified"] else "PROBLEMS: " + "; ".join(summary["problems"])
    print(f"{summary['partitions']} partitions, {summary['blocks']:,} blocks, "
          f"{summary['rows']:,} rows: {state}")
PY
}

demo_start=$(now)
echo "Sluice demo: $rows lineitem rows from $maps map tasks into $partitions partitions" \
     "(hash on l_orderkey, $codec, $budget memory budget), in $demo"

rows_per_map=$((rows / maps))
for ((map = 0; map < maps; map++)); do
  input="$demo/input/lineitem_map$map.arrow"
  stamp="$input.rows"
  # The last map takes the remainder, so the maps add up to exactly $rows.
  map_rows=$rows_per_map
  [ "$map" -eq $((maps - 1)) ] && map_rows=$((rows - rows_per_map * (maps - 1)))
  if [ -f "$input" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$map_rows seed $((map + 1))" ]; then
    step "generate map $map input: kept from an earlier run ($map_rows rows, seed $((map + 1)))"
    echo "0.0" > "$demo/report/generate_$map.seconds"
    continue
  fi
  step "generate map $map input: $map_rows rows, seed $((map + 1))"
  start=$(now)
  rm -f "$stamp"
  "$sluice" generate lineitem --rows "$map_rows" --seed $((map + 1)) --output "$input"
  echo "$map_rows seed $((map + 1))" > "$stamp"
  elapsed "$start" > "$demo/report/generate_$map.seconds"
done

for ((map = 0; map < maps; map++)); do
  step "write map $map: sluice write ... --partitions $partitions --codec $codec --memory-budget $budget"
  start=$(now)
  "$sluice" write "$demo/input/lineitem_map$map.arrow" --output-dir "$demo/shuffle" \
    --map-id "$map" --partitions "$partitions" --keys l_orderkey --codec "$codec" \
    --memory-budget "$budget" --json > "$demo/report/write_$map.json"
  elapsed "$start" > "$demo/report/write_$map.seconds"
  describe write "$demo/report/write_$map.json"
done

for ((map = 0; map < maps; map++)); do
  step "inspect --verify map $map"
  start=$(now)
  "$sluice" inspect "$demo/shuffle/shuffle_0_${map}_0.data" --verify --json \
    > "$demo/report/inspect_$map.json"
  elapsed "$start" > "$demo/report/inspect_$map.seconds"
  describe inspect "$demo/report/inspect_$map.json"
done

step "read partitions 0-$((partitions - 1)) from every map output"
start=$(now)
"$sluice" read "$demo/shuffle" --partition "0-$((partitions - 1))" --json \
  > "$demo/report/read.json"
elapsed "$start" > "$demo/report/read.seconds"
"$sluice" read "$demo/shuffle" --partition 7 --output "$demo/report/partition7.arrow"
"$sluice" read "$demo/shuffle" --partition 7 --head 3

python3 - "$demo" "$rows" "$maps" "$partitions" "$(elapsed "$demo_start")" <<'PY'
import json
import pathlib
import sys

demo, rows, maps, partitions, total_seconds = (pathlib.Path(sys.argv[1]), int(sys.argv[2]),
                                               int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
report = demo / "report"
seconds = lambda name: float((report / f"{name}.seconds").read_text())
writes = [json.loads((report / f"write_{m}.json").read_text()) for m in range(maps)]
inspects = [json.loads((report / f"inspect_{m}.json").read_text()) for m in range(maps)]
read = json.loads((report / "read.json").read_text())
MiB = 2 ** 20

table = [("step", "rows", "in", "out", "spills", "seconds")]
for m in range(maps):
    generated = seconds(f"generate_{m}")
    table.append((f"generate map {m} input", f"{writes[m]['rows']:,}", "",
                  f"{writes[m]['input_bytes'] / MiB:,.0f} MiB",
                  "", "kept" if generated == 0 else f"{generated:.1f}"))
for m, write in enumerate(writes):
    table.append((f"write map {m} ({write['codec']}, {write['partitions']} partitions)",
                  f"{write['rows']:,}", f"{write['input_bytes'] / MiB:,.0f} MiB",
                  f"{write['output_bytes'] / MiB:,.0f} MiB ({write['compression_ratio']:.2f}x)",
                  str(write["spills"]), f"{seconds(f'write_{m}'):.1f}"))
for m, inspect in enumerate(inspects):
    table.append((f"inspect --verify map {m}", f"{inspect['rows']:,}",
                  f"{inspect['bytes'] / MiB:,.0f} MiB", f"{inspect['blocks']:,} blocks", "",
                  f"{seconds(f'inspect_{m}'):.1f}"))
table.append((f"read partitions 0-{partitions - 1}, {len(read['map_ids'])} map outputs",
              f"{read['rows']:,}", f"{read['bytes'] / MiB:,.0f} MiB",
              f"{read['metrics']['batches']:,} batches", "", f"{seconds('read'):.1f}"))
widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
print("\nSummary")
for index, row in enumerate(table):
    print("  " + "  ".join(cell.ljust(widths[c]) if c == 0 else cell.rjust(widths[c])
                           for c, cell in enumerate(row)).rstrip())
    if index == 0:
        print("  " + "  ".join("-" * width for width in widths))

checks = []
checks.append((read["rows"] == rows, f"rows read ({read['rows']:,}) = rows generated ({rows:,})"))
expected = [sum(w["partition_rows"][p] for w in writes) for p in range(partitions)]
actual = [entry["rows"] for entry in read["partitions"]]
matching = sum(1 for e, a in zip(expected, actual) if e == a)
checks.append((matching == partitions and len(actual) == partitions,
               f"{matching} of {partitions} partitions: rows read = rows the {maps} writes put "
               "there"))
checks.append((sum(w["rows"] for w in writes) == rows,
               f"rows written ({sum(w['rows'] for w in writes):,}) = rows generated"))
verified = all(i["verified"] for i in inspects)
checksum_count = sum(len(i["partition_list"]) for i in inspects)
checks.append((verified, f"inspect --verify: every block of {maps} map outputs decodes and "
               f"{checksum_count} {inspects[0]['checksum_algorithm']} checksums match"
               + ("" if verified else ": " + "; ".join(p for i in inspects for p in i["problems"]))))
checks.append((read["checksums_verified"],
               "read verified each partition's checksum against the .checksum files"))
try:
    import pyarrow as pa
    table7 = pa.ipc.open_stream(pa.OSFile(str(report / "partition7.arrow"))).read_all()
    checks.append((table7.num_rows == actual[7],
                   f"pyarrow opens partition 7 from `sluice read --output`: "
                   f"{table7.num_rows:,} rows, {table7.num_columns} columns"))
except ImportError:
    checks.append((True, "pyarrow not installed: partition 7 not opened with pyarrow"))

print("\nChecks")
for ok, text in checks:
    print(f"  [{'ok' if ok else 'FAILED'}] {text}")
print(f"\nDemo finished in {total_seconds} s; data in {demo}")
sys.exit(0 if all(ok for ok, _ in checks) else 1)
PY
