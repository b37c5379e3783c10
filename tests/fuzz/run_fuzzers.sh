#!/usr/bin/env bash
# Runs every libFuzzer target in a build for a bounded time, starting from its committed seed
# corpus (copied, so the committed corpus does not grow). Fails if any target finds a crash.
# Targets run side by side, one per core (FUZZ_JOBS to change), each for FUZZ_SECONDS; FUZZ_TARGETS
# (names, space-separated) picks some. A target's extra libFuzzer flags are in
# tests/fuzz/<name>.options (one per line), such as a larger -max_len. Prints, per target, the
# executions, their rate, and the coverage reached (libFuzzer's cov: edges and ft: features).
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
if [ -n "${FUZZ_TARGETS:-}" ]; then
  targets=()
  for name in $FUZZ_TARGETS; do targets+=("$build_dir/tests/$name"); done
fi
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
  local status=0 options=()
  if [ -f "$here/$name.options" ]; then mapfile -t options <"$here/$name.options"; fi
  (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$target" -max_total_time="$seconds" \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
     "${options[@]}" "$corpus" 2>"$work/$name.log") || status=$?
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
  executions=$(grep -oE "stat::number_of_executed_units: [0-9]+" "$work/$name.log" | awk '{print $2}')
  done_line=$(grep -E "DONE|#[0-9]+.*cov:" "$work/$name.log" | tail -1)
  coverage=$(echo "$done_line" | grep -oE "cov: [0-9]+ ft: [0-9]+" || true)
  rate=$(echo "$done_line" | grep -oE "exec/s: [0-9]+" || true)
  corpus_size=$(echo "$done_line" | grep -oE "corp: [0-9]+/[0-9A-Za-z]+" || true)
  printf "  %-22s %12s executions  %-14s %-20s %s\n" "$name" "$executions" "$rate" "$coverage" \
    "$corpus_size"
done
exit "$failed"
