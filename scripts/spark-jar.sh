#!/usr/bin/env bash
# Packages the Spark plugin: jvm/ (Maven) with the native library from the CMake build folder
# given as $1, into sluice-spark.jar in that folder (build/sluice-spark.jar for make jar). Maven
# runs offline when ~/.m2 already holds what it needs, and fetches from Maven Central the first
# time.
set -euo pipefail
build_dir="$(cd "${1:?usage: spark-jar.sh BUILD_DIR}" && pwd)"
root="$(cd "$(dirname "$0")/.." && pwd)"
library="$build_dir/jvm/libsluice_jni.so"
[ -f "$library" ] || { echo "spark-jar: $library is missing (build the sluice_jni target)"; exit 1; }
maven=(mvn -B -q -f "$root/jvm/pom.xml" package "-Dsluice.native.directory=$build_dir/jvm")
"${maven[@]}" -o >/dev/null 2>&1 || "${maven[@]}"
cp "$root/jvm/target/sluice-spark.jar" "$build_dir/sluice-spark.jar"
echo "spark-jar: $build_dir/sluice-spark.jar"
