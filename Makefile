# The two commands of the README: `make run` (the demo) and `make test` (the whole suite).
SWIFT ?= swift
DEMO_LOG ?= Fixtures/drive-multignss-1hz.nmea

.PHONY: run test deps build release clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## The demo: a 15-minute share over a 20-minute drive, replayed 60x, events as JSON lines on stdout.
run: release
	.build/release/liveloc share --duration 15m --replay $(DEMO_LOG) --speed 60

## The whole test suite (unit, real gpsd through gpsfake, HTTP on loopback, daemon end to end).
## One test at a time: many tests run real gpsd, HTTP and daemon processes whose timing a 2-core
## machine running them all at once cannot keep (about 3.5 minutes this way).
test: release build
	$(SWIFT) test --no-parallel

clean:
	rm -rf .build

## Fuzzing for CI: every libFuzzer harness (scripts/fuzz list) for FUZZ_SECONDS each, then the
## regression tests of every crash found so far.
FUZZ_SECONDS ?= 60
.PHONY: fuzz-ci sanitizers
fuzz-ci:
	scripts/fuzz all $(FUZZ_SECONDS)
	$(SWIFT) test --filter FuzzRegressionTests

## The test suite under AddressSanitizer (leaks too) and ThreadSanitizer, suppressions in scripts/sanitizers.d.
sanitizers:
	scripts/sanitizers all
