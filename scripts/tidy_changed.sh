#!/usr/bin/env bash
# Runs clang-tidy (the checks of .clang-tidy, warnings as errors) on the C++ files a change
# touches: those changed since the last commit's parent, committed or not, and new ones. A changed
# header is checked through its own .cc (include/sluice/x/y.h through src/x/y.cc); the project's
# headers a file includes are checked with it. Files outside the compilation database (the tests,
# built as unity sources) are skipped. `scripts/tidy_changed.sh --all` checks every file.
#
#   scripts/tidy_changed.sh [--all] BUILD_DIR   (BUILD_DIR: a configured clang build)
set -euo pipefail

all=false
if [ "${1:-}" = "--all" ]; then
  all=true
  shift
fi
build_dir=${1:?usage: tidy_changed.sh [--all] BUILD_DIR}
cd "$(git rev-parse --show-toplevel)"

if $all; then
  mapfile -t changed < <(git ls-files -- '*.cc')
else
  base=HEAD~1
  git rev-parse -q --verify "$base^{commit}" >/dev/null || base=$(git hash-object -t tree /dev/null)
  mapfile -t changed < <({ git diff --name-only "$base" -- '*.cc' '*.h'
                           git ls-files --others --exclude-standard -- '*.cc' '*.h'; } | sort -u)
fi

candidates=()
for file in "${changed[@]}"; do
  case "$file" in
    *.cc) candidates+=("$file") ;;
    include/sluice/*.h) source="src/${file#include/sluice/}"; candidates+=("${source%.h}.cc") ;;
    *.h) candidates+=("${file%.h}.cc") ;;
  esac
done

# Keep the files the compilation database compiles.
mapfile -t files < <(python3 - "$build_dir/compile_commands.json" "${candidates[@]}" <<'PY'
import json, os, sys
compiled = {os.path.realpath(entry["file"]) for entry in json.load(open(sys.argv[1]))}
for path in dict.fromkeys(sys.argv[2:]):
    if os.path.exists(path) and os.path.realpath(path) in compiled:
        print(path)
PY
)

if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no changed C++ file to check"
  exit 0
fi
echo "tidy: ${#files[@]} file(s)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 4 clang-tidy -p "$build_dir" --quiet \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1 || status=$?
grep -v -E '^[0-9]+ warnings?( and [0-9]+ errors?)? generated\.$' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "tidy: clang-tidy found problems (above)"
  exit 1
fi
echo "tidy: clean"
