# ringfuse: `make demo` and `make test` work on a fresh Debian bookworm machine.
SHELL := /bin/bash
PYTHON := .venv/bin/python
BUILD := build
MLIR_DIR ?= /usr/lib/llvm-22/lib/cmake/mlir

.PHONY: all setup build build-compiler build-runtime demo test wheel clean

all: build

setup:
	@scripts/setup.sh

# The compiler (static binaries, needs MLIR) and the runtime (the Python
# extension and its C++ tests, never MLIR) are separate CMake projects.
$(BUILD)/compiler/build.ninja: CMakeLists.txt | setup
	cmake -G Ninja -S . -B $(BUILD)/compiler -DCMAKE_BUILD_TYPE=Release -DMLIR_DIR=$(MLIR_DIR)

$(BUILD)/runtime/build.ninja: runtime/CMakeLists.txt | setup
	cmake -G Ninja -S runtime -B $(BUILD)/runtime -DCMAKE_BUILD_TYPE=Release \
	  -DPython_EXECUTABLE=$(CURDIR)/$(PYTHON)

build-compiler: setup $(BUILD)/compiler/build.ninja
	cmake --build $(BUILD)/compiler

build-runtime: setup $(BUILD)/runtime/build.ninja
	cmake --build $(BUILD)/runtime

build: build-compiler build-runtime

demo: build
	$(PYTHON) examples/quickstart.py

test: build
	@scripts/run-tests.sh

# A wheel of the package, the compiler binaries and a CPU runtime (dist/).
wheel: build
	@scripts/build_wheel.sh

clean:
	rm -rf $(BUILD)
