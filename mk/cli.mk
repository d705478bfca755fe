# The `handoff` command, installation, and the C examples (issue 8).
#
#   make tool                        build/bin/handoff
#   make examples                    the MapOff pair: build/bin/mapoff-sender, build/bin/mapoff-receiver
#   make install [PREFIX=/usr/local] [DESTDIR=]
#                                    library (with its SONAME links), header, tool, lib/pkgconfig/handoff.pc
#   make uninstall [PREFIX=...] [DESTDIR=]
#   make test-cli                    the tool as real processes, and a C build against an installed copy

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR_INSTALL     ?= $(PREFIX)/bin
LIBDIR_INSTALL     ?= $(PREFIX)/lib
INCLUDEDIR_INSTALL ?= $(PREFIX)/include
PKGCONFIGDIR       ?= $(LIBDIR_INSTALL)/pkgconfig

TOOL       := $(BINDIR)/handoff
TOOL_OUT   := .build/release/handoff-cli

.PHONY: tool examples install uninstall test-cli

tool: $(TOOL)

# After the library and in the same SwiftPM build folder: the modules they
# share are compiled once; this step compiles the tool's own files and links.
# (The SwiftPM product is handoff-cli: the library owns the name "handoff".)
# No $ORIGIN rpath: the tool loads only system libraries (Swift is static).
$(TOOL): $(LIB) $(SWIFT_SOURCES)
	$(SWIFT) build -c release --product handoff-cli --disable-local-rpath
	@mkdir -p $(BINDIR)
	strip -o $@ $(TOOL_OUT)

# ---------------------------------------------------------------- examples

# The MapOff pair, each its own program (mapoff.c with its mode fixed);
# $(BINDIR)/mapoff, taking the mode as its first argument, is the core's.
examples: $(BINDIR)/mapoff-sender $(BINDIR)/mapoff-receiver

$(BINDIR)/mapoff-sender: examples/c/mapoff.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L '-DMAPOFF_MODE="send"' -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

$(BINDIR)/mapoff-receiver: examples/c/mapoff.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L '-DMAPOFF_MODE="receive"' -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

# ---------------------------------------------------------------- install

# DESTDIR stages the files (packaging); PREFIX is where they will live and
# what handoff.pc says. The .pc carries no rpath (docs/cli.md).
install: lib $(TOOL)
	@case "$(PREFIX)" in /*) ;; *) echo "PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 2;; esac
	install -d $(DESTDIR)$(LIBDIR_INSTALL) $(DESTDIR)$(INCLUDEDIR_INSTALL) $(DESTDIR)$(BINDIR_INSTALL) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(LIBDIR)/libhandoff.so.$(VERSION) $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(VERSION)
	ln -sf libhandoff.so.$(VERSION) $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(SOMAJOR)
	ln -sf libhandoff.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so
	install -m 0644 include/handoff.h $(DESTDIR)$(INCLUDEDIR_INSTALL)/handoff.h
	install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR_INSTALL)/handoff
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR_INSTALL)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR_INSTALL)|' \
	    -e 's|@VERSION@|$(VERSION)|' mk/handoff.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/handoff.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/handoff.pc
	@echo "installed libhandoff $(VERSION) under $(DESTDIR)$(PREFIX); if the dynamic linker does not search" \
	      "$(LIBDIR_INSTALL), run ldconfig (as root) or use LD_LIBRARY_PATH=$(LIBDIR_INSTALL)"

uninstall:
	rm -f $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(SOMAJOR) \
	      $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(VERSION) $(DESTDIR)$(INCLUDEDIR_INSTALL)/handoff.h \
	      $(DESTDIR)$(BINDIR_INSTALL)/handoff $(DESTDIR)$(PKGCONFIGDIR)/handoff.pc

# ---------------------------------------------------------------- tests

# Real `handoff` processes over loopback (each test's own account
# directories and ports; every child killed), handoffs with the C MapOff
# pair, and `make install` into a temporary prefix that a C build then uses
# through pkg-config.
test-cli: $(TOOL) $(LIB) $(INCDIR)/handoff.h examples
	HANDOFF_TOOL=$(abspath $(TOOL)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/cli

EXTRA_TESTS += test-cli
