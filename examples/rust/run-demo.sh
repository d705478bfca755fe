#!/bin/sh
# make demo-rust: the DocEdit pair hands off a document being edited between
# two processes on this machine (loopback). The receiver waits; the sender
# opens "Meeting notes" from a document library (a temporary folder standing
# in for synced documents) and offers what the person is doing; the receiver
# continues it and opens the same document from the library at the sender's
# cursor. Only the document's identifier and the cursor travel. Both
# processes end by themselves; none is left behind, nor the library.
#
# Usage: run-demo.sh [DIR-WITH-doc_sender-AND-doc_receiver]
set -u
bin=${1:-build/rust/debug/examples}
library=$(mktemp -d "${TMPDIR:-/tmp}/handoff-docedit.XXXXXX") || exit 1
# Two UDP ports for the beacons, one per process.
base=$(( 40000 + $$ % 20000 ))
receiver_port=$base
sender_port=$(( base + 1 ))

"$bin/doc_receiver" --port "$receiver_port" --peer "127.0.0.1:$sender_port" \
    --library "$library" --timeout 20 &
receiver=$!
trap 'kill "$receiver" 2>/dev/null; rm -rf "$library"' EXIT INT TERM
sleep 0.3
"$bin/doc_sender" --port "$sender_port" --peer "127.0.0.1:$receiver_port" \
    --library "$library" --timeout 20
sent=$?
wait "$receiver"
received=$?
if [ "$sent" -eq 0 ] && [ "$received" -eq 0 ]; then
    echo "demo-rust: handoff complete"
    exit 0
fi
echo "demo-rust: handoff failed (sender $sent, receiver $received)" >&2
exit 1
