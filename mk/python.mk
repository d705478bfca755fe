# SPDX-License-Identifier: MIT OR Apache-2.0
# Python binding (bindings/python): its pytest suite. Beyond the binding's
# own tests it hands off between Python and the C peer and MapOff (both
# directions), opens continuation streams to and from the C streamer, runs
# examples/python, pip-installs the binding into a fresh venv (offline) to
# run the example pair from there, and builds the manylinux wheel and runs
# it in a fresh venv.
#
#   make wheel         build/python/wheelhouse/libhandoff-*-manylinux_*.whl:
#                      the package with the library and the OpenSSL it needs
#                      (auditwheel, installed by scripts/install-deps.sh)
#   make bench-python  the userInfo round trip next to plistlib and json
#                      (also printed by `make bench`)
.PHONY: test-python-binding wheel bench-python

WHEEL_DIR ?= $(BUILD)/python/wheelhouse

## test-python-binding: (test) the Python binding's suite (bindings/python)
test-python-binding: lib $(BINDIR)/peer $(BINDIR)/mapoff $(BINDIR)/streamer
	CC="$(CC)" $(PYTHON) -m pytest -q -p no:cacheprovider bindings/python/tests

## wheel: the manylinux wheel in build/python/wheelhouse/
wheel: lib
	PYTHON="$(PYTHON)" sh scripts/python-wheel.sh $(abspath $(LIBDIR)/libhandoff.so.$(VERSION)) $(abspath $(WHEEL_DIR))

## bench-python: the userInfo round trip next to plistlib and json
bench-python: lib
	HANDOFF_LIBRARY=$(abspath $(LIB)) $(PYTHON) bindings/python/bench/user_info.py

# `make bench` prints the Python section first.
bench: bench-python

EXTRA_TESTS += test-python-binding
