# The two commands a user needs are `make demo` and `make test`; both install what is missing first.
BUILD_DIR ?= build
FUZZ_DIR ?= build-fuzz
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
CMAKE_FLAGS ?=
SOURCES = $(shell git ls-files '*.h' '*.cc')

.PHONY: all deps configure build fuzz-build k8s api-fields feature-gates test sanitize tsan demo lint format bench bench-abi bench-cel bench-decode bench-quick bench-volumes bench-dra bench-gangs difftest e2e chaos chaos-short image clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DKSCHED_FUZZ_DIR=$(abspath $(FUZZ_DIR)) $(CMAKE_FLAGS) >/dev/null

build: configure
	@ninja -C $(BUILD_DIR)

# The clang build: the fuzzers, and every library with clang's -Wthread-safety as an error.
fuzz-build: deps
	@cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DKSCHED_FUZZ=ON >/dev/null
	@ninja -C $(FUZZ_DIR) fuzzers libraries

# The real control plane of the integration tests, and upstream's e2e tests (e2e.test), built from
# scripts/k8s/go.mod into ~/.cache/ksched (KSCHED_CACHE), helm (scripts/helm/go.mod), which
# the chart's test renders deploy/helm/ksched with, and scheduler-plugins' kube-scheduler, which
# the Coscheduling side-by-side test runs (a module outside our pins: its failure only warns); it
# does nothing once built.
k8s:
	@scripts/k8s/build.sh >/dev/null
	@scripts/k8s/build-e2e.sh >/dev/null
	@scripts/helm/build.sh >/dev/null
	@scripts/scheduler-plugins/build.sh >/dev/null || \
	  echo "make k8s: scheduler-plugins' kube-scheduler did not build; the Coscheduling side-by-side test will say it skipped" >&2

# src/api/api_fields.json, the fields of each API type ksched reads, for strict field validation:
# written from the pinned release's OpenAPI documents (in the Go module cache after `make k8s`).
api-fields: build k8s
	@pin=$$(grep -Eo 'k8s.io/kubernetes v[0-9.]+' scripts/k8s/go.mod | cut -d' ' -f2); \
	  $(BUILD_DIR)/src/api/gen_api_fields $$pin \
	    "$$(cd scripts/k8s && go env GOMODCACHE)/k8s.io/kubernetes@$$pin/api/openapi-spec/v3" \
	    > src/api/api_fields.json

# src/features/feature_gates.json, the gates the pinned kube-scheduler registers, with their
# versioned specs and dependencies: printed by upstream's own gate (scripts/k8s/featuregates).
feature-gates:
	@cd scripts/k8s && GOTOOLCHAIN=local GOFLAGS=-mod=readonly go run ./featuregates > ../../src/features/feature_gates.json

# The chaos label is left out until its soak has more clean runs since the last fix
# (docs/reliability.md, "The chaos soak"); `make chaos-short` runs it.
test: build fuzz-build k8s
	@cd $(BUILD_DIR) && ctest --output-on-failure -j2 -LE chaos

chaos-short: build k8s
	@cd $(BUILD_DIR) && ctest --output-on-failure -L chaos

sanitize: deps
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DKSCHED_SANITIZE=ON >/dev/null
	@ninja -C $(ASAN_DIR)
	@cd $(ASAN_DIR) && ctest --output-on-failure -j2 -L unit

# The unit and integration tests under ThreadSanitizer, with Abseil and oneTBB built with it too
# (scripts/build-tsan-deps.sh, once, into ~/.cache/ksched/tsan); test/tsan.supp says what is
# suppressed and why.
tsan: deps k8s
	@prefix=$$(scripts/build-tsan-deps.sh) && cmake -S . -B $(TSAN_DIR) -G Ninja -DKSCHED_TSAN=ON \
	  -DCMAKE_PREFIX_PATH="$$prefix" >/dev/null
	@ninja -C $(TSAN_DIR)
	@cd $(TSAN_DIR) && TSAN_OPTIONS="second_deadlock_stack=1 suppressions=$(CURDIR)/test/tsan.supp" \
	  ctest --output-on-failure -j2 -L 'unit|integration'

# The chaos soak (test/chaos): replicas, load and seeded faults on the real control plane, checked
# by an invariant checker; the report goes to $(BUILD_DIR)/chaos/report.json.
DURATION ?= 10m
SEED ?= 1
chaos: build k8s
	@$(BUILD_DIR)/test/chaos/chaos --duration $(DURATION) --seed $(SEED) --out $(BUILD_DIR)/chaos

# Builds the ksched binary and what the README's examples load beside it (the plugin libraries,
# DRA's CEL library), then runs it on the example cluster.
demo: configure
	@ninja -C $(BUILD_DIR) readme_examples
	@$(BUILD_DIR)/ksched simulate examples/demo/nodes.yaml examples/demo/pods.yaml

lint: build
	@clang-format --dry-run --Werror $(SOURCES)
	@run-clang-tidy -quiet -p $(BUILD_DIR) $(filter %.cc,$(SOURCES)) >$(BUILD_DIR)/clang-tidy.log 2>&1 \
	  || { grep -E 'warning:|error:' $(BUILD_DIR)/clang-tidy.log; exit 1; }
	@echo "lint: clang-format and clang-tidy are clean"

format:
	@clang-format -i $(SOURCES)

# The in-process bench, then ksched, kube-scheduler and the bind ceiling side by side on
# scheduler_perf's workloads, each on a fresh API server; the report (a table, the figures, the
# plots) goes to BENCH_OUT. `make bench BENCH_OUT=bench/results` refreshes the committed one.
BENCH_OUT ?= $(BUILD_DIR)/bench-results
bench: build k8s
	@mkdir -p $(BENCH_OUT)
	@$(BUILD_DIR)/bench/scheduling_bench --benchmark_counters_tabular=true \
	  --benchmark_out=$(BENCH_OUT)/in_process.json --benchmark_out_format=json
	@$(BUILD_DIR)/bench/side_by_side --set default --out $(BENCH_OUT) --in-process $(BENCH_OUT)/in_process.json
	@$(MAKE) --no-print-directory bench-decode

# What each way a plugin library could see a Filter call costs per call (bench/abi/abi.h).
bench-abi: build
	@$(BUILD_DIR)/bench/abi/abi_bench

# DRA's CEL bridge: loading upstream's Go CEL into the process, a compile, and an evaluation of
# 0 to 1000 devices in one call (needs Go, which builds libksched_cel.so).
bench-cel: build
	@KSCHED_CEL_LIBRARY=$(BUILD_DIR)/libksched_cel.so $(BUILD_DIR)/bench/cel_bench

# Protobuf, as kube-scheduler's client speaks it, against ksched's JSON decoding of the same pods.
bench-decode: build k8s
	@mkdir -p $(BENCH_OUT)
	@ninja -C $(BUILD_DIR) decode_bench >/dev/null
	@$(BUILD_DIR)/bench/decode_bench --out $(BENCH_OUT)/decode.md

# The same on a small set, in a few minutes.
bench-quick: build k8s
	@mkdir -p $(BENCH_OUT)
	@$(BUILD_DIR)/bench/scheduling_bench --benchmark_counters_tabular=true \
	  --benchmark_filter='BM_SchedulePods/500/' \
	  --benchmark_out=$(BENCH_OUT)/in_process.json --benchmark_out_format=json
	@$(BUILD_DIR)/bench/side_by_side --set quick --out $(BENCH_OUT) --in-process $(BENCH_OUT)/in_process.json

# scheduler_perf's volume workloads (PVs in-tree, migrated and CSI) and WaitForFirstConsumer claims
# bound by the PV controller, side by side.
bench-volumes: build k8s
	@mkdir -p $(BENCH_OUT)
	@$(BUILD_DIR)/bench/side_by_side --set volumes --out $(BENCH_OUT)

# scheduler_perf's DRA workloads (claims from a template, made by the resourceclaim controller;
# devices of a driver's ResourceSlices): SchedulingWithResourceClaimTemplate, the three sizes of
# SteadyStateClusterResourceClaimTemplate, Partitionable and ConsumableCapacity, and
# ExtendedResource's two namings, side by side.
bench-dra: build k8s
	@mkdir -p $(BENCH_OUT)
	@$(BUILD_DIR)/bench/side_by_side --set dra --out $(BENCH_OUT)

# scheduler_perf's gang and workload workloads (GangScheduling, BasicScheduling,
# GangPreemptionBasic) and LargeGangs (100 gangs of 8 to 64 pods on 5000 nodes), side by side
# with GenericWorkload on.
bench-gangs: build k8s
	@mkdir -p $(BENCH_OUT)
	@$(BUILD_DIR)/bench/side_by_side --set gangs --out $(BENCH_OUT)

# ksched against the upstream kube-scheduler on every scenario file and SEEDS random cases
# (docs/fidelity.md); the report goes to build/difftest/report.json. GATES (--feature-gates) and
# EMULATED (--emulated-version) are given to both schedulers.
SEEDS ?= 100
FIRST_SEED ?= 1
difftest: build k8s
	@$(BUILD_DIR)/test/difftest/difftest --seeds $(SEEDS) --first-seed $(FIRST_SEED) --out $(BUILD_DIR)/difftest \
	  $(if $(GATES),--feature-gates=$(GATES)) $(if $(EMULATED),--emulated-version=$(EMULATED))

# Upstream's [sig-scheduling] e2e tests of the pinned release against SCHEDULER (ksched, or
# kube-scheduler for comparison) as the rig's only scheduler (docs/fidelity.md); FOCUS picks a
# subset, GATES (A=true,...) turns gates on for the whole rig and runs their tests. The reports go
# to build/e2e/SCHEDULER/, and build/e2e/comparison.md once both ran.
FOCUS ?= \[sig-scheduling\]
SCHEDULER ?= ksched
e2e: build k8s
	@$(BUILD_DIR)/test/e2e/e2e --scheduler '$(SCHEDULER)' --focus '$(FOCUS)' --out $(BUILD_DIR)/e2e \
	  $(if $(GATES),--feature-gates '$(GATES)')

# The container image ksched:latest (Containerfile): the built binary and the Debian libraries it
# loads, gathered by scripts/image.sh; built with podman or docker, whichever is installed.
IMAGE ?= ksched:latest
image: build
	@scripts/image.sh $(BUILD_DIR) $(IMAGE)

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) $(ASAN_DIR) $(TSAN_DIR)
