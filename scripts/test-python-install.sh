#!/usr/bin/env bash
# The Python package as a new user installs it: a fresh virtual environment, `pip install` of
# this checkout (scikit-build-core builds libsluice with CMake into the wheel), then the
# package's tests against the installed package, from a directory outside the checkout.
# pip's cache keeps pyarrow and the build backend between runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --upgrade pip >/dev/null
CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$work/venv/bin/pip" install -q "$root"
"$work/venv/bin/pip" install -q pytest polars duckdb
mkdir "$work/elsewhere"
cp -r "$root/tests/python" "$work/elsewhere/tests"
cd "$work/elsewhere"
"$work/venv/bin/python" -c "import sluice, sys; print('installed:', sluice.__file__)"
SLUICE_TEST_INSTALLED=1 SLUICE_README="$root/README.md" "$work/venv/bin/python" -m pytest -q tests
