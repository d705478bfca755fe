# SPDX-License-Identifier: MIT OR Apache-2.0
# The `handoff` command, installation, and the C examples.
#
#   make tool                        build/bin/handoff
#   make examples                    the MapOff pair: build/bin/mapoff-sender, build/bin/mapoff-receiver
#   make install / make uninstall    mk/install.mk
#   make test-cli                    the tool as real processes, and a C build against an installed copy
#   make test-browser                the browser extension in real Chromium and Firefox, alone and handing
#                                    tabs between two devices' agents (also in test-cli)

TOOL       := $(BINDIR)/handoff
TOOL_OUT   := .build/release/handoff-cli

.PHONY: tool examples test-cli test-browser

## tool: build/bin/handoff, the command and the agent
tool: $(TOOL)

# After the library and in the same SwiftPM build folder: the modules they
# share are compiled once; this step compiles the tool's own files and links.
# (The SwiftPM product is handoff-cli: the library owns the name "handoff".)
# No $ORIGIN rpath: the tool loads only system libraries (Swift is static).
$(TOOL): $(LIB) $(SWIFT_SOURCES) | $(BUILD)/share/icons
	$(SWIFT) build -c release --product handoff-cli --disable-local-rpath
	@mkdir -p $(BINDIR)
	strip -o $@ $(TOOL_OUT)

# The built tool's tray finds its icons where an installed one does,
# <prefix>/share/icons beside bin/ (IconThemePath): build/share/icons is
# the tree's data/icons (a panel that cannot find them draws no icon).
$(BUILD)/share/icons:
	@mkdir -p $(BUILD)/share
	ln -sfn ../../data/icons $@

# ---------------------------------------------------------------- examples

# The MapOff pair, each its own program (mapoff.c with its mode fixed);
# $(BINDIR)/mapoff, taking the mode as its first argument, is the core's.
## examples: the MapOff pair: build/bin/mapoff-sender and build/bin/mapoff-receiver
examples: $(BINDIR)/mapoff-sender $(BINDIR)/mapoff-receiver

$(BINDIR)/mapoff-sender: examples/c/mapoff.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L '-DMAPOFF_MODE="send"' -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

$(BINDIR)/mapoff-receiver: examples/c/mapoff.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L '-DMAPOFF_MODE="receive"' -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

# ---------------------------------------------------------------- tests

# The C app of Tests/cli/test_history_app.py (the history through the C API).
$(BINDIR)/history_app: Tests/c/history_app.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $< $(LINK_HANDOFF) -lpthread

# Real `handoff` processes over loopback (each test's own account
# directories and ports; every child killed), handoffs with the C MapOff
# pair, and `make install` into a temporary prefix that a C build then uses
# through pkg-config.
## test-cli: (test) the handoff command and agent as real processes (Tests/cli)
test-cli: $(TOOL) $(LIB) $(INCDIR)/handoff.h examples $(BINDIR)/streamer $(BINDIR)/history_app
	HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_STREAMER=$(abspath $(BINDIR)/streamer) \
	HANDOFF_HISTORY_APP=$(abspath $(BINDIR)/history_app) \
		$(PYTHON) -m pytest -q -p no:cacheprovider Tests/cli

EXTRA_TESTS += test-cli

# bridges/browser/extension loaded unpacked in Chromium and Firefox ESR on a
# private Xvfb display, against a stand-in native host, and with the real
# `handoff browser-host` between two devices' agents (docs/browser.md).
## test-browser: the browser extension in real Chromium and Firefox (also in test-cli)
test-browser: $(TOOL) $(LIB) $(FAKE_NOTIFICATIONS)
	HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_FAKE_NOTIFICATIONS=$(abspath $(FAKE_NOTIFICATIONS)) \
		HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) -m pytest -q -p no:cacheprovider \
		Tests/cli/test_browser_extension.py Tests/cli/test_browser_handoff.py
