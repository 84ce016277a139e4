# trnsim — the two commands a user needs: `make run` and `make test`.
# Everything else here is for developers (see README.md, "Developing").

BUILD_DIR     ?= build
ASAN_DIR      ?= build-asan
BUILD_TYPE    ?= RelWithDebInfo
JOBS          ?= $(shell nproc)
CMAKE_FLAGS   ?=
FUZZ_DIR      ?= build-fuzz
FUZZ_SECONDS  ?= 60
FUZZ_MAX_LEN  ?= 65536
FUZZ_TIMEOUT  ?= 30
# The libFuzzer targets of `make fuzz`: tests/fuzz/<t>_fuzzer.cc, seeds tests/fuzz/corpus/<t>/.
FUZZ_TARGETS  ?= neff_reader isa_decoder neurond_service neurond_cluster

.PHONY: all deps configure build run test sanitize fuzz fuzz-long bench fidelity install deb deb-check format clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) > /dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: AWS's "first app" (tools/first_app/first_app.c, plain C11 built against the
# installed headers and library, as on /opt/aws/neuron) runs the attention and MLP sample NEFFs
# on an emulated trn2, checks every output against the reference math and, with
# TRNSIM_EXEC_REPORT=1, logs the simulated time and per-engine utilisation of each execution.
# Then an NKI kernel (tools/first_app/first_nki_kernel.py, written for AWS's Neuron Kernel
# Interface) is traced, run and checked the same way, printing its simulated latency and MFU.
# It builds only what it runs: libnrt (target nrt), the sample NEFFs and the NKI front end's
# module (_trnsim_nki), and installs only the install components `libnrt`, `samples` and
# `python` (packaging/CMakeLists.txt) — no tools, tests or benchmarks.
RUN_PREFIX  := $(abspath $(BUILD_DIR))/run-install
RUN_NEFFS   := $(RUN_PREFIX)/share/trnsim/neff
RUN_TARGETS := nrt trnsim_sample_neffs _trnsim_nki
run: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(RUN_TARGETS)
	@cmake --install $(BUILD_DIR) --prefix $(RUN_PREFIX) --component libnrt > /dev/null
	@cmake --install $(BUILD_DIR) --prefix $(RUN_PREFIX) --component samples > /dev/null
	@cmake --install $(BUILD_DIR) --prefix $(RUN_PREFIX) --component python > /dev/null
	@$(CC) -std=c11 -O2 -Wall -Wextra tools/first_app/first_app.c -I $(RUN_PREFIX)/include \
	  -L $(RUN_PREFIX)/lib -lnrt -lm -o $(BUILD_DIR)/first_app
	@NEURON_LOGICAL_NC_CONFIG=1 TRNSIM_EXEC_REPORT=1 LD_LIBRARY_PATH=$(RUN_PREFIX)/lib \
	  $(BUILD_DIR)/first_app $(RUN_NEFFS)/attention_bf16.neff $(RUN_NEFFS)/mlp_gelu_bf16.neff
	@PYTHONPATH=$(RUN_PREFIX)/lib/python3/dist-packages \
	  $$(sed -n 's/^TRNSIM_PYTHON:FILEPATH=//p' $(BUILD_DIR)/CMakeCache.txt) \
	  tools/first_app/first_nki_kernel.py

# The whole suite through CTest (unit, conformance and e2e labels).
test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# The same suite built with AddressSanitizer + UndefinedBehaviorSanitizer (the chip model at -O1,
# the rest at -O0, all -g1, asserts on; no benchmarks), except the tests labelled "slow" (the
# 137-GFLOP matmul sample and the fidelity suite: minutes under ASan; `make test` runs them).
# It includes the fuzz targets' seed corpora replayed (fuzz.replay.*, tests/fuzz/README.md).
sanitize: deps
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRNSIM_SANITIZE=ON \
	  -DTRNSIM_BUILD_BENCH=OFF $(CMAKE_FLAGS) > /dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	@ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS) -LE slow

# libFuzzer (clang, ASan + UBSan, build-fuzz/) on the NEFF reader, the instruction-stream
# decoder and neurond's request handlers, FUZZ_SECONDS each, each on a copy of its committed
# seed corpus; any crash, leak, hang or broken invariant fails the target and leaves the input
# in build-fuzz/artifacts/<target>-*. Only the fuzzers and the libraries they link are built.
# Not part of CI (a third build of the libraries); `make test` and `make sanitize` replay the
# seed corpora. See tests/fuzz/README.md.
fuzz: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTRNSIM_FUZZ=ON -DTRNSIM_BUILD_TESTS=OFF -DTRNSIM_BUILD_BENCH=OFF $(CMAKE_FLAGS) > /dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(addsuffix _fuzzer,$(FUZZ_TARGETS))
	@rm -rf $(FUZZ_DIR)/corpus && mkdir -p $(FUZZ_DIR)/artifacts
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t && cp tests/fuzz/corpus/$$t/* $(FUZZ_DIR)/corpus/$$t/; \
	  dict=; if [ -f tests/fuzz/$$t.dict ]; then dict=-dict=tests/fuzz/$$t.dict; fi; \
	  flags=; if [ -f tests/fuzz/$$t.flags ]; then flags=$$(grep -v '^#' tests/fuzz/$$t.flags); fi; \
	  echo "== $${t}_fuzzer, $(FUZZ_SECONDS) s"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  $(FUZZ_DIR)/tests/fuzz/$${t}_fuzzer $(FUZZ_DIR)/corpus/$$t $$dict $$flags \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_DIR)/artifacts/$$t- -print_final_stats=1; \
	done

# The same for ten minutes a target (FUZZ_SECONDS=... still overrides).
fuzz-long: FUZZ_SECONDS = 600
fuzz-long: fuzz

# Google Benchmark suites (not part of `make test`); see bench/README.md.
bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do echo "== $$b"; $$b; done

# The fidelity suite: the chip model against the measured Trainium2 calibration set
# (bench/fidelity/README.md, docs/calibration.md §4). `make test` runs it too (fidelity.trn2).
fidelity: build
	@$$(sed -n 's/^TRNSIM_PYTHON:FILEPATH=//p' $(BUILD_DIR)/CMakeCache.txt) \
	  bench/fidelity/run.py --build-dir $(BUILD_DIR) --chip trn2 --check

# Install like /opt/aws/neuron: PREFIX/lib/libnrt.so{,.1}, PREFIX/include/nrt/..., PREFIX/bin
# (programs find PREFIX/lib through their RUNPATH $ORIGIN/../lib), PREFIX/share.
PREFIX ?= $(CURDIR)/install
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The Debian package $(BUILD_DIR)/trnsim_<version>_amd64.deb: everything `make install` lays
# out, under /opt/trnsim, plus the ld.so.conf.d entry, the neurond systemd units and the
# maintainer scripts (docs/install.md).
deb: build
	@cd $(BUILD_DIR) && cpack -G DEB

# The package installed with apt-get into a fresh Debian 12 root (debootstrap; root and the
# Debian mirror needed, so not part of `make test`). See docs/install.md.
deb-check: deb
	@./scripts/check-deb-fresh-debian.sh $(BUILD_DIR)/trnsim_*_amd64.deb

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	@rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR)
