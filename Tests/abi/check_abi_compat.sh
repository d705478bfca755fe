#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The C ABI against the previous release's (docs/PROTOCOL.md §10): a program built
# against that release runs on this library unchanged.
#  - the SONAME is the same (a break would need libhandoff.so.1);
#  - abidiff (libabigail) on the two libraries: no exported function is
#    removed (new ones are fine);
#  - abidiff on two "probes", one compiled against each header: for every
#    function of the previous release a variable of its exact type, with
#    debug information, so a changed parameter, return type, enum or struct
#    layout (the delegate structs hosts fill in) shows as a changed variable.
#    A change meant to be compatible (a member appended to a struct whose
#    `size` field versions it) goes into Tests/abi/compat.suppr (libabigail
#    suppression syntax) with a comment saying why.
# Usage: check_abi_compat.sh OLD_RELEASE_DIR NEW_LIB NEW_HEADER
#   (OLD_RELEASE_DIR as scripts/build-release.sh makes it: lib/, include/)
set -eu
old=$1
new_lib=$2
new_header=$3
old_lib=$old/lib/libhandoff.so.0
old_header=$old/include/handoff.h
passed=0
failed=0
ok()   { passed=$((passed + 1)); echo "ok   - $1"; }
fail() { failed=$((failed + 1)); echo "FAIL - $1"; }
command -v abidiff >/dev/null || { echo "abidiff missing: apt-get install abigail-tools (scripts/install-deps.sh)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
if [ "$(soname "$old_lib")" = "$(soname "$new_lib")" ]; then ok "SONAME unchanged: $(soname "$new_lib")"
else fail "SONAME $(soname "$old_lib") -> $(soname "$new_lib")"; fi

# abidiff's exit status is a bit field: 1 error, 2 usage, 4 ABI change
# (additions count), 8 incompatible change (a removal).
status=0
abidiff --no-show-locs "$old_lib" "$new_lib" >"$tmp/libs.txt" 2>&1 || status=$?
added=$(grep -c "^  \[A\]" "$tmp/libs.txt" || true)
if [ $((status & 11)) -eq 0 ]; then ok "abidiff libraries: no symbol removed ($added added)"
else fail "abidiff libraries (status $status):"; cat "$tmp/libs.txt"; fi

# The probes: the previous release's functions, typed by each header.
nm -D --defined-only --extern-only "$old_lib" | awk '$3 ~ /^handoff_/ {print $3}' | sort -u >"$tmp/functions"
probe() {
    {
        echo "#include <handoff.h>"
        while read -r f; do echo "__typeof__($f) *const probe_$f = $f;"; done <"$tmp/functions"
    } >"$tmp/probe-$1.c"
    cc -std=gnu11 -w -g -fno-eliminate-unused-debug-types -shared -fPIC -I"$2" -o "$tmp/probe-$1.so" "$tmp/probe-$1.c" \
        2>"$tmp/probe-$1.err"
}
mkdir -p "$tmp/old-include" "$tmp/new-include"
cp "$old_header" "$tmp/old-include/handoff.h"
cp "$new_header" "$tmp/new-include/handoff.h"
if ! probe old "$tmp/old-include"; then fail "the previous release's header does not compile:"; cat "$tmp/probe-old.err"
elif ! probe new "$tmp/new-include"; then fail "a function of the previous release is missing from the header or changed incompatibly:"; cat "$tmp/probe-new.err"
else
    status=0
    abidiff --no-show-locs --suppressions "$(dirname "$0")/compat.suppr" "$tmp/probe-old.so" "$tmp/probe-new.so" \
        >"$tmp/probes.txt" 2>&1 || status=$?
    summary=$(grep -m1 'Variables changes summary' "$tmp/probes.txt" | sed 's/^ *//')
    if [ "$status" -eq 0 ]; then ok "every function of the previous release keeps its exact type ($(wc -l <"$tmp/functions") functions)"
    else fail "types changed (abidiff status $status, $summary):"; cat "$tmp/probes.txt"; fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
