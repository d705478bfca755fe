#!/bin/sh
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

"$mapoff" receive --port "$receiver_port" --peer "127.0.0.1:$sender_port" --timeout 20 &
receiver=$!
trap 'kill "$receiver" 2>/dev/null' EXIT INT TERM
sleep 0.3
"$mapoff" send --port "$sender_port" --peer "127.0.0.1:$receiver_port" --timeout 20
sent=$?
wait "$receiver"
received=$?
trap - EXIT INT TERM
if [ "$sent" -eq 0 ] && [ "$received" -eq 0 ]; then
    echo "demo: handoff complete"
    exit 0
fi
echo "demo: handoff failed (sender $sent, receiver $received)" >&2
exit 1
