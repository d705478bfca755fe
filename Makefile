# SPDX-License-Identifier: MIT OR Apache-2.0
# libhandoff: build, test and demo.
#
#   make          build build/lib/libhandoff.so and build/include/handoff.h
#   make test     build, then run every test suite (Swift, C, C++, ABI, Python);
#                 every fuzz target is built too (not run: make fuzz)
#   make test-stress   the Swift suites and the CLI tests 20 times in a row
#                 with every core busy, stopping at the first failure
#                 (STRESS_RUNS=N; mk/stress.mk; not part of make test)
#   make demo     build, then run the demo
#   make bench    build, then print latency figures next to a raw baseline
#   make bench-agent-idle   wake-ups/s, RSS, threads of an idle agent and a connected app, and
#                           wake-ups/s and CPU in every state of the machine (60 s each)
#   make soak     10,000 handoffs, 64 apps on an agent, 16 devices (mk/soak.mk)
#   make size     stripped library and tool, split by origin (mk/size.mk)
#   make clean    remove build output
#   make help     every target a contributor uses, one line each (the
#                 `## target: what` lines next to the rules here and in mk/)

SWIFT        ?= swift
CC           ?= cc
CXX          ?= c++
PYTHON       ?= python3

# The project's one version; Tests/abi/check_versions.py keeps every copy in step.
VERSION      := $(shell cat VERSION)
SOMAJOR      := 0
BUILD        := build
LIBDIR       := $(BUILD)/lib
INCDIR       := $(BUILD)/include
BINDIR       := $(BUILD)/bin
LIB          := $(LIBDIR)/libhandoff.so
SWIFT_OUT    := .build/release/libhandoff.so

CFLAGS_STRICT   := -std=c11 -Wall -Wextra -Werror -pedantic
CXXFLAGS_STRICT := -std=c++17 -Wall -Wextra -Werror -pedantic
LINK_HANDOFF    := -L$(LIBDIR) -lhandoff -Wl,-rpath,$(abspath $(LIBDIR))

SWIFT_SOURCES := $(shell find Sources -type f) Package.swift

# Agents the tests and the demo start keep their history (docs/history.md)
# under build/, never in the home folder of whoever runs them; the history's
# own tests give each device a database of its own.
export HANDOFF_HISTORY_DB ?= $(abspath $(BUILD))/test-history/history.sqlite

# Each binding and tool brings its own rules; each adds its suites to
# EXTRA_TESTS, which `make test` runs after the core suites.
.DEFAULT_GOAL := all
EXTRA_TESTS :=
include $(sort $(wildcard mk/*.mk))

.PHONY: all help deps lib test test-swift test-tsan test-c test-abi test-valgrind test-python test-integration demo bench bench-agent-idle clean

## all: the library and its header (the default; same as lib)
all: lib

## lib: build/lib/libhandoff.so (release, stripped) and build/include/handoff.h
lib: $(LIB) $(INCDIR)/handoff.h

# Lists the `## target: what` lines of the Makefile and mk/*.mk, in the
# order make reads them (Tests/abi/check_map.py: `make test`'s targets and
# every .PHONY target are among them).
## help: this list
help:
	@echo "make TARGET, where TARGET is one of ((test): run by make test; docs/ARCHITECTURE.md, README.md):"
	@sed -n 's/^## \([^ :]*\): \(.*\)$$/\1\t\2/p' $(MAKEFILE_LIST) | awk -F '\t' '{ printf "  %-20s %s\n", $$1, $$2 }'

# What building and testing need beyond the toolchains (README: the two
# set-up commands install what is missing first). Quick when all is there.
## deps: install what building and testing need (scripts/install-deps.sh)
deps:
	@sh scripts/install-deps.sh

# Under -j too: the library that `make test` and `make demo` build waits
# for deps (it needs OpenSSL's and expat's headers).
ifneq ($(filter test demo,$(MAKECMDGOALS)),)
$(LIB): | deps
endif

# The library as hosts see it: a stripped copy with its SONAME link and the
# development link, next to the header.
# PACK_RELATIVE_RELOCS=1 packs its relative relocations (DT_RELR: 0.45 MiB
# smaller) for a system whose glibc is 2.36 or later; the default runs on
# glibc 2.35 too (Ubuntu 22.04; the wheel's tag). The flags are kept in a
# file, so changing them links again.
PACK_RELATIVE_RELOCS ?= 0
LIB_LINK_FLAGS := $(if $(filter 1,$(PACK_RELATIVE_RELOCS)),-Xlinker -z -Xlinker pack-relative-relocs)
LIB_LINK_STAMP := $(BUILD)/lib-link-flags
$(LIB_LINK_STAMP): FORCE
	@mkdir -p $(BUILD)
	@echo '$(LIB_LINK_FLAGS)' | cmp -s - $@ || echo '$(LIB_LINK_FLAGS)' > $@
FORCE:  # always out of date: the stamp rule compares the flags itself
$(LIB): $(SWIFT_SOURCES) $(LIB_LINK_STAMP)
	$(SWIFT) build -c release --product handoff $(LIB_LINK_FLAGS)
	@mkdir -p $(LIBDIR)
	strip --strip-unneeded -o $(LIBDIR)/libhandoff.so.$(VERSION) $(SWIFT_OUT)
	ln -sf libhandoff.so.$(VERSION) $(LIBDIR)/libhandoff.so.$(SOMAJOR)
	ln -sf libhandoff.so.$(SOMAJOR) $(LIB)

$(INCDIR)/handoff.h: include/handoff.h
	@mkdir -p $(INCDIR)
	cp $< $@

# ---------------------------------------------------------------- tests

## test: every suite below that says (test); 30 minutes and more
test: deps lib test-abi test-c test-valgrind test-python test-integration test-swift test-tsan $(EXTRA_TESTS)

## test-swift: (test) swift test: every Swift suite, and the fuzz regression corpus
test-swift:
	$(SWIFT) test

# The runtime's and the reactor's tests again under ThreadSanitizer (own build folder).
## test-tsan: (test) the runtime's and the reactor's Swift tests under ThreadSanitizer
test-tsan:
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter 'HandoffRuntimeTests|HandoffBaseTests'

## test-abi: (test) the .so's exports and NEEDED, versions, licences, close-on-exec, docs/ARCHITECTURE.md
test-abi: lib
	sh Tests/abi/check_abi.sh $(LIB) include/handoff.h
	$(PYTHON) Tests/abi/check_vocabulary.py
	$(PYTHON) Tests/abi/check_versions.py
	$(PYTHON) Tests/abi/check_symbols.py $(LIB)
	$(PYTHON) Tests/abi/check_licences.py
	$(PYTHON) Tests/abi/check_cloexec.py
	$(PYTHON) Tests/abi/check_map.py

$(BINDIR)/test_%: Tests/c/test_%.c Tests/c/check.h Tests/c/check_handoff.h $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $< $(LINK_HANDOFF) -lm -lpthread

# The header must compile as C++ too.
$(BINDIR)/header_cxx: Tests/c/header_cxx.cpp $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CXX) $(CXXFLAGS_STRICT) -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

C_TESTS := $(BINDIR)/test_model $(BINDIR)/test_runtime $(BINDIR)/test_restoration \
           $(BINDIR)/test_delegate_names $(BINDIR)/test_documents

## test-c: (test) the C tests through the header, and the header as C++
test-c: $(C_TESTS) $(BINDIR)/header_cxx
	$(BINDIR)/header_cxx
	$(BINDIR)/test_model
	$(BINDIR)/test_runtime
	$(BINDIR)/test_restoration
	$(BINDIR)/test_delegate_names
	$(BINDIR)/test_documents
	sh Tests/c/check_deprecated_names.sh '$(CC)' '$(CXX)' $(INCDIR)

# The C tests again under valgrind, in one process: no invalid access and
# no definite leak through the C ABI. (The Swift runtime's one-time caches
# show as "possibly lost", so only definite leaks count.)
## test-valgrind: (test) the C tests under valgrind: no invalid access, no definite leak
test-valgrind: $(C_TESTS)
	@if command -v valgrind >/dev/null; then \
	  for t in $(C_TESTS); do \
	    CHECK_NOFORK=1 valgrind -q --error-exitcode=1 --leak-check=full \
	      --errors-for-leak-kinds=definite --show-possibly-lost=no $$t || exit 1; \
	  done; \
	else echo "valgrind not installed: skipping test-valgrind"; fi

## test-python: (test) the library's plists against CPython's plistlib, through ctypes
test-python: lib
	HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/python

# Real processes over real sockets: loopback, and three hosts in network
# namespaces that the tests create and always remove (needs root, as CI is).
$(BINDIR)/peer: Tests/integration/peer.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

$(BINDIR)/streamer: Tests/integration/streamer.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

# The idle tests (test_idle.py) measure `handoff agent` too.
## test-integration: (test) real processes on real sockets: loopback and network namespaces
test-integration: $(BINDIR)/peer $(BINDIR)/streamer $(TOOL)
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/integration

# ---------------------------------------------------------------- demo

$(BINDIR)/roundtrip: examples/c/roundtrip.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

$(BINDIR)/mapoff: examples/c/mapoff.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

# A real handoff between two processes on this machine (loopback).
## demo: a real handoff between two processes on this machine
demo: deps $(BINDIR)/mapoff $(BINDIR)/roundtrip
	sh examples/c/run-demo.sh $(BINDIR)/mapoff

# ---------------------------------------------------------------- bench

# One file per thing measured (bench/main.c names them); the timing and
# statistics (bench/timing.c) are bench_streams' too.
BENCH_SOURCES := $(addprefix bench/,main.c report.c timing.c net.c app.c raw.c floors.c coding.c \
                   agents.c broker.c side.c pair.c dispatch.c continue.c beacon.c cold.c)

$(BINDIR)/bench: $(BENCH_SOURCES) $(wildcard bench/*.h) $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $(BENCH_SOURCES) $(LINK_HANDOFF) -lpthread -lm

$(BINDIR)/bench_streams: bench/bench_streams.c bench/timing.c bench/timing.h
	@mkdir -p $(BINDIR)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -o $@ bench/bench_streams.c bench/timing.c

# The history (docs/history.md): the save's cost on the app's path and the
# desktop's search over 10,000 entries and again over 100,000, on a private
# bus (bench/history.c); a write of the store at both sizes, schema before
# and now (bench/history_writes.py).
$(BINDIR)/bench_history: bench/history.c bench/timing.c bench/timing.h $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -I$(INCDIR) -o $@ bench/history.c bench/timing.c \
	  $(LINK_HANDOFF) $$(pkg-config --cflags --libs libsystemd sqlite3)

# Documents (docs/documents.md §9): continue -> document open next to a
# plain continue; a 64 MiB document brought along next to a continuation
# stream; two embedded apps in one process (bench/documents.c).
BENCH_DOCUMENTS_SOURCES := $(addprefix bench/,documents.c documents_pair.c side.c net.c timing.c)

$(BINDIR)/bench_documents: $(BENCH_DOCUMENTS_SOURCES) bench/documents_pair.h bench/side.h bench/net.h bench/timing.h $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $(BENCH_DOCUMENTS_SOURCES) \
	  $(LINK_HANDOFF) -lpthread -lm

$(BINDIR)/idle_app: bench/idle_app.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

# Wake-ups, RSS and threads of an idle agent and of an app connected to it.
## bench-agent-idle: wake-ups, RSS and threads of an idle agent and app, in every state
bench-agent-idle: $(BINDIR)/idle_app $(TOOL)
	python3 bench/agent_idle.py --tool $(abspath $(TOOL)) --app $(abspath $(BINDIR)/idle_app)

# Figures next to a raw baseline measured in the same run: compare ratios.
## bench: latency, stream throughput, history and documents figures next to raw baselines
bench: $(BINDIR)/bench $(BINDIR)/bench_streams $(BINDIR)/bench_history $(BINDIR)/bench_documents $(BINDIR)/streamer $(TOOL) $(FAKE_NOTIFICATIONS)
	$(BINDIR)/bench $(abspath $(TOOL))
	$(BINDIR)/bench_streams $(BINDIR)/streamer
	$(BINDIR)/bench_history $(abspath $(TOOL))
	python3 bench/history_writes.py
	$(BINDIR)/bench_documents $(BUILD)
	python3 bench/reach_sight.py --tool $(abspath $(TOOL))
	python3 bench/bridge_latency.py --tool $(abspath $(TOOL))
	python3 bench/browser_sight.py --tool $(abspath $(TOOL))

## clean: remove build/, .build/ and .build-tsan/
clean:
	rm -rf $(BUILD) .build .build-tsan
