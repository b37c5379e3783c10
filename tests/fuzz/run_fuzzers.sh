#!/usr/bin/env bash
# Runs every libFuzzer target in a build for a bounded time, starting from its committed seed
# corpus (copied, so the committed corpus does not grow). Fails if any target finds a crash.
# Targets run side by side, one per core (FUZZ_JOBS to change), each for FUZZ_SECONDS.
set -euo pipefail
build_dir=$(cd "${1:?usage: run_fuzzers.sh BUILD_DIR}" && pwd)
seconds=${FUZZ_SECONDS:-60}
jobs_max=${FUZZ_JOBS:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
artifacts="$build_dir/fuzz-artifacts"  # inputs that crashed, kept for a regression test
trap 'rm -rf "$work"' EXIT

shopt -s nullglob
targets=("$build_dir"/tests/*_fuzz)
if [ ${#targets[@]} -eq 0 ]; then
  echo "run_fuzzers: no fuzz targets in $build_dir/tests" >&2
  exit 1
fi
mkdir -p "$artifacts"

# Fuzzes one target; its exit status goes to $work/<name>.status.
fuzz_one() {
  local target=$1 name corpus
  name=$(basename "$target")
  corpus="$work/$name"
  mkdir -p "$corpus"
  if [ -d "$here/corpus/$name" ]; then cp "$here/corpus/$name"/* "$corpus"/ 2>/dev/null || true; fi
  local status=0
  (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$target" -max_total_time="$seconds" \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
     "$corpus" 2>"$work/$name.log") || status=$?
  echo "$status" >"$work/$name.status"
}

for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  echo "fuzzing $(basename "$target") for ${seconds}s"
  fuzz_one "$target" &
done
wait

failed=0
for target in "${targets[@]}"; do
  name=$(basename "$target")
  if [ "$(cat "$work/$name.status" 2>/dev/null || echo missing)" != 0 ]; then
    tail -50 "$work/$name.log" >&2 || true
    echo "run_fuzzers: $name failed; the input that failed is kept in $artifacts" >&2
    failed=1
    continue
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/$name.log" | sed "s/^/  $name: /"
done
exit "$failed"
