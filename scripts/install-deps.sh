#!/usr/bin/env bash
# Installs what Sluice needs to build and test, idempotently: Debian packages with apt-get and
# Python packages with pip. Runs as root without a prompt; with sudo otherwise. Does nothing when
# everything is already there.
set -euo pipefail

debian_packages=(
  cmake ninja-build g++ pkg-config
  liblz4-dev libzstd-dev libisal-dev libxxhash-dev zlib1g-dev
  lz4 zstd
  libflatbuffers-dev flatbuffers-compiler
  nlohmann-json3-dev libcli11-dev  # the CLI's JSON and argument parsing
  libgtest-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format clang-tidy
  python3 python3-pip python3-venv
  openjdk-17-jdk-headless maven  # the interop suite's Arrow Java reader and writer
)
python_requirements="$(dirname "$0")/../python/requirements-test.txt"

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_command=()
  [ "$(id -u)" -eq 0 ] || sudo_command=(sudo)
  echo "install-deps: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_command[@]}" apt-get update -qq
  "${sudo_command[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# pip: install only what is missing, so a warm machine makes no network call.
python3 - "$python_requirements" <<'PY' || python3 -m pip install -q -r "$python_requirements"
import sys
from importlib import metadata
from packaging.requirements import Requirement
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    requirement = Requirement(line)
    try:
        if metadata.version(requirement.name) not in requirement.specifier:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
PY
