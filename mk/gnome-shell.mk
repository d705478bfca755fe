# SPDX-License-Identifier: MIT OR Apache-2.0
# The GNOME Shell extension (docs/gnome-shell.md): one source in
# dist/gnome-shell/handoff@libhandoff.org, built in the two variants the
# shells load (mk/gnome-shell.sh):
#
#   make gnome-shell-extension   build/gnome-shell/legacy/handoff@libhandoff.org
#                                (GNOME Shell 43, 44) and build/gnome-shell/esm/...
#                                (45–47); `make install` installs the one the
#                                installed gnome-shell loads
#   make test-gnome-shell        the extension inside a real headless GNOME Shell
#                                (also in test-cli)

GNOME_SHELL_OUT     := $(BUILD)/gnome-shell
GNOME_SHELL_SOURCES := $(wildcard dist/gnome-shell/handoff@libhandoff.org/*.js dist/gnome-shell/handoff@libhandoff.org/entry/*.js) \
    dist/gnome-shell/handoff@libhandoff.org/metadata.json.in dist/gnome-shell/handoff@libhandoff.org/stylesheet.css \
    data/icons/hicolor/symbolic/apps/handoff-symbolic.svg dist/dbus/org.libhandoff.Agent1.xml mk/gnome-shell.sh

.PHONY: gnome-shell-extension test-gnome-shell

## gnome-shell-extension: the GNOME Shell extension, built for GNOME 43–44 and 45–47 (build/gnome-shell)
gnome-shell-extension: $(GNOME_SHELL_OUT)/legacy/handoff@libhandoff.org/metadata.json $(GNOME_SHELL_OUT)/esm/handoff@libhandoff.org/metadata.json

$(GNOME_SHELL_OUT)/%/handoff@libhandoff.org/metadata.json: $(GNOME_SHELL_SOURCES)
	sh mk/gnome-shell.sh build $* $(GNOME_SHELL_OUT)/$* $(VERSION)

## test-gnome-shell: the GNOME Shell extension and a real GTK app's focus in a real headless GNOME Shell 43 (also in test-cli)
test-gnome-shell: $(TOOL) $(LIB) $(FAKE_NOTIFICATIONS) gnome-shell-extension
	HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_FAKE_NOTIFICATIONS=$(abspath $(FAKE_NOTIFICATIONS)) \
		HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) -m pytest -q -p no:cacheprovider \
		Tests/cli/test_gnome_shell_extension.py Tests/cli/test_gnome_shell_focus.py

# Tests/cli holds the extension's tests: test-cli needs the built variants.
test-cli: gnome-shell-extension
