#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Each delegate field name of 0.1.0 still compiles but warns, naming the
# field that replaces it (include/handoff.h, HANDOFF_RENAMED_FIELD_), in C
# and in C++; with -Werror, code using one fails to build.
# Usage: check_deprecated_names.sh CC CXX INCLUDE_DIR
set -eu
cc=$1
cxx=$2
include=$3
here=$(dirname "$0")
source=$here/test_delegate_names.c
passed=0
failed=0
ok()   { passed=$((passed + 1)); echo "ok   - $1"; }
fail() { failed=$((failed + 1)); echo "FAIL - $1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# old new, one pair a line.
pairs="will_save user_activity_will_save
was_continued user_activity_was_continued
did_receive_stream user_activity_did_receive_stream
did_fail_to_hand_off user_activity_did_fail_to_hand_off
will_continue will_continue_user_activity
continue_activity continue_user_activity
did_fail_to_continue did_fail_to_continue_user_activity
did_update did_update_user_activity"

check_language() { # name compiler flags...
    name=$1
    shift
    if LC_ALL=C "$@" -fsyntax-only -DSHOW_DEPRECATED -Wdeprecated-declarations -I"$include" "$source" \
        > "$tmp/$name.out" 2>&1; then
        ok "$name: old names compile"
    else
        fail "$name: old names do not compile:"; cat "$tmp/$name.out"
    fi
    echo "$pairs" | while read -r old new; do
        if grep -Eq "'([A-Za-z_:<> ]*::)?$old' is deprecated: renamed $new" "$tmp/$name.out"; then
            echo "ok   - $name: $old warns: renamed $new"
        else
            echo "FAIL - $name: no warning \"'$old' is deprecated: renamed $new\""
        fi
    done > "$tmp/$name.names"
    cat "$tmp/$name.names"
    passed=$((passed + $(grep -c '^ok' "$tmp/$name.names" || true)))
    failed=$((failed + $(grep -c '^FAIL' "$tmp/$name.names" || true)))
    if LC_ALL=C "$@" -fsyntax-only -DSHOW_DEPRECATED -Werror=deprecated-declarations -I"$include" "$source" \
        > /dev/null 2>&1; then
        fail "$name: -Werror does not stop code using an old name"
    else
        ok "$name: -Werror stops code using an old name"
    fi
}

check_language C "$cc" -std=c11
check_language C++ "$cxx" -std=c++17 -x c++

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
