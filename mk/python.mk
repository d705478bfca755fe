# Python binding (bindings/python): its pytest suite. Beyond the binding's
# own tests it hands off between Python and the C peer and MapOff (both
# directions), opens continuation streams to and from the C streamer, runs
# examples/python, and pip-installs the binding into a
# fresh venv (offline) to run the example pair from there.
.PHONY: test-python-binding

test-python-binding: lib $(BINDIR)/peer $(BINDIR)/mapoff $(BINDIR)/streamer
	CC="$(CC)" $(PYTHON) -m pytest -q -p no:cacheprovider bindings/python/tests

EXTRA_TESTS += test-python-binding
