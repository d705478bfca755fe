# Installation (issue 8, and the agent's units of issue 15):
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#       bin/handoff, lib/libhandoff.so.$(VERSION) with its SONAME and
#       development links, include/handoff.h, lib/pkgconfig/handoff.pc, and
#       the agent's systemd user units in lib/systemd/user (ExecStart names
#       the installed command)
#   make uninstall [PREFIX=...] [DESTDIR=]
#   make test-units      the units, their installation, and what links sd-bus (Tests/agent)
#
# DESTDIR stages the files (packaging); PREFIX is where they will live and
# what handoff.pc and the service's ExecStart say (a "%" in it doubled:
# systemd reads "%x" as a specifier). The .pc carries no rpath (docs/cli.md).

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR_INSTALL     ?= $(PREFIX)/bin
LIBDIR_INSTALL     ?= $(PREFIX)/lib
INCLUDEDIR_INSTALL ?= $(PREFIX)/include
PKGCONFIGDIR       ?= $(LIBDIR_INSTALL)/pkgconfig
# A user unit directory systemd searches for PREFIX=/usr/local and /usr.
USERUNITDIR        ?= $(PREFIX)/lib/systemd/user

UNITS := handoff-agent.socket handoff-agent.service

.PHONY: install uninstall test-units

install: lib $(TOOL)
	@case "$(PREFIX)" in /*) ;; *) echo "PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 2;; esac
	install -d $(DESTDIR)$(LIBDIR_INSTALL) $(DESTDIR)$(INCLUDEDIR_INSTALL) $(DESTDIR)$(BINDIR_INSTALL) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(USERUNITDIR)
	install -m 0755 $(LIBDIR)/libhandoff.so.$(VERSION) $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(VERSION)
	ln -sf libhandoff.so.$(VERSION) $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(SOMAJOR)
	ln -sf libhandoff.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so
	install -m 0644 include/handoff.h $(DESTDIR)$(INCLUDEDIR_INSTALL)/handoff.h
	install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR_INSTALL)/handoff
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR_INSTALL)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR_INSTALL)|' \
	    -e 's|@VERSION@|$(VERSION)|' mk/handoff.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/handoff.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/handoff.pc
	install -m 0644 dist/systemd/handoff-agent.socket $(DESTDIR)$(USERUNITDIR)/handoff-agent.socket
	sed -e 's|^ExecStart=.*/handoff agent$$|ExecStart=$(subst %,%%,$(BINDIR_INSTALL))/handoff agent|' \
	    dist/systemd/handoff-agent.service > $(DESTDIR)$(USERUNITDIR)/handoff-agent.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/handoff-agent.service
	@echo "installed libhandoff $(VERSION) under $(DESTDIR)$(PREFIX); if the dynamic linker does not search" \
	      "$(LIBDIR_INSTALL), run ldconfig (as root) or use LD_LIBRARY_PATH=$(LIBDIR_INSTALL)"
	@echo "the agent: systemctl --user daemon-reload && systemctl --user enable --now handoff-agent.socket handoff-agent.service"

uninstall:
	rm -f $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(SOMAJOR) \
	      $(DESTDIR)$(LIBDIR_INSTALL)/libhandoff.so.$(VERSION) $(DESTDIR)$(INCLUDEDIR_INSTALL)/handoff.h \
	      $(DESTDIR)$(BINDIR_INSTALL)/handoff $(DESTDIR)$(PKGCONFIGDIR)/handoff.pc \
	      $(addprefix $(DESTDIR)$(USERUNITDIR)/,$(UNITS))

test-units: $(TOOL) $(LIB)
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/agent/test_units.py Tests/agent/test_linkage.py

EXTRA_TESTS += test-units
