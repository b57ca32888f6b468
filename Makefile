# datebook — see README.md. `make demo` and `make test` each do all set-up first.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: setup build demo test bench clean-bench

setup:
	@bash scripts/setup.sh

build: setup
	$(SWIFT) build -c release

## Set up, build, load the sample planner into the default store and show the agenda.
demo: build
	.build/release/datebook demo

## Set up and run every test; fails when a test fails or when none ran.
test: setup
	bash scripts/test.sh

## Release build, then the benchmarks in bench/ (writes bench/results.md).
bench: build
	@bash scripts/setup.sh --bench
	/usr/bin/python3 bench/bench.py
	python3 -m pip install --quiet apprise || echo "bench: apprise not installed; its rows are skipped"
	python3 bench/delivery.py
	/usr/bin/python3 bench/scheduler.py

clean-bench:
	rm -rf bench/data bench/out
