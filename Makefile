# libhandoff: build, test and demo.
#
#   make          build build/lib/libhandoff.so and build/include/handoff.h
#   make test     build, then run every test suite (Swift, C, C++, ABI, Python)
#   make demo     build, then run the demo
#   make clean    remove build output

SWIFT        ?= swift
CC           ?= cc
CXX          ?= c++
PYTHON       ?= python3

VERSION      := 0.1.0
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

.PHONY: all lib test test-swift test-c test-abi test-valgrind test-python demo clean

all: lib

lib: $(LIB) $(INCDIR)/handoff.h

# The library as hosts see it: a stripped copy with its SONAME link and the
# development link, next to the header.
$(LIB): $(SWIFT_SOURCES)
	$(SWIFT) build -c release --product handoff
	@mkdir -p $(LIBDIR)
	strip --strip-unneeded -o $(LIBDIR)/libhandoff.so.$(VERSION) $(SWIFT_OUT)
	ln -sf libhandoff.so.$(VERSION) $(LIBDIR)/libhandoff.so.$(SOMAJOR)
	ln -sf libhandoff.so.$(SOMAJOR) $(LIB)

$(INCDIR)/handoff.h: include/handoff.h
	@mkdir -p $(INCDIR)
	cp $< $@

# ---------------------------------------------------------------- tests

test: lib test-abi test-c test-valgrind test-python test-swift

test-swift:
	$(SWIFT) test

test-abi: lib
	sh Tests/abi/check_abi.sh $(LIB) include/handoff.h

$(BINDIR)/test_model: Tests/c/test_model.c Tests/c/check.h $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -I$(INCDIR) -o $@ $< $(LINK_HANDOFF) -lm

# The header must compile as C++ too.
$(BINDIR)/header_cxx: Tests/c/header_cxx.cpp $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CXX) $(CXXFLAGS_STRICT) -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

test-c: $(BINDIR)/test_model $(BINDIR)/header_cxx
	$(BINDIR)/header_cxx
	$(BINDIR)/test_model

# The C tests again under valgrind, in one process: no invalid access and
# no definite leak through the C ABI. (The Swift runtime's one-time caches
# show as "possibly lost", so only definite leaks count.)
test-valgrind: $(BINDIR)/test_model
	@if command -v valgrind >/dev/null; then \
	  CHECK_NOFORK=1 valgrind -q --error-exitcode=1 --leak-check=full \
	    --errors-for-leak-kinds=definite --show-possibly-lost=no $(BINDIR)/test_model; \
	else echo "valgrind not installed: skipping test-valgrind"; fi

test-python: lib
	HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/python

# ---------------------------------------------------------------- demo

$(BINDIR)/roundtrip: examples/c/roundtrip.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

demo: $(BINDIR)/roundtrip
	$(BINDIR)/roundtrip

clean:
	rm -rf $(BUILD) .build
