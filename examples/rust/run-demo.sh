#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# make demo-rust: the DocEdit pair hands off a document being edited between
# two processes on this machine (loopback), twice:
#  1. both devices reach one document library (a temporary folder standing
#     in for synced documents): only the document's identifier and the
#     cursor travel, and the receiver opens the document from the library;
#  2. the receiver's library is empty (not synced yet): it fetches the
#     document from the sender over a continuation stream, then opens it.
# The receiver waits; the sender opens "Meeting notes" and offers what the
# person is doing; the receiver continues it and shows the sender's cursor.
# Every process ends by itself; none is left behind, nor any library.
#
# Usage: run-demo.sh [DIR-WITH-doc_sender-AND-doc_receiver]
# (the pair is the Rust crate's examples: bindings/rust/examples)
set -u
bin=${1:-build/rust/debug/examples}
work=$(mktemp -d "${TMPDIR:-/tmp}/handoff-docedit.XXXXXX") || exit 1
receiver=
trap '[ -n "$receiver" ] && kill "$receiver" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
# Two UDP ports for the beacons, one per process.
base=$(( 40000 + $$ % 20000 ))

# handoff ROUND SENDER-LIBRARY RECEIVER-LIBRARY: 0 when both ends succeed.
handoff() {
    receiver_port=$(( base + 2 * $1 ))
    sender_port=$(( receiver_port + 1 ))
    # Two devices on one machine: each process its own config directory,
    # hence its own device identity (apps of one device ignore each other).
    mkdir -p -m 700 "$work/devices/receiver" "$work/devices/sender"
    XDG_CONFIG_HOME="$work/devices/receiver" "$bin/doc_receiver" --port "$receiver_port" \
        --peer "127.0.0.1:$sender_port" --library "$3" --timeout 20 > "$work/receiver.out" &
    receiver=$!
    sleep 0.3
    XDG_CONFIG_HOME="$work/devices/sender" "$bin/doc_sender" --port "$sender_port" \
        --peer "127.0.0.1:$receiver_port" --library "$2" --timeout 20
    sent=$?
    wait "$receiver"
    received=$?
    receiver=
    cat "$work/receiver.out"
    [ "$sent" -eq 0 ] && [ "$received" -eq 0 ] && return 0
    echo "demo-rust: handoff $1 failed (sender $sent, receiver $received)" >&2
    return 1
}

echo "demo-rust: 1. one shared document library"
handoff 1 "$work/shared" "$work/shared" || exit 1
if grep -q "continuation stream" "$work/receiver.out"; then
    echo "demo-rust: the document travelled although the library had it" >&2
    exit 1
fi
echo
echo "demo-rust: 2. the receiver's library lacks the document"
handoff 2 "$work/sender" "$work/receiver" || exit 1
if ! grep -q "fetched .* bytes over a continuation stream" "$work/receiver.out" \
   || ! cmp -s "$work/sender/meeting-notes-7f3a.txt" "$work/receiver/meeting-notes-7f3a.txt"; then
    echo "demo-rust: the document did not arrive over a continuation stream" >&2
    exit 1
fi
echo "demo-rust: handoff complete, from a shared library and over a continuation stream"
