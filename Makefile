# ringfuse: `make demo` and `make test` work on a fresh Debian bookworm machine.
SHELL := /bin/bash
PYTHON := .venv/bin/python
BUILD := build
MLIR_DIR ?= /usr/lib/llvm-22/lib/cmake/mlir

.PHONY: all setup build demo test test-lit test-python clean

all: build

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja: CMakeLists.txt | setup
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DMLIR_DIR=$(MLIR_DIR)

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD)

demo: build
	$(PYTHON) examples/quickstart.py

test: build
	@scripts/run-tests.sh

clean:
	rm -rf $(BUILD)
