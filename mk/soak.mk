# SPDX-License-Identifier: MIT OR Apache-2.0
# Soak and scale, not part of `make test`: each prints figures
# and exits 1 only when the thing it drives did not work (or an agent did
# not stay flat). Tests/soak; README, "Soak and scale".
#
#   make soak        the three below, in turn
#
#   SOAK_HANDOFFS=10000  handoffs between two agents on loopback (handoffs.py):
#                        the agents' RSS, fds and threads stay flat
#   SOAK_APPS=64         apps connected to one agent, all offering or receiving,
#                        a handoff each way (apps.py)
#   SOAK_DEVICES=16      devices in network namespaces on one bridge, each an
#                        agent and an app: all see each other, one handoff
#                        (devices.py; root only, else skipped)

SOAK_HANDOFFS ?= 10000
SOAK_APPS     ?= 64
SOAK_DEVICES  ?= 16

.PHONY: soak

## soak: 10,000 handoffs, 64 apps on one agent, 16 devices (not in test)
soak: $(BINDIR)/peer $(TOOL)
	@status=0; \
	for run in "handoffs.py --handoffs $(SOAK_HANDOFFS)" "apps.py --apps $(SOAK_APPS)" \
	           "devices.py --devices $(SOAK_DEVICES)"; do \
	  HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_PEER=$(abspath $(BINDIR)/peer) \
	    $(PYTHON) Tests/soak/$$run || status=1; echo; \
	done; exit $$status
