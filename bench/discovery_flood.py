#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A device that holds the account key floods a receiver with beacons of
5,000 device ids, all naming a TCP port the attacker listens on; prints
the receiver's peak threads, fds and RSS, what is left after the flood,
and how many connections it opened to that port. Loopback only.

    python3 bench/discovery_flood.py [BUILD_DIR] [DEVICES]

BUILD_DIR holds bin/peer and lib/libhandoff.so (default: build).
"""

import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "integration"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "support"))  # keys.py, for beaconkit
import beaconkit  # noqa: E402

build = sys.argv[1] if len(sys.argv) > 1 else "build"
devices = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
key = beaconkit.beacon_key(bytes(range(32)))


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample(pid):
    status = open("/proc/%d/status" % pid).read()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return (int(fields["Threads"]), len(os.listdir("/proc/%d/fd" % pid)),
            int(fields["VmRSS"].split()[0]) // 1024)


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(1024)
attack_port = listener.getsockname()[1]
accepted = [0]
stop = threading.Event()


def accept_loop():
    listener.settimeout(0.2)
    held = []
    while not stop.is_set():
        try:
            c, _ = listener.accept()
        except socket.timeout:
            continue
        accepted[0] += 1
        held.append(c)  # silent: the victim's handshake waits, then fails
        if len(held) > 200:
            held.pop(0).close()
    for c in held:
        c.close()


threading.Thread(target=accept_loop, daemon=True).start()
port = free_port(socket.SOCK_DGRAM)
env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(build, "lib"))
victim = subprocess.Popen([os.path.join(build, "bin", "peer"), "--receive", "--port", str(port),
                           "--timeout", "60"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env=env, text=True)
assert victim.stdout.readline().startswith("ready")
time.sleep(0.5)
before = sample(victim.pid)
peak = list(before)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
started = time.monotonic()
for n in range(devices):
    now = int(time.time() * 1000)
    device = b"\xee" * 12 + n.to_bytes(4, "big")
    plain = beaconkit.plaintext(beaconkit.ADVERT, now, now, device, "flood", attack_port, {
        "id": os.urandom(16), "type": "com.example.peer.activity", "title": "x",
        "team": "PEERTEAM1", "bundle": "com.example.peer"})
    udp.sendto(beaconkit.seal(key, plain), ("127.0.0.1", port))
    if n % 50 == 0:
        peak = [max(a, b) for a, b in zip(peak, sample(victim.pid))]
        time.sleep(0.005)  # the kernel's socket buffer, not the victim, would drop the rest
flood_seconds = time.monotonic() - started
for _ in range(60):  # 6 s after the flood
    peak = [max(a, b) for a, b in zip(peak, sample(victim.pid))]
    time.sleep(0.1)
after = sample(victim.pid)
close_wait = subprocess.run(["ss", "-tanp", "state", "close-wait"], capture_output=True, text=True).stdout
close_wait_count = sum(1 for line in close_wait.splitlines() if "pid=%d," % victim.pid in line)
victim.terminate()
try:
    exit_note = "exited %s on SIGTERM" % victim.wait(timeout=10)
except subprocess.TimeoutExpired:
    victim.kill()
    victim.wait()
    exit_note = "did not exit within 10 s of SIGTERM (killed)"
stop.set()
print("build %s: %d device ids in %.1f s" % (build, devices, flood_seconds))
print("  threads  before %d  peak %d  6 s after %d" % (before[0], peak[0], after[0]))
print("  fds      before %d  peak %d  6 s after %d" % (before[1], peak[1], after[1]))
print("  RSS MB   before %d  peak %d  6 s after %d" % (before[2], peak[2], after[2]))
print("  connections to the attacker's port: %d; victim sockets in CLOSE-WAIT after: %d"
      % (accepted[0], close_wait_count))
print("  the receiver " + exit_note)
