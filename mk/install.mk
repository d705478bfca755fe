# SPDX-License-Identifier: MIT OR Apache-2.0
# Installation: the library, the command and the agent's files:
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#       bin/handoff, lib/libhandoff.so.$(VERSION) with its SONAME and
#       development links, include/handoff.h and include/handoff-glib.h
#       (the header-only GLib GSource), lib/pkgconfig/handoff.pc, and
#       the agent's systemd user units in lib/systemd/user (ExecStart names
#       the installed command), the man pages handoff(1) and handoff-agent(1)
#       in share/man/man1, the bash, zsh and fish completions (share/
#       bash-completion/completions/handoff, share/zsh/vendor-completions/
#       _handoff, share/fish/vendor_completions.d/handoff.fish), the
#       tray's icons (share/icons/hicolor/scalable/{apps,status}), the
#       translations share/locale/<lang>/LC_MESSAGES/handoff.mo (mk/l10n.mk),
#       share/handoff/install-manifest, and the agent's XDG autostart entry
#       handoff-agent.desktop in AUTOSTARTDIR (for desktops without systemd
#       user sessions; X-systemd-skip keeps systemd from running it twice);
#       the MPRIS bridge's user unit handoff-mpris.service and its desktop
#       entry share/applications/org.libhandoff.media.desktop (docs/mpris.md);
#       the documents bridge's handoff-documents.service and share/
#       applications/org.libhandoff.documents.desktop (docs/documents.md §7);
#       the desktop's search of the history (docs/history.md): share/gnome-
#       shell/search-providers/org.libhandoff.History.search-provider.ini,
#       share/krunner/dbusplugins/org.libhandoff.History.desktop, share/
#       dbus-1/services/org.libhandoff.History.service (SystemdService=
#       handoff-agent.service; Exec names the installed command) and the
#       entry share/applications/org.libhandoff.History.desktop; the Neovim
#       plugin as the package share/nvim/site/pack/handoff/start/handoff
#       (docs/documents.md §8); the GNOME Shell extension share/gnome-shell/
#       extensions/handoff@libhandoff.org in the variant the installed
#       gnome-shell loads (GNOME_SHELL_VERSION=N chooses; docs/gnome-shell.md)
#       and its symbolic icon share/icons/hicolor/symbolic/apps; the
#       agent's session-bus API share/dbus-1/interfaces/org.libhandoff.Agent1.xml; then,
#       installing for real as root into a folder the dynamic linker
#       searches, runs ldconfig (otherwise prints the line to run)
#   make uninstall [PREFIX=...] [DESTDIR=]
#       removes what the manifest lists: the files, and the folders install
#       created (never one that existed before)
#   make test-install    install/uninstall into temporary prefixes, the
#       ldconfig decision, C and Rust programs built against the installed
#       copy, /usr/local for real in a private mount namespace (Tests/install)
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
# share/handoff/install-manifest: what install created, for uninstall.
DATADIR_INSTALL    ?= $(PREFIX)/share
# Man pages (uncompressed: man reads them as they are; packagers may gzip),
# and the completions where each shell looks for packages' own.
MANDIR_INSTALL     ?= $(DATADIR_INSTALL)/man
BASHCOMPDIR        ?= $(DATADIR_INSTALL)/bash-completion/completions
ZSHCOMPDIR         ?= $(DATADIR_INSTALL)/zsh/vendor-completions
FISHCOMPDIR        ?= $(DATADIR_INSTALL)/fish/vendor_completions.d
# XDG autostart: sessions read $XDG_CONFIG_DIRS/autostart, /etc/xdg by
# default, so the system prefixes put it there; any other prefix keeps it
# below itself ($(PREFIX)/etc/xdg/autostart: add $(PREFIX)/etc/xdg to
# XDG_CONFIG_DIRS to use it).
AUTOSTARTDIR       ?= $(if $(filter /usr /usr/local,$(PREFIX)),/etc/xdg/autostart,$(PREFIX)/etc/xdg/autostart)
# The tool finds them at ../share/locale from its own folder (docs/TRANSLATING.md).
LOCALEDIR_INSTALL  ?= $(DATADIR_INSTALL)/locale
# The browser bridge's host manifests (docs/browser.md): where Debian's
# Firefox and Chromium read them for the system prefixes, else below PREFIX.
MOZHOSTDIR         ?= $(if $(filter /usr /usr/local,$(PREFIX)),/usr/lib/mozilla/native-messaging-hosts,$(PREFIX)/lib/mozilla/native-messaging-hosts)
CHROMIUMHOSTDIR    ?= $(if $(filter /usr /usr/local,$(PREFIX)),/etc/chromium/native-messaging-hosts,$(PREFIX)/etc/chromium/native-messaging-hosts)

.PHONY: install uninstall test-units test-install

# mk/install.sh does the work (and keeps the manifest uninstall reads);
# mk/dynamic-linker.sh then runs ldconfig or prints the line to run.
INSTALL_ENV = DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' BINDIR='$(BINDIR_INSTALL)' LIBDIR='$(LIBDIR_INSTALL)' \
    INCLUDEDIR='$(INCLUDEDIR_INSTALL)' PKGCONFIGDIR='$(PKGCONFIGDIR)' USERUNITDIR='$(USERUNITDIR)' \
    DATADIR='$(DATADIR_INSTALL)' MANDIR='$(MANDIR_INSTALL)' BASHCOMPDIR='$(BASHCOMPDIR)' ZSHCOMPDIR='$(ZSHCOMPDIR)' \
    FISHCOMPDIR='$(FISHCOMPDIR)' AUTOSTARTDIR='$(AUTOSTARTDIR)' LOCALEDIR='$(LOCALEDIR_INSTALL)' LINGUAS='$(LINGUAS)' VERSION='$(VERSION)' SOMAJOR='$(SOMAJOR)' \
    MOZHOSTDIR='$(MOZHOSTDIR)' CHROMIUMHOSTDIR='$(CHROMIUMHOSTDIR)' BROWSER_EXTENSION='$(wildcard bridges/browser/extension)' \
    NVIM_PLUGIN='$(wildcard bridges/nvim)'

## install: install the command, library, headers, units, man pages (PREFIX, DESTDIR)
install: lib $(TOOL)
	@$(INSTALL_ENV) BUILT_LIB='$(LIBDIR)/libhandoff.so.$(VERSION)' BUILT_TOOL='$(TOOL)' HEADER=include/handoff.h GLIB_HEADER=include/handoff-glib.h \
	    PC_IN=mk/handoff.pc.in UNIT_SOCKET=dist/systemd/handoff-agent.socket \
	    UNIT_SERVICE=dist/systemd/handoff-agent.service UNIT_MPRIS=dist/systemd/handoff-mpris.service MPRIS_ENTRY=dist/xdg/org.libhandoff.media.desktop UNIT_DOCUMENTS=dist/systemd/handoff-documents.service DOCUMENTS_ENTRY=dist/xdg/org.libhandoff.documents.desktop MAN_PAGES=man AUTOSTART=dist/xdg/handoff-agent.desktop COMPLETIONS=completions ICONS=data/icons LOCALES='$(LOCALEDIR)' SEARCH=dist/search sh mk/install.sh install

# Builds nothing: removing needs only the manifest.
## uninstall: remove what install installed
uninstall:
	@$(INSTALL_ENV) sh mk/install.sh uninstall

## test-units: (test) the systemd user units and the agent's linkage
test-units: $(TOOL) $(LIB)
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/agent/test_units.py Tests/agent/test_linkage.py

EXTRA_TESTS += test-units

# Installs into temporary prefixes, and into /usr/local inside a private
# mount namespace (root; skipped otherwise); builds C and Rust programs
# against the installed copies (cargo runs offline).
## test-install: (test) an installed copy: C, Rust and GLib programs built against it
test-install: $(TOOL) $(LIB)
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/install

EXTRA_TESTS += test-install
