# SPDX-License-Identifier: MIT OR Apache-2.0
# Flakes under load: the Swift suites and the CLI tests again
# and again on a busy machine. Not part of `make test`.
#
#   make test-stress               STRESS_RUNS times (20) in a row, every
#                                  core busy (scripts/stress.sh starts one
#                                  busy loop per core and always stops
#                                  them), stopping at the first failure
#   STRESS_RUNS=5                  fewer (or more) runs
#   STRESS_TARGETS="test-swift"    other suites instead
#
# Everything is built first, on a quiet machine; each run is then
# `make $(STRESS_TARGETS)`, which finds it built.

STRESS_RUNS    ?= 20
STRESS_TARGETS ?= test-swift test-cli

.PHONY: test-stress stress-build

# What the suites need, built before the busy loops start.
## stress-build: build what test-stress runs
stress-build: lib $(TOOL) $(FAKE_NOTIFICATIONS) $(FAKE_WATCHER) examples $(BINDIR)/streamer $(BINDIR)/history_app
	$(SWIFT) build --build-tests

## test-stress: the Swift suites and CLI tests 20 times with every core busy (not in test)
test-stress: stress-build
	sh scripts/stress.sh $(STRESS_RUNS) $(MAKE) --no-print-directory $(STRESS_TARGETS)
