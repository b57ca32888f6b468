# datebook — see README.md. `make demo` and `make test` each do all set-up first.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)
# SwiftPM leaves a few empty TemporaryDirectory.* folders in $TMPDIR on every build: keep them in
# .build/tmp (removed with .build), not in the machine's /tmp. The test tiers set their own TMPDIR.
export TMPDIR := $(CURDIR)/.build/tmp
$(shell mkdir -p .build/tmp)

.PHONY: setup build demo test smoke bench bench-import bench-serve bench-postgresql bench-replicas bench-peers clean-bench symbol-order fuzz install uninstall

# The Swift runtime and Foundation linked into the binary: it starts in about two thirds of the
# time (no Swift libraries to load and bind) and runs where no Swift toolchain is installed.
RELEASE := -c release --static-swift-stdlib

setup:
	@bash scripts/setup.sh

# datebook-notify-wait (C) goes next to datebook: it waits for the click on a desktop
# notification's buttons (docs/desktop.md). Install both into the same directory.
build: setup
	$(SWIFT) build $(RELEASE) --product datebook
	$(SWIFT) build $(RELEASE) --product datebook-notify-wait

## Release build, then the binary, man pages, completions and systemd user units under
## $(DESTDIR)$(PREFIX); a prefix that cannot be written gets nothing. scripts/install.sh list shows the files.
PREFIX ?= /usr/local
DESTDIR ?=
install: build
	@BIN=.build/release/datebook PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" bash scripts/install.sh install

## Removes exactly the files install writes.
uninstall:
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" bash scripts/install.sh uninstall

## Set up, build, load the sample planner into the default store and show the agenda.
demo: build
	.build/release/datebook demo

## Set up and run every test, the fast tier then the stress tier (docs/testing.md); fails when a test
## fails, when none ran, or when the run leaves files or processes behind. Then the release binary's smoke test.
## TIER=fast or TIER=stress runs one tier (and no smoke test).
TIER ?= all
test:
	@bash scripts/setup.sh --test
	bash scripts/test.sh $(TIER)
	@if [ "$(TIER)" = all ]; then $(MAKE) --no-print-directory smoke; fi

## Release build, then its main commands in a scratch HOME.
smoke: build
	bash scripts/smoke.sh

## Release build, then the benchmarks in bench/ (writes bench/results.md).
bench: build
	@bash scripts/setup.sh --bench
	$(SWIFT) build $(RELEASE) --product datebook-bench
	/usr/bin/python3 bench/bench.py
	/usr/bin/python3 bench/import.py
	python3 -m pip install --quiet apprise || echo "bench: apprise not installed; its rows are skipped"
	python3 bench/delivery.py
	/usr/bin/python3 bench/scheduler.py
	/usr/bin/python3 bench/hostile.py
	/usr/bin/python3 bench/desktop.py
	/usr/bin/python3 bench/serve.py
	/usr/bin/python3 bench/peers.py
	@test -x .build/bench-venv/bin/python3 || /usr/bin/python3 -m venv .build/bench-venv
	.build/bench-venv/bin/python3 -m pip install --quiet --disable-pip-version-check radicale xandikos vdirsyncer
	.build/bench-venv/bin/python3 bench/caldav.py --write

## The server alone (bench/serve.py: wrk against datebook serve, nginx beside it; writes bench/results-serve.md).
bench-serve: build
	@bash scripts/setup.sh --bench
	/usr/bin/python3 bench/serve.py

## Large iCalendar imports alone (bench/import.py: peak RSS and time at BENCH_IMPORT_SIZES, default 100k, 300k,
## 1M VEVENTs; BENCH_IMPORT_BASELINE=PATH runs another build in turn; writes the Import memory section of bench/results.md).
bench-import: build
	@bash scripts/setup.sh --bench
	/usr/bin/python3 bench/import.py

## PostgreSQL alone (bench/postgresql.py: import, list, tick and store copy at 100k events on both backends; writes bench/results-postgresql.md).
bench-postgresql: build
	@bash scripts/setup.sh --bench
	/usr/bin/python3 bench/postgresql.py

## Replicas on PostgreSQL alone (bench/replicas.py: 3 `run`s deliver 10,000 alerts to nginx, an idle
## replica, an added event's latency; writes the Replicas section of bench/results-postgresql.md).
bench-replicas: build
	@bash scripts/setup.sh --bench
	/usr/bin/python3 bench/replicas.py

## datebook beside its peers (bench/peers.py: tick fan-out beside curl --parallel, the agenda beside
## calcurse, import peaks, digest beside list; writes bench/results-peers.md). BENCH_LOADS, BENCH_AGENDA_SIZES,
## BENCH_IMPORT_SIZES pick what runs.
bench-peers: build
	@bash scripts/setup.sh --bench
	/usr/bin/python3 bench/peers.py

## CalDAV sync alone (bench/caldav.py: against a local Radicale, vdirsyncer beside it; writes bench/results-caldav.md).
bench-caldav: build
	@bash scripts/setup.sh --bench
	@test -x .build/bench-venv/bin/python3 || /usr/bin/python3 -m venv .build/bench-venv
	.build/bench-venv/bin/python3 -m pip install --quiet --disable-pip-version-check radicale xandikos vdirsyncer
	.build/bench-venv/bin/python3 bench/caldav.py --write

# Re-profiles the common paths and rewrites scripts/symbol-order.txt (the release link's function
# order); commit the result.
symbol-order: setup
	bash scripts/symbol-order.sh

clean-bench:
	rm -rf bench/data bench/out

## libFuzzer targets (fuzz/), each for FUZZ_SECONDS (default 60) from fuzz/corpus/; not run by CI.
## FUZZ_TARGETS="ical when" picks some. docs/fuzzing.md.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" bash scripts/fuzz.sh
