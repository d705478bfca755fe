# SPDX-License-Identifier: MIT OR Apache-2.0
# The agent inside a real headless KDE Plasma 5.27 (Tests/support/plasma.py;
# scripts/install-deps.sh installs KWin and plasmashell): its tray item
# clicked, a GTK window it launched, Plasma's notification, KRunner: 15–40 s a
# test (Plasma starts in about 8 s), about 1 min for the four.
#
#   make test-plasma   Tests/cli/test_agent_plasma.py alone (also in test-cli)

.PHONY: test-plasma

## test-plasma: the agent's tray, notification and KRunner runner inside a real headless KDE Plasma (also in test-cli)
test-plasma: $(TOOL) $(LIB) $(FAKE_NOTIFICATIONS)
	HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_FAKE_NOTIFICATIONS=$(abspath $(FAKE_NOTIFICATIONS)) \
		HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) -m pytest -q -p no:cacheprovider \
		Tests/cli/test_agent_plasma.py
