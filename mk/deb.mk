# SPDX-License-Identifier: MIT OR Apache-2.0
# Debian packages (debian/):
#
#   make deb             build/deb/*.deb: libhandoff0, libhandoff-dev, handoff,
#                        python3-handoff, and the browser bridge's
#                        webext-handoff-firefox and webext-handoff-chromium
#                        (docs/browser.md §1); then lintian on them (fails
#                        on a warning or error; debian/*lintian-overrides
#                        say why each remaining tag is fine)
#   make test-packages   the .debs installed into a fresh Debian root
#                        (mmdebstrap, cached in build/deb-root/), used
#                        there, then purged; and in a second root with
#                        Debian's firefox-esr and chromium, each browser
#                        started with a fresh profile offers its tab
#                        through the bridge (Tests/packages)
#
# dpkg-buildpackage runs in the working tree (so `make lib tool` reuses the
# build that is already there) without its pre-clean (debian/rules clean
# is `make clean`); the .debs, .buildinfo and .changes go to build/deb/,
# never to the tree's parent folder. Not -d: the Build-Depends are checked;
# the Swift toolchain, which Debian does not package, is simply on PATH.

DEB_DIR      := $(BUILD)/deb
DEB_VERSION   = $(shell dpkg-parsechangelog -S Version)
DEB_ARCH      = $(shell dpkg-architecture -qDEB_HOST_ARCH)
DEB_CHANGES   = $(DEB_DIR)/libhandoff_$(DEB_VERSION)_$(DEB_ARCH).changes
# What debhelper keeps between runs; removed so that every step runs again.
DEB_STATE    := debian/.debhelper debian/debhelper-build-stamp debian/files debian/tmp \
                debian/libhandoff0 debian/libhandoff-dev debian/handoff debian/python3-handoff \
                debian/webext-handoff-firefox debian/webext-handoff-chromium

.PHONY: deb test-packages

# After lib and tool: under make -j the package build's own `make lib tool`
# then finds them built instead of racing another SwiftPM build.
## deb: the Debian packages in build/deb/, checked by lintian
deb: $(LIB) $(TOOL)
	rm -rf $(DEB_STATE) debian/*.substvars debian/*.debhelper.log debian/*.debhelper $(DEB_DIR)
	mkdir -p $(DEB_DIR)
	HANDOFF_DEB_DIR=$(abspath $(DEB_DIR)) nice -n 10 dpkg-buildpackage -us -uc -b --no-pre-clean \
	    --buildinfo-option=-u$(abspath $(DEB_DIR)) --changes-option=-u$(abspath $(DEB_DIR)) \
	    --buildinfo-file=$(DEB_CHANGES:.changes=.buildinfo) --changes-file=$(DEB_CHANGES)
	@ls -l $(DEB_DIR)/*.deb
	@lintian --fail-on error,warning --info --display-info --pedantic --show-overrides $(DEB_CHANGES) \
	    > $(DEB_DIR)/lintian.txt; status=$$?; cat $(DEB_DIR)/lintian.txt; \
	    echo "lintian summary (E error, W warning, I info, P pedantic, O overridden):"; \
	    sed -n 's/^\([EWIPXO]\): [^ ]* \([^ ]*\).*/\1 \2/p' $(DEB_DIR)/lintian.txt | sort | uniq -c; \
	    exit $$status

# Root: the Debian root is extracted, chrooted into (in a mount and PID
# namespace of its own), and removed.
## test-packages: (test) the .debs installed and used in a fresh Debian root
test-packages: deb
	DEB_DIR=$(abspath $(DEB_DIR)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/packages

EXTRA_TESTS += test-packages
