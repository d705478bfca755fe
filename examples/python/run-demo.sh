#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The "create shape" handoff between two Python processes on this machine
# (loopback): a receiver waits, a sender offers a shape, the receiver
# continues and restores it. Both end by themselves; none is left behind.
#   sh examples/python/run-demo.sh [python3] [receiver script]
set -u
python=${1:-python3}
here=$(dirname "$0")
receiver_script=${2:-$here/create_shape_receiver.py}
base=$(( 40000 + $$ % 20000 ))
receiver_port=$base
sender_port=$(( base + 1 ))

# Two devices on one machine: each process its own config directory, hence
# its own device identity (apps of one device ignore each other).
devices=$(mktemp -d "${TMPDIR:-/tmp}/shape-demo.XXXXXX") || exit 1
mkdir -m 700 "$devices/receiver" "$devices/sender"

XDG_CONFIG_HOME="$devices/receiver" "$python" "$receiver_script" --port "$receiver_port" \
    --peer "127.0.0.1:$sender_port" --timeout 20 &
receiver=$!
trap 'kill "$receiver" 2>/dev/null; rm -rf "$devices"' EXIT INT TERM
sleep 0.3
XDG_CONFIG_HOME="$devices/sender" "$python" "$here/create_shape_sender.py" --port "$sender_port" \
    --peer "127.0.0.1:$receiver_port" --shape square --timeout 20
sent=$?
wait "$receiver"
received=$?
trap - EXIT INT TERM
rm -rf "$devices"
if [ "$sent" -eq 0 ] && [ "$received" -eq 0 ]; then
    echo "demo: shape handed off"
    exit 0
fi
echo "demo: handoff failed (sender $sent, receiver $received)" >&2
exit 1
