# SPDX-License-Identifier: MIT OR Apache-2.0
# Start-up: what linking libhandoff.so adds to a program's start
# (bench/startup.c): a C program that links it and calls one function,
# against a plain C program and against one that links only the libraries
# the library needs (its NEEDED, read from the built library), whole
# processes in rounds.
#
#   make bench-startup   the row alone (`make bench` prints it too)

.PHONY: bench-startup

$(BINDIR)/startup_plain: bench/startup_plain.c
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -o $@ $<

$(BINDIR)/startup_deps: bench/startup_plain.c $(LIB)
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -o $@ $< -Wl,--no-as-needed \
	    $$(readelf -d $(LIB) | sed -n 's/.*(NEEDED).*\[lib\([^.]*\)\.so.*\]/-l\1/p')

$(BINDIR)/startup_linked: bench/startup_linked.c $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -I$(INCDIR) -o $@ $< $(LINK_HANDOFF)

$(BINDIR)/bench_startup: bench/startup.c bench/timing.c bench/timing.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -O2 -o $@ bench/startup.c bench/timing.c -lm

## bench-startup: a program linking libhandoff.so against a plain C program, start to exit
bench-startup: $(BINDIR)/bench_startup $(BINDIR)/startup_plain $(BINDIR)/startup_deps $(BINDIR)/startup_linked
	$(BINDIR)/bench_startup $(BINDIR)/startup_plain $(BINDIR)/startup_deps $(BINDIR)/startup_linked

bench: bench-startup
