# SPDX-License-Identifier: MIT OR Apache-2.0
# Main-loop helpers: the GLib GSource header and the Qt example.
#
#   make test-glib   Tests/mainloop/test_glib.c against include/handoff-glib.h
#                    on real GMainLoops (needs libglib2.0-dev)
#   make test-qt     builds examples/qt and runs it: a handoff on Qt's event
#                    loop (needs qt6-base-dev, or qtbase5-dev)
#
# scripts/install-deps.sh installs both; without them each target says what
# is missing and skips. The checks run when the recipe runs, not when make
# reads this file, so the packages `make test` installs first are seen.

GLIB_CFLAGS_CMD := pkg-config --cflags glib-2.0
GLIB_LIBS_CMD   := pkg-config --libs glib-2.0
# Qt 6 if present, else Qt 5 (QtCore only).
QT_MODULE_CMD   := { pkg-config --exists Qt6Core && echo Qt6Core; } || echo Qt5Core

.PHONY: test-glib test-qt

# The GLib header sits next to handoff.h in the build folder, as installed.
lib: $(INCDIR)/handoff-glib.h

$(INCDIR)/handoff-glib.h: include/handoff-glib.h
	@mkdir -p $(INCDIR)
	cp $< $@

$(BINDIR)/test_glib: Tests/mainloop/test_glib.c Tests/c/check.h Tests/c/check_handoff.h $(LIB) \
                     $(INCDIR)/handoff.h $(INCDIR)/handoff-glib.h
	@mkdir -p $(BINDIR)
	$(CC) $(CFLAGS_STRICT) -D_POSIX_C_SOURCE=200809L -I$(INCDIR) $$($(GLIB_CFLAGS_CMD)) -o $@ $< \
	    $(LINK_HANDOFF) $$($(GLIB_LIBS_CMD)) -lpthread

## test-glib: (test) handoff-glib.h on real GMainLoops
test-glib: lib
	@if pkg-config --exists glib-2.0; then \
	  $(MAKE) --no-print-directory $(BINDIR)/test_glib && \
	  echo '#include <handoff-glib.h>' | $(CXX) $(CXXFLAGS_STRICT) -I$(INCDIR) $$($(GLIB_CFLAGS_CMD)) \
	      -x c++ -fsyntax-only - && \
	  $(BINDIR)/test_glib; \
	else \
	  echo "test-glib: SKIPPED: GLib's development files are missing (apt package libglib2.0-dev: run sh scripts/install-deps.sh)"; \
	fi

# Qt 6 wants position-independent code (-fPIC).
$(BINDIR)/qt_handoff: examples/qt/qt_handoff.cpp examples/qt/handoff_qt.h $(LIB) $(INCDIR)/handoff.h
	@mkdir -p $(BINDIR)
	qt=$$($(QT_MODULE_CMD)); \
	$(CXX) $(CXXFLAGS_STRICT) -fPIC -I$(INCDIR) $$(pkg-config --cflags $$qt) -o $@ $< \
	    $(LINK_HANDOFF) $$(pkg-config --libs $$qt)

## test-qt: (test) the Qt example: a handoff on Qt's event loop
test-qt: lib
	@if pkg-config --exists Qt6Core || pkg-config --exists Qt5Core; then \
	  $(MAKE) --no-print-directory $(BINDIR)/qt_handoff && $(BINDIR)/qt_handoff; \
	else \
	  echo "test-qt: SKIPPED: Qt's development files are missing (apt package qt6-base-dev or qtbase5-dev: run sh scripts/install-deps.sh)"; \
	fi

EXTRA_TESTS += test-glib test-qt
