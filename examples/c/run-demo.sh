#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# make demo: a real handoff between two processes on this machine. A MapOff
# receiver waits; a MapOff sender offers its map viewport; the receiver sees
# it through encrypted beacons on loopback, fetches it over TLS 1.3 and
# restores it. Both processes end by themselves; none is left behind.
set -u
mapoff=${1:-build/bin/mapoff}
# Two free-ish UDP ports for the beacons, one per process.
base=$(( 40000 + $$ % 20000 ))
receiver_port=$base
sender_port=$(( base + 1 ))
# Two devices on one machine: each process its own config directory, so
# each has its own device identity (apps of one device ignore each other).
devices=$(mktemp -d "${TMPDIR:-/tmp}/mapoff-demo.XXXXXX") || exit 1
mkdir -m 700 "$devices/receiver" "$devices/sender"

XDG_CONFIG_HOME="$devices/receiver" "$mapoff" receive --port "$receiver_port" \
    --peer "127.0.0.1:$sender_port" --timeout 20 &
receiver=$!
trap 'kill "$receiver" 2>/dev/null; rm -rf "$devices"' EXIT INT TERM
sleep 0.3
XDG_CONFIG_HOME="$devices/sender" "$mapoff" send --port "$sender_port" \
    --peer "127.0.0.1:$receiver_port" --timeout 20
sent=$?
wait "$receiver"
received=$?
trap - EXIT INT TERM
rm -rf "$devices"
if [ "$sent" -eq 0 ] && [ "$received" -eq 0 ]; then
    echo "demo: handoff complete"
    exit 0
fi
echo "demo: handoff failed (sender $sent, receiver $received)" >&2
exit 1
