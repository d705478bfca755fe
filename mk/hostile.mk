# SPDX-License-Identifier: MIT OR Apache-2.0
# The hostile-network suite: attacks by a real attacker
# process (Tests/hostile/attacker.c, OpenSSL) on loopback and in network
# namespaces, while a genuine sender and receiver keep handing off.
#
#   make test-hostile       the suite (needs root for the namespace tests; the
#                           `handoff` tool (mk/cli.mk) is a victim too)
#   make hostile-figures    the suite, then a table of handoffs and peaks

.PHONY: test-hostile hostile-figures

$(BINDIR)/attacker: Tests/hostile/attacker.c
	@mkdir -p $(BINDIR)
	$(CC) -std=c11 -Wall -Wextra -Werror -pedantic -O2 -o $@ $< -lssl -lcrypto -lpthread

## test-hostile: (test) a real attacker process while a genuine pair keeps handing off
test-hostile: $(BINDIR)/peer $(BINDIR)/attacker $(TOOL)
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/hostile

## hostile-figures: test-hostile, then a table of handoffs and peaks
hostile-figures: $(BINDIR)/peer $(BINDIR)/attacker $(TOOL)
	rm -f $(BUILD)/hostile-figures.jsonl
	-HOSTILE_FIGURES=$(abspath $(BUILD))/hostile-figures.jsonl $(PYTHON) -m pytest -q -p no:cacheprovider Tests/hostile
	$(PYTHON) Tests/hostile/figures.py $(BUILD)/hostile-figures.jsonl

EXTRA_TESTS += test-hostile
