#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Checks the shape of the built library against the header:
#  - NEEDED lists only system libraries (no Swift runtime, Foundation,
#    libdispatch or BlocksRuntime: hosts need no Swift toolchain); libexpat
#    reads XML Info.plists (README, "what libhandoff.so links");
#  - it carries a SONAME;
#  - the exported (global, defined) symbols are exactly the functions the
#    header declares.
# Usage: check_abi.sh path/to/libhandoff.so path/to/handoff.h
set -eu
lib=$1
header=$2
passed=0
failed=0
ok()   { passed=$((passed + 1)); echo "ok   - $1"; }
fail() { failed=$((failed + 1)); echo "FAIL - $1"; }

needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
bad=$(echo "$needed" | grep -Ev '^(libc|libm|libstdc\+\+|libgcc_s|libssl|libcrypto|libexpat|libpthread|libdl|librt|ld-linux[-a-z0-9_]*)\.so' || true)
if [ -z "$bad" ]; then ok "NEEDED has only system libraries: $(echo $needed)"; else fail "unexpected NEEDED: $bad"; fi

if readelf -d "$lib" | grep -q 'SONAME.*libhandoff\.so\.'; then ok "SONAME is set"; else fail "no libhandoff SONAME"; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only --extern-only "$lib" | awk '{print $3}' | sort -u > "$tmp/exported"
grep -oE '\bhandoff_[a-z0-9_]+[[:space:]]*\(' "$header" | tr -d '( \t' | sort -u > "$tmp/declared"

extra=$(comm -23 "$tmp/exported" "$tmp/declared")
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
if [ -z "$extra" ]; then ok "every exported symbol is declared in the header ($(wc -l < "$tmp/exported") symbols)"; else fail "exported but not in the header: $(echo $extra)"; fi
if [ -z "$missing" ]; then ok "every header function is exported"; else fail "declared but not exported: $(echo $missing)"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
