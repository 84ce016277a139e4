# trnsim — the two commands a user needs: `make run` and `make test`.
# Everything else here is for developers (see README.md, "Developing").

BUILD_DIR     ?= build
ASAN_DIR      ?= build-asan
BUILD_TYPE    ?= RelWithDebInfo
JOBS          ?= $(shell nproc)
CMAKE_FLAGS   ?=

.PHONY: all deps configure build run test sanitize bench install format clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS) > /dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: show the emulated instance and exercise device memory through libnrt.
run: build
	@$(BUILD_DIR)/tools/demo/trnsim-demo

# The whole suite through CTest (unit, conformance and e2e labels).
test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# The same suite built with AddressSanitizer + UndefinedBehaviorSanitizer.
sanitize: deps
	@cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRNSIM_SANITIZE=ON $(CMAKE_FLAGS) > /dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	@ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS)

# Google Benchmark suites (not part of `make test`); see bench/README.md.
bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do echo "== $$b"; $$b; done

# Install like /opt/aws/neuron: PREFIX/lib/libnrt.so{,.1}, PREFIX/include/nrt/...
PREFIX ?= $(CURDIR)/install
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	@rm -rf $(BUILD_DIR) $(ASAN_DIR)
