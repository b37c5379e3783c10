#!/usr/bin/env bash
# Installs what the Spark plugin needs, idempotently: a JDK 17 and Maven (apt-get), and pyspark
# (pip, python/requirements-spark.txt). Does nothing when everything is already there.
set -euo pipefail

missing=()
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  sudo_command=()
  [ "$(id -u)" -eq 0 ] || sudo_command=(sudo)
  echo "spark-deps: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_command[@]}" apt-get update -qq
  "${sudo_command[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

requirements="$(dirname "$0")/../python/requirements-spark.txt"
python3 - "$requirements" <<'PY' || python3 -m pip install -q -r "$requirements"
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
