#!/usr/bin/env bash
# make spark-demo: a shuffle-heavy Spark job on a local cluster with Sluice as the shuffle, then
# the shuffle metrics Spark's UI shows for it (from its REST API). $1 is the plugin jar.
set -euo pipefail
jar="${1:?usage: spark-demo.sh path/to/sluice-spark.jar}"
exec python3 "$(dirname "$0")/spark-demo.py" "$jar"
