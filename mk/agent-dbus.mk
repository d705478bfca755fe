# SPDX-License-Identifier: MIT OR Apache-2.0
# The agent's D-Bus side (docs/agent.md §5–§6): its tests run
# against a fake notification server and app (Tests/agent/fake_notifications.c)
# on a private dbus-daemon each test starts.
#
#   make test-agent-dbus    the HandoffAgent D-Bus (notifications, the tray) and socket-activation suites
#
# `make test-swift` runs the same suites; it gets the fake built here.

FAKE_NOTIFICATIONS := $(BINDIR)/fake_notifications
# A stand-in panel's org.kde.StatusNotifierWatcher (the tray's tests).
FAKE_WATCHER := $(BINDIR)/fake_watcher

.PHONY: test-agent-dbus

$(FAKE_NOTIFICATIONS): Tests/agent/fake_notifications.c
	@mkdir -p $(BINDIR)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -o $@ $< $$(pkg-config --cflags --libs libsystemd)

$(FAKE_WATCHER): Tests/agent/fake_watcher.c
	@mkdir -p $(BINDIR)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -o $@ $< $$(pkg-config --cflags --libs libsystemd)

## test-agent-dbus: the agent's D-Bus suites (notifications, tray, socket activation)
test-agent-dbus: $(FAKE_NOTIFICATIONS)
	HANDOFF_FAKE_NOTIFICATIONS=$(abspath $(FAKE_NOTIFICATIONS)) \
	  $(SWIFT) test --filter 'HandoffAgentTests\.(SessionBusTests|SessionBusExportTests|TrayMenuTests|NotifierTests|ApplicationActivatorTests|ActivatedSocketTests)'

test-swift: $(FAKE_NOTIFICATIONS)
test-swift: export HANDOFF_FAKE_NOTIFICATIONS := $(abspath $(FAKE_NOTIFICATIONS))
