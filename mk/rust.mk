# SPDX-License-Identifier: MIT OR Apache-2.0
# Rust binding (bindings/rust): its cargo tests, and the DocEdit example
# pair (bindings/rust/examples, run by examples/rust/run-demo.sh). Cargo
# runs offline (the crate has no dependencies) and builds under build/rust;
# build.rs links $(LIB) through HANDOFF_LIB_DIR.
#
#   make test-rust   cargo test: header sync, values, runtime rules, in-process
#                    and two-process handoffs (against build/bin/peer) and
#                    continuation streams (against build/bin/streamer), then
#                    the example pair
#   make demo-rust   the DocEdit example pair hands off between two processes
#   make test-rust-valgrind
#                    the in-process suites again under valgrind

CARGO        ?= cargo
RUST_DIR     := bindings/rust
RUST_TARGET  := $(abspath $(BUILD)/rust)
RUST_CARGO   := CARGO_NET_OFFLINE=true CARGO_TARGET_DIR=$(RUST_TARGET) \
                HANDOFF_LIB_DIR=$(abspath $(LIBDIR)) $(CARGO)
RUST_FLAGS   := --offline --manifest-path $(RUST_DIR)/Cargo.toml

.PHONY: test-rust test-rust-valgrind demo-rust

## test-rust: (test) the Rust binding's cargo tests and the example pair
test-rust: lib $(BINDIR)/peer $(BINDIR)/streamer $(TOOL)
	HANDOFF_C_PEER=$(abspath $(BINDIR)/peer) HANDOFF_C_STREAMER=$(abspath $(BINDIR)/streamer) \
	  HANDOFF_TOOL=$(abspath $(TOOL)) \
	  CC='$(CC)' $(RUST_CARGO) test $(RUST_FLAGS)
	$(MAKE) --no-print-directory demo-rust

## demo-rust: the DocEdit example pair hands off between two processes
demo-rust: lib
	$(RUST_CARGO) build $(RUST_FLAGS) --examples
	sh examples/rust/run-demo.sh $(RUST_TARGET)/debug/examples

# No invalid access through the binding (e.g. a borrowed string read after
# the library freed it). The two-process and C-probe suites spawn programs
# of their own and are left out.
RUST_VALGRIND := target.'cfg(unix)'.runner=['valgrind','-q','--error-exitcode=1']

## test-rust-valgrind: (test) the Rust tests under valgrind
test-rust-valgrind: lib
	@if command -v valgrind >/dev/null; then \
	  $(RUST_CARGO) test $(RUST_FLAGS) --config "$(RUST_VALGRIND)" \
	    --test runtime --test model --test values --test loopback --test streams --test renamed -- --test-threads=1; \
	else echo "valgrind not installed: skipping test-rust-valgrind"; fi

EXTRA_TESTS += test-rust test-rust-valgrind
