# SPDX-License-Identifier: MIT OR Apache-2.0
# docs/PROTOCOL.md's test vectors recomputed independently of libhandoff
# (Tests/vectors: Python's standard library and the `cryptography`
# package, installed by scripts/install-deps.sh). The Swift suite's
# DocumentVectorTests recomputes every vector with the library's code;
# this is the outside implementer's check that the rules as written give
# the same bytes.
.PHONY: test-vectors

## test-vectors: (test) docs/PROTOCOL.md's vectors recomputed without the library
test-vectors:
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/vectors

EXTRA_TESTS += test-vectors
