# Sluice: the two commands a newcomer needs are `make demo` and `make test`.
# Every target installs what it needs first (scripts/install-deps.sh, idempotent).

SHELL := /bin/bash
SHARED_DIR ?= $(abspath $(CURDIR)/../shared)
JOBS ?= $(shell nproc)
BUILD := build
ASAN_BUILD := build-asan
TSAN_BUILD := build-tsan
# The test programs whose code runs threads (read-ahead, pushed blocks, the writer's compression
# thread, buffers released on other threads): run under ThreadSanitizer too (of write_test, only
# the suites that start the compression thread: its single-threaded round trips took 30 s more).
TSAN_TESTS := base_test read_test write_test
TSAN_RUN := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
FUZZ_SECONDS ?= 60
CMAKE_COMMON := -G Ninja -DSLUICE_SHARED_DIR=$(SHARED_DIR)

.PHONY: all deps build build-asan build-tsan test test-unit test-asan test-tsan test-interop test-fuzz
.PHONY: demo bench format clean
.PHONY: test-cli fuzz test-python lint
.PHONY: spark-deps jar test-spark spark-demo spark-bench

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=RelWithDebInfo

$(ASAN_BUILD)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Debug \
	  -DSLUICE_SANITIZE=ON -DSLUICE_FUZZ=ON -DSLUICE_BUILD_BENCHMARKS=OFF

$(TSAN_BUILD)/build.ninja:
	CC=clang CXX=clang++ cmake -S . -B $(TSAN_BUILD) $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Debug \
	  -DSLUICE_SANITIZE_THREAD=ON -DSLUICE_BUILD_BENCHMARKS=OFF

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target sluice_tests sluice_shared

build-tsan: deps $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TESTS)

## test: every test: unit tests, the same under ASan+UBSan, the threaded modules' under TSan,
## interop (pyarrow, nanoarrow, polars, Arrow Java, arrow-rs), bounded fuzzing, the Spark
## plugin, the command-line tool; first the lint.
test: lint test-unit test-asan test-tsan test-interop test-python test-fuzz test-spark test-cli
	@echo "make test: all suites passed"

test-unit: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)
	@echo "The Python package's misuse and package suites on the ASan+UBSan library"
	LD_PRELOAD=$$(clang -print-file-name=libclang_rt.asan-x86_64.so) ASAN_OPTIONS=detect_leaks=0 \
	  SLUICE_LIBRARY=$(CURDIR)/$(ASAN_BUILD)/libsluice.so \
	  python3 -m pytest -q -p no:cacheprovider tests/interop/test_python_misuse.py tests/python

test-tsan: build-tsan
	@echo "ThreadSanitizer: base_test, read_test, and write_test's suites that start threads"
	$(TSAN_RUN) $(TSAN_BUILD)/tests/base_test --gtest_brief=1
	$(TSAN_RUN) $(TSAN_BUILD)/tests/read_test --gtest_brief=1
	$(TSAN_RUN) $(TSAN_BUILD)/tests/write_test --gtest_brief=1 \
	  --gtest_filter='*CompressionThreads*:CompressionWorker*'

test-interop: build
	SLUICE_LIBRARY=$(CURDIR)/$(BUILD)/libsluice.so SLUICE_CLI=$(CURDIR)/$(BUILD)/tools/sluice \
	  python3 -m pytest -q tests/interop

## test-python: the package's tests in the tree, then in a fresh virtual environment where it was
## installed with pip (scripts/test-python-install.sh).
test-python: build
	SLUICE_LIBRARY=$(CURDIR)/$(BUILD)/libsluice.so python3 -m pytest -q tests/python
	scripts/test-python-install.sh

test-fuzz: build-asan
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run_fuzzers.sh $(ASAN_BUILD)

## fuzz: every fuzz target under ASan+UBSan for FUZZ_SECONDS each (default 180 here; 60 in make
## test), two at a time; prints executions and coverage per target. FUZZ_TARGETS="a_fuzz b_fuzz"
## picks some; a long campaign: make fuzz FUZZ_SECONDS=1800.
fuzz: build-asan
	FUZZ_SECONDS=$(if $(filter command line environment,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),180) \
	  tests/fuzz/run_fuzzers.sh $(ASAN_BUILD)

## test-cli: the sluice command-line tool run as a user runs it (tests/cli, pytest).
test-cli: build
	SLUICE_CLI=$(CURDIR)/$(BUILD)/tools/sluice python3 -m pytest -q tests/cli

## Spark plugin: jar (build/sluice-spark.jar), its tests on a local cluster, and a demo.
spark-deps:
	@scripts/spark-deps.sh

jar: spark-deps build
	@cmake -S . -B $(BUILD) >/dev/null  # finds the JDK spark-deps may just have installed
	cmake --build $(BUILD) --target sluice_jni -j $(JOBS)
	@scripts/spark-jar.sh $(BUILD)

test-spark: jar
	SLUICE_SPARK_JAR=$(CURDIR)/$(BUILD)/sluice-spark.jar python3 -m pytest -q tests/spark

spark-demo: jar
	@scripts/spark-demo.sh $(CURDIR)/$(BUILD)/sluice-spark.jar

## spark-bench: Sluice against Spark's sort shuffle and Comet's native and JVM shuffles on a
## local cluster (bench/spark/spark_bench.py; about an hour on 2 cores with the defaults); the
## report lands in bench/results/spark/<date>/. SPARK_BENCH_ARGS="--rows 3000000 --rounds 1 ..."
SPARK_BENCH_ARGS ?=
spark-bench: jar
	@mvn -B -q -o -f bench/spark/pom.xml dependency:copy-dependencies \
	  -DoutputDirectory=$(CURDIR)/$(BUILD)/spark-bench >/dev/null 2>&1 || \
	  mvn -B -q -f bench/spark/pom.xml dependency:copy-dependencies \
	  -DoutputDirectory=$(CURDIR)/$(BUILD)/spark-bench
	python3 bench/spark/spark_bench.py --jar $(CURDIR)/$(BUILD)/sluice-spark.jar $(SPARK_BENCH_ARGS)

## demo: the main job on generated data.
demo: build
	@scripts/demo.sh $(BUILD)

## bench: every benchmark suite, JSON and plots under bench/results/latest.
bench: build
	$(BUILD)/tools/sluice bench --json bench/results/latest/results.json --plots bench/results/latest

format:
	clang-format -i $$(git ls-files '*.h' '*.cc')

## lint: every C++ file as .clang-format has it, and the includes follow DESIGN.md's layers.
lint: deps $(ASAN_BUILD)/build.ninja
	clang-format --dry-run --Werror $$(git ls-files '*.h' '*.cc')
	python3 scripts/check_layers.py
	cmake --build $(ASAN_BUILD) --target sluice_generated sluice_jni_header
	scripts/tidy_changed.sh $(ASAN_BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
