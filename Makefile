# The two commands of the README: `make run` (the demo) and `make test` (the whole suite).
SWIFT ?= swift
DEMO_LOG ?= Fixtures/drive-multignss-1hz.nmea

.PHONY: run test unit deps build release clean build-commit deb deb-check

deps:
	@scripts/install-deps

## The commit --version names (.build/build-commit; the version itself is debian/changelog's).
build-commit:
	@scripts/build-commit

## The debug build with the tests; an `import` of a module the target does not declare fails it
## (Package.swift's dependencies are the graph the code has; docs/architecture.md draws it).
build: deps build-commit
	$(SWIFT) build --build-tests --explicit-target-dependency-import-check error

## The release build, in .build/release (`make deb` builds in one of its own, .build/package, so that
## neither recompiles what the other built: debian/rules says why).
release: deps build-commit
	$(SWIFT) build -c release

## The demo: a 15-minute share over a 22-minute drive, replayed 60x, events as JSON lines on stdout.
run: release
	.build/release/liveloc share --duration 15m --replay $(DEMO_LOG) --speed 60

## The whole test suite (unit, real gpsd through gpsfake, HTTP on loopback, daemon end to end).
## First the unit targets, in parallel: no process, server or timing of their own (DaemonTests is
## the daemon's parts; livelocd as a process is DaemonProcessTests). Then the rest one test at a
## time: they run real gpsd, HTTP and daemon processes whose timing a 2-core machine running them
## all at once cannot keep. (What it costs: .ci/run's header.)
UNIT_TESTS = ^(ArgumentParsingTests|ControlTests|DaemonTests|FuzzRegressionTests|JSONCodingTests|LiveLocationTests|LivelocTests|ReplayTests|RetryTests)\.
test: unit
	$(SWIFT) test --skip-build --no-parallel --skip '$(UNIT_TESTS)'

## The unit targets alone (the first part of `make test`): the run to make after every change.
unit: build
	scripts/module-graph --check
	$(SWIFT) test --skip-build --parallel --filter '$(UNIT_TESTS)'

clean:
	rm -rf .build

## The Debian package, with Debian's tooling (debian/, debhelper): livelocd_VERSION_ARCH.deb here,
## its .buildinfo and .changes in .build/deb; lintian after it (an error or a warning fails the build:
## each tag left is overridden with its reason in debian/livelocd.lintian-overrides).
## (DEPS= skips scripts/install-deps, on a machine that has everything.)
##
## With DIST=trixie|bookworm (and ARCH=amd64|arm64, amd64 if not given): the package for that Debian
## release and arch, cross-built with Debian's own Swift (sid's swiftlang 6.2.3) against the release's
## libraries, in .build/debs/DIST-ARCH/livelocd_VERSION+debNN_ARCH.deb (scripts/deb-cross; the
## toolchain and the sysroots: scripts/swift-toolchain, cached in /var/cache/livelocd-swift).
DEPS ?= deps
DIST ?=
ARCH ?= amd64
ifeq ($(DIST),)
deb: $(DEPS)
	rm -rf .build/deb && mkdir -p .build/deb
	LIVELOCD_DEB_DIR=$(CURDIR)/.build/deb dpkg-buildpackage -b -us -uc \
	    --buildinfo-option=-u$(CURDIR)/.build/deb --changes-option=-u$(CURDIR)/.build/deb \
	    --buildinfo-file=$(CURDIR)/.build/deb/livelocd.buildinfo --changes-file=$(CURDIR)/.build/deb/livelocd.changes
	rm -f livelocd_*.deb && cp .build/deb/livelocd_*.deb .
	lintian --fail-on error,warning --info --display-experimental --pedantic livelocd_*.deb
	@ls -l livelocd_*.deb

## The package installed in a fresh chroot of its release and arch and tried there (scripts/deb-check).
deb-check: deb
	scripts/deb-check livelocd_*.deb
else
deb: $(DEPS)
	scripts/deb-cross $(DIST) $(ARCH)

deb-check: deb
	scripts/deb-check $(DIST) $(ARCH)
endif

## The four packages for the devices (Debian 13 and 12, amd64 and arm64), each built and then
## checked in its own chroot (arm64 under qemu-user): before a release.
DEB_MATRIX = trixie-amd64 trixie-arm64 bookworm-amd64 bookworm-arm64
.PHONY: deb-matrix deb-matrix-check
deb-matrix: $(DEPS)
	for target in $(DEB_MATRIX); do scripts/deb-cross $${target%-*} $${target#*-} || exit 1; done

deb-matrix-check: deb-matrix
	for target in $(DEB_MATRIX); do scripts/deb-check $${target%-*} $${target#*-} || exit 1; done

## The documents made from the code: livelocd.conf.example, the README's key tables,
## livelocd.conf(5)'s key sections and debian/control's destinations sentence from the settings tables (PackagedConfigurationTests, which
## rewrites them under LIVELOCD_REGENERATE=1), docs/architecture.md's module graph from Package.swift.
## `make docs` writes them; `make docs-check` fails when one differs from what the code makes.
.PHONY: docs docs-check
docs:
	LIVELOCD_REGENERATE=1 $(SWIFT) test --filter PackagedConfigurationTests
	scripts/module-graph

docs-check:
	$(SWIFT) test --filter PackagedConfigurationTests
	scripts/module-graph --check

.PHONY: text-order-check
## Whether link/livelocd.order (the release daemon's code layout) still lists the functions livelocd
## runs (scripts/text-order --check: the daemon traced under ptrace in a short footprint bench).
text-order-check: release
	scripts/text-order --check

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
