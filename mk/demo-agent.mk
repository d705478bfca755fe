# SPDX-License-Identifier: MIT OR Apache-2.0
# The agent end to end: `handoff publish` on one device, `handoff
# agent` on another with a private dbus-daemon, the fake notification server
# and a not-running app in a temporary XDG_DATA_HOME (Tests/cli/test_agent_e2e.py,
# part of `make test-cli`), and the same story as a demo.
#
#   make demo-agent   two agents as two devices on loopback; an app launched
#                     from a .desktop file restores what the other device offers

.PHONY: demo-agent

test-cli: $(FAKE_NOTIFICATIONS) $(FAKE_WATCHER)
test-cli: export HANDOFF_FAKE_NOTIFICATIONS := $(abspath $(FAKE_NOTIFICATIONS))
test-cli: export HANDOFF_FAKE_WATCHER := $(abspath $(FAKE_WATCHER))
test-cli: export HANDOFF_LIBRARY := $(abspath $(LIB))

## demo-agent: two agents as two devices on loopback; an app launched to continue
demo-agent: $(TOOL) $(LIB) $(FAKE_WATCHER)
	HANDOFF_FAKE_WATCHER=$(abspath $(FAKE_WATCHER)) HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) examples/agent/demo_agent.py
