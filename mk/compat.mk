# SPDX-License-Identifier: MIT OR Apache-2.0
# Compatibility with the previous release (docs/PROTOCOL.md §10):
# the newest release RELEASES records before this tree's VERSION, built from
# its commit into build/releases/<version> (scripts/build-release.sh; kept
# between runs, rebuilt when its commit changes).
#
#   make previous-release   build it (several minutes the first time)
#   make test-compat        handoffs between it and this build, both ways:
#                           embedded apps, continuation streams, an old
#                           app on this library,
#                           agents of both releases serving apps of the
#                           other, and the two releases' `handoff` commands
#   make test-abi-compat    this library's C ABI against it (abidiff)

.PHONY: previous-release test-compat test-abi-compat

PREVIOUS_RELEASE_FILE := $(BUILD)/previous-release

## previous-release: build the previous release (RELEASES) into build/releases/
previous-release:
	@mkdir -p $(BUILD)
	@sh scripts/build-release.sh --previous > $(PREVIOUS_RELEASE_FILE).tmp && mv $(PREVIOUS_RELEASE_FILE).tmp $(PREVIOUS_RELEASE_FILE)

## test-compat: (test) handoffs between the previous release and this build, both ways
test-compat: lib $(TOOL) $(BINDIR)/peer $(BINDIR)/streamer previous-release
	HANDOFF_PREVIOUS_RELEASE=$$(cat $(PREVIOUS_RELEASE_FILE)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/compat

## test-abi-compat: (test) the C ABI against the previous release's, with abidiff
test-abi-compat: lib previous-release
	sh Tests/abi/check_abi_compat.sh $$(cat $(PREVIOUS_RELEASE_FILE)) $(LIB) include/handoff.h

EXTRA_TESTS += test-abi-compat test-compat
