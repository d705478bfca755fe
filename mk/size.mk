# SPDX-License-Identifier: MIT OR Apache-2.0
# Footprint: what the stripped library and tool weigh, and why.
#
#   make size    the stripped size of build/lib/libhandoff.so and of the
#                `handoff` tool, each split by origin: the project's own
#                targets, the Swift standard library, the Swift runtime,
#                Foundation, the regex modules, what the linker makes
#                (relocations, unwind index) and headers/alignment
#
# The split comes from the linker maps the release links write
# (Package.swift: lld -Map into .build/), so the rows add up to the file.

LIB_MAP  := .build/libhandoff.so.map
TOOL_MAP := .build/handoff-cli.map

# The standard library's object with its functions collectable, which the
# library's release link takes ahead of the toolchain's archive
# (Package.swift, libraryFootprintLinkerSettings). Made again when the
# toolchain's archive changes; a new copy relinks.
STDLIB_COLLECTABLE := .build/footprint/Swift.o
SWIFT_CORE_ARCHIVE := $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))../lib/swift_static/linux/libswiftCore.a)

$(STDLIB_COLLECTABLE): scripts/unretained_stdlib.py $(SWIFT_CORE_ARCHIVE)
	$(PYTHON) scripts/unretained_stdlib.py $@ $(dir $(shell command -v $(SWIFT)))swiftc
	rm -f $(SWIFT_OUT)

$(LIB): $(STDLIB_COLLECTABLE)

.PHONY: size test-footprint

## size: the stripped library and tool, split by origin
size: $(LIB) $(TOOL)
	@$(PYTHON) scripts/size.py $(LIB) $(LIB_MAP) $(TOOL) $(TOOL_MAP)

## test-footprint: (test) the library's trimmed link still in force: size bound, DT_RELR, no unwind tables, no character names
test-footprint: lib
	$(PYTHON) Tests/abi/check_footprint.py $(LIB) $(SWIFT_OUT) $(STDLIB_COLLECTABLE) $(dir $(shell command -v $(SWIFT)))swiftc

EXTRA_TESTS += test-footprint
