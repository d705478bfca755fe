# SPDX-License-Identifier: MIT OR Apache-2.0
# Fuzzing: libFuzzer + AddressSanitizer targets for every decoder
# of untrusted bytes, one per file in Tests/fuzz/targets (README, "Fuzzing").
#
#   make fuzz                  build every target, then run each in turn
#   make fuzz-<target>         build and run one, e.g. make fuzz-bplist
#   make fuzz-build            build them all, run none
#   make fuzz-seeds            rewrite the seed corpora from the library's encoders
#
#   FUZZ_SECONDS=20            how long each target runs (default)
#   FUZZ_RUNS=5000000          run each for this many inputs instead (add
#                              FUZZ_FLAGS=-max_total_time=N to bound the time too)
#   FUZZ_FLAGS=...             more libFuzzer flags, e.g. -jobs=2 -workers=2
#
# `make fuzz` stops at the first target that finds something.
#
# `make test` builds every target (fuzz-build, not run), so none can rot
# unnoticed when the code it decodes with changes.
#
# SwiftPM's fuzzer support does not link, so the modules are compiled here
# with swiftc: debug (-Onone keeps every coverage counter), -enable-testing
# and private imports so targets reach internal parsers. New inputs go to
# build/fuzz/corpus/<target>/ (not tracked), crashes to
# build/fuzz/artifacts/<target>/. The checked-in seeds (Tests/fuzz/corpus)
# are read, never written. `make test` replays Tests/fuzz/regressions
# through the same decoders in the Swift suites (FuzzRegressionTests).

FUZZ_DIR      := $(BUILD)/fuzz
FUZZ_SRC      := Tests/fuzz
FUZZ_SECONDS  ?= 20
FUZZ_RUNS     ?=
FUZZ_FLAGS    ?=
# No leak check (the Swift runtime keeps caches for good) and no allocation
# stacks (a third of the time goes to recording them): rerun an artifact
# with ASAN_OPTIONS= to see where its memory came from.
FUZZ_ASAN_OPTIONS ?= detect_leaks=0:malloc_context_size=0
# The account and device targets write their input to a file each run.
FUZZ_TMPDIR   ?= $(if $(wildcard /dev/shm),/dev/shm,$(abspath $(FUZZ_DIR)/tmp))
SWIFTC        ?= swiftc
CLANG         ?= clang

FUZZ_MODEL_TARGETS := bplist activity userinfo userinfo-json manifest syncthing-config cloud-config
FUZZ_CONTINUITY_TARGETS := beacon-plaintext beacon-packet channel-frames exchange-message \
                           stream-frames pairing-code account-file device-file agent-message \
                           pairing-messages settings-file tailnet-status document-entries document-payload
# The relay's pure parts (Sources/HandoffRelay without MQTT/: no libmosquitto).
FUZZ_RELAY_TARGETS := relay-pipe-frame relay-pipe relay-device-topic relay-file
# The agent's desktop-entry reader: Sources/HandoffAgent/Desktop only (the
# D-Bus part would need libsystemd).
FUZZ_AGENT_TARGETS := desktop-entry
# The browser bridge's input: native-messaging frames and JSON; the
# documents bridge's: recently-used.xbel (expat), KDE entries, opt-outs.
FUZZ_BRIDGE_TARGETS := native-messaging recently-used
FUZZ_TARGETS  := $(FUZZ_MODEL_TARGETS) $(FUZZ_CONTINUITY_TARGETS) $(FUZZ_RELAY_TARGETS) $(FUZZ_AGENT_TARGETS) \
                 $(FUZZ_BRIDGE_TARGETS)

# System libraries come through their module maps, as in Package.swift
# (expat only once the model reads XML with it).
FUZZ_EXPAT    := $(if $(wildcard Sources/CExpat/module.modulemap),-I Sources/CExpat -lexpat)
FUZZ_SWIFTFLAGS := -swift-version 6 -parse-as-library -Onone -g -sanitize=fuzzer,address \
                   -use-ld=lld -I $(FUZZ_DIR)/modules -I Sources/COpenSSL -I $(FUZZ_DIR)/clinux $(FUZZ_EXPAT)
# One package name, as SwiftPM gives: HandoffRelay uses `package` parts of HandoffContinuity.
FUZZ_MODULEFLAGS := $(FUZZ_SWIFTFLAGS) -enable-testing -Xfrontend -enable-private-imports \
                    -package-name libhandoff -emit-library -static -emit-module
FUZZ_LIBS_MODEL := $(FUZZ_DIR)/lib/libHandoffModel.a $(FUZZ_DIR)/lib/libHandoffBase.a $(FUZZ_DIR)/lib/libCLinux.a
FUZZ_LIBS_CONTINUITY := $(FUZZ_DIR)/lib/libHandoffContinuity.a $(FUZZ_DIR)/lib/libHandoffRuntime.a \
                        $(FUZZ_LIBS_MODEL) $(FUZZ_DIR)/lib/libCLinux.a -lssl -lcrypto
FUZZ_LIBS_RELAY := $(FUZZ_DIR)/lib/libHandoffRelay.a $(FUZZ_LIBS_CONTINUITY)
FUZZ_LIBS_AGENT := $(FUZZ_DIR)/lib/libHandoffAgent.a $(FUZZ_LIBS_MODEL) $(FUZZ_DIR)/lib/libCLinux.a
FUZZ_LIBS_BRIDGE := $(FUZZ_DIR)/lib/libHandoffBridges.a $(FUZZ_DIR)/lib/libHandoffJSON.a $(FUZZ_LIBS_MODEL)

.PHONY: fuzz fuzz-build fuzz-seeds $(addprefix fuzz-,$(FUZZ_TARGETS))

## fuzz-build: (test) build every fuzz target, run none
fuzz-build: $(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_TARGETS))

EXTRA_TESTS += fuzz-build

## fuzz: build every fuzz target, then run each (FUZZ_SECONDS, FUZZ_RUNS)
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do $(MAKE) --no-print-directory fuzz-$$t || exit 1; done

# -------------------------------------------------------------- modules

# CLinux has no module map of its own (SwiftPM writes one): write it here.
$(FUZZ_DIR)/clinux/module.modulemap: Sources/CLinux/include/clinux.h
	@mkdir -p $(@D)
	printf 'module CLinux {\n  header "%s"\n  export *\n}\n' $(abspath $<) > $@

$(FUZZ_DIR)/lib/libCLinux.a: $(wildcard Sources/CLinux/*.c) Sources/CLinux/include/clinux.h
	@mkdir -p $(FUZZ_DIR)/obj $(@D)
	for c in $(wildcard Sources/CLinux/*.c); do \
	  $(CLANG) -c -g -fsanitize=address -I Sources/CLinux/include -o $(FUZZ_DIR)/obj/$$(basename $$c .c).o $$c || exit 1; \
	done
	rm -f $@ && ar rcs $@ $(patsubst Sources/CLinux/%.c,$(FUZZ_DIR)/obj/%.o,$(wildcard Sources/CLinux/*.c))

FUZZ_BASE_SOURCES       := $(shell find Sources/HandoffBase -name '*.swift' | sort)
FUZZ_MODEL_SOURCES      := $(shell find Sources/HandoffModel -name '*.swift' | sort)
FUZZ_RUNTIME_SOURCES    := $(shell find Sources/HandoffRuntime -name '*.swift' | sort)
FUZZ_CONTINUITY_SOURCES := $(shell find Sources/HandoffContinuity -name '*.swift' | sort)
FUZZ_RELAY_SOURCES      := $(shell find Sources/HandoffRelay -name '*.swift' -not -path '*/MQTT/*' | sort)
# The agent's Desktop part without its sd-bus glue, plus the D-Bus name rule it uses.
FUZZ_AGENT_SOURCES      := $(filter-out %/ApplicationActivator+DBusActivating.swift,\
                           $(shell find Sources/HandoffAgent/Desktop -name '*.swift' | sort)) \
                           Sources/HandoffAgent/DesktopBus/DBusApplicationName.swift

FUZZ_JSON_SOURCES       := $(shell find Sources/HandoffJSON -name '*.swift' | sort)
# The bridges' browser wire and the documents bridge's pure parts (the
# rest of HandoffBridges reads the bus); the documents part uses the MPRIS
# bridge's URL rules and activity info, which need no bus either.
FUZZ_BROWSER_SOURCES    := Sources/HandoffBridges/Browser/BrowserMessage.swift Sources/HandoffBridges/Browser/NativeMessageDecoder.swift \
                           $(shell find Sources/HandoffBridges/Documents -name '*.swift' | sort) \
                           Sources/HandoffBridges/MPRIS/MPRISURLRules.swift Sources/HandoffBridges/MPRIS/MPRISActivityInfo.swift

# One static library and module per library target, in dependency order.
fuzz_module = @mkdir -p $(FUZZ_DIR)/modules $(@D) && \
  echo "swiftc (fuzz) $(1)" && \
  $(SWIFTC) $(FUZZ_MODULEFLAGS) -module-name $(1) -emit-module-path $(FUZZ_DIR)/modules/$(1).swiftmodule $(2) -o $@

$(FUZZ_DIR)/lib/libHandoffBase.a: $(FUZZ_BASE_SOURCES) $(FUZZ_DIR)/lib/libCLinux.a $(FUZZ_DIR)/clinux/module.modulemap
	$(call fuzz_module,HandoffBase,$(FUZZ_BASE_SOURCES))

$(FUZZ_DIR)/lib/libHandoffModel.a: $(FUZZ_MODEL_SOURCES) $(FUZZ_DIR)/lib/libHandoffBase.a
	$(call fuzz_module,HandoffModel,$(FUZZ_MODEL_SOURCES))

$(FUZZ_DIR)/lib/libHandoffRuntime.a: $(FUZZ_RUNTIME_SOURCES) $(FUZZ_DIR)/lib/libHandoffModel.a $(FUZZ_DIR)/clinux/module.modulemap
	$(call fuzz_module,HandoffRuntime,$(FUZZ_RUNTIME_SOURCES))

$(FUZZ_DIR)/lib/libHandoffContinuity.a: $(FUZZ_CONTINUITY_SOURCES) $(FUZZ_DIR)/lib/libHandoffRuntime.a $(FUZZ_DIR)/lib/libCLinux.a
	$(call fuzz_module,HandoffContinuity,$(FUZZ_CONTINUITY_SOURCES))

$(FUZZ_DIR)/lib/libHandoffRelay.a: $(FUZZ_RELAY_SOURCES) $(FUZZ_DIR)/lib/libHandoffContinuity.a
	$(call fuzz_module,HandoffRelay,$(FUZZ_RELAY_SOURCES))

$(FUZZ_DIR)/lib/libHandoffAgent.a: $(FUZZ_AGENT_SOURCES) $(FUZZ_DIR)/lib/libHandoffModel.a $(FUZZ_DIR)/lib/libCLinux.a $(FUZZ_DIR)/clinux/module.modulemap
	$(call fuzz_module,HandoffAgent,$(FUZZ_AGENT_SOURCES))

$(FUZZ_DIR)/lib/libHandoffJSON.a: $(FUZZ_JSON_SOURCES)
	$(call fuzz_module,HandoffJSON,$(FUZZ_JSON_SOURCES))

$(FUZZ_DIR)/lib/libHandoffBridges.a: $(FUZZ_BROWSER_SOURCES) $(FUZZ_DIR)/lib/libHandoffJSON.a $(FUZZ_DIR)/lib/libHandoffModel.a
	$(call fuzz_module,HandoffBridges,$(FUZZ_BROWSER_SOURCES))

# -------------------------------------------------------------- targets

$(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_MODEL_TARGETS)): $(FUZZ_DIR)/bin/%: $(FUZZ_SRC)/targets/%.swift $(FUZZ_LIBS_MODEL)
	@mkdir -p $(@D)
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) $< $(FUZZ_LIBS_MODEL) -o $@

$(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_CONTINUITY_TARGETS)): $(FUZZ_DIR)/bin/%: $(FUZZ_SRC)/targets/%.swift $(filter %.a,$(FUZZ_LIBS_CONTINUITY))
	@mkdir -p $(@D)
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) $(filter %.swift,$^) $(FUZZ_LIBS_CONTINUITY) -o $@

# The account and device files' targets share their private store.
$(addprefix $(FUZZ_DIR)/bin/,account-file device-file): $(FUZZ_SRC)/support/store-file.swift

$(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_RELAY_TARGETS)): $(FUZZ_DIR)/bin/%: $(FUZZ_SRC)/targets/%.swift $(filter %.a,$(FUZZ_LIBS_RELAY))
	@mkdir -p $(@D)
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) $< $(FUZZ_LIBS_RELAY) -o $@

$(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_AGENT_TARGETS)): $(FUZZ_DIR)/bin/%: $(FUZZ_SRC)/targets/%.swift $(filter %.a,$(FUZZ_LIBS_AGENT))
	@mkdir -p $(@D)
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) $< $(FUZZ_LIBS_AGENT) -o $@

$(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_BRIDGE_TARGETS)): $(FUZZ_DIR)/bin/%: $(FUZZ_SRC)/targets/%.swift $(FUZZ_LIBS_BRIDGE)
	@mkdir -p $(@D)
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) $< $(FUZZ_LIBS_BRIDGE) -o $@

# The seed writer is a libFuzzer binary too (the modules need its runtime):
# it writes the seeds from LLVMFuzzerInitialize and exits.
$(FUZZ_DIR)/bin/seeds: $(wildcard $(FUZZ_SRC)/tools/*.swift) $(filter %.a,$(FUZZ_LIBS_RELAY))
	@mkdir -p $(@D)
	$(SWIFTC) $(FUZZ_SWIFTFLAGS) $(wildcard $(FUZZ_SRC)/tools/*.swift) $(FUZZ_LIBS_RELAY) -o $@

## fuzz-seeds: rewrite the seed corpora from the library's encoders
fuzz-seeds: $(FUZZ_DIR)/bin/seeds
	rm -rf $(FUZZ_SRC)/corpus
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 FUZZ_SEEDS_DIR=$(FUZZ_SRC)/corpus FUZZ_REGRESSIONS_DIR=$(FUZZ_SRC)/regressions $<

# -------------------------------------------------------------- running

# Inputs larger than any decoder accepts teach the fuzzer nothing.
FUZZ_MAX_LEN := 4096
FUZZ_MAX_LEN_beacon-plaintext := 1280
FUZZ_MAX_LEN_beacon-packet := 1280
FUZZ_MAX_LEN_channel-frames := 2048
FUZZ_MAX_LEN_stream-frames := 2048
FUZZ_MAX_LEN_exchange-message := 2048
FUZZ_MAX_LEN_pairing-code := 256
# A whole pairing conversation is under 400 bytes.
FUZZ_MAX_LEN_pairing-messages := 1024
FUZZ_MAX_LEN_account-file := 512
FUZZ_MAX_LEN_device-file := 512
FUZZ_MAX_LEN_desktop-entry := 8192
FUZZ_MAX_LEN_settings-file := 8192
FUZZ_MAX_LEN_syncthing-config := 16384
FUZZ_MAX_LEN_cloud-config := 8192
FUZZ_MAX_LEN_relay-file := 2048
# A status of a few peers, chunked or not.
FUZZ_MAX_LEN_tailnet-status := 16384
# A pipe frame is at most 16,416 bytes (+1: the topic byte; +1 over the
# limit reaches the size refusal); the pipe target's operations are short.
FUZZ_MAX_LEN_relay-pipe-frame := 16418
FUZZ_MAX_LEN_relay-pipe := 2048
FUZZ_MAX_LEN_relay-device-topic := 1280
# Sender byte + a datagram of up to 65,536 bytes + 1: the size refusal and
# bodies near the re-encoding bound are reachable; -len_control keeps most
# inputs short.
FUZZ_MAX_LEN_agent-message := 65538
# A few frames; one over the 64 KiB limit is skipped by length alone.
FUZZ_MAX_LEN_native-messaging := 8192
# A few bookmarks (the seeds are real files of about 2 KB).
FUZZ_MAX_LEN_recently-used := 16384

fuzz_limit = $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))

## fuzz-TARGET: build and run one fuzz target (Tests/fuzz/targets), e.g. fuzz-bplist
$(addprefix fuzz-,$(FUZZ_TARGETS)): fuzz-%: $(FUZZ_DIR)/bin/%
	@mkdir -p $(FUZZ_DIR)/corpus/$* $(FUZZ_DIR)/artifacts/$*
	@mkdir -p $(FUZZ_TMPDIR)
	TMPDIR=$(FUZZ_TMPDIR) SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=$(FUZZ_ASAN_OPTIONS) $< $(FUZZ_DIR)/corpus/$* $(FUZZ_SRC)/corpus/$* \
	  -dict=$(FUZZ_SRC)/dict/$*.dict -max_len=$(or $(FUZZ_MAX_LEN_$*),$(FUZZ_MAX_LEN)) \
	  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/$*/ $(fuzz_limit) $(FUZZ_FLAGS)
