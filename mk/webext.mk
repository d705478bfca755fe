# SPDX-License-Identifier: MIT OR Apache-2.0
# The browser extension for the stores (bridges/browser/LISTING.md says
# what each listing needs). Debian installs it without a store: the
# webext-handoff-firefox and webext-handoff-chromium packages (mk/deb.mk).

WEBEXT_DIR := $(BUILD)/webext

.PHONY: webext

## webext: build/webext/handoff-{firefox,chromium}-VERSION.zip, the extension as the stores take it (uploads nothing)
webext:
	$(PYTHON) mk/webext.py bridges/browser/extension $(WEBEXT_DIR)
