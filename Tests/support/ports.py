# SPDX-License-Identifier: MIT OR Apache-2.0
"""Ports for test processes to listen on: one picker for every suite.

A port is chosen below the kernel's ephemeral range
(/proc/sys/net/ipv4/ip_local_port_range), because a port inside it can be
handed to any outgoing connection between the moment a test finds it free
and the moment its process binds it (seen in CI: "Address already in use"
on a port a test had just checked). Seeded by the caller (the pid), so
parallel suites rarely meet; checked free for UDP and TCP right now."""

import itertools
import socket

_counter = itertools.count()


def _usable_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(x) for x in f.read().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    if low - 10000 >= 4000:
        return 10000, low
    return high + 1, 65536


def free_port(seed):
    """A port outside the ephemeral range, free for UDP (any address) and
    TCP (loopback) on this host right now."""
    first, end = _usable_range()
    span = end - first
    start = seed % span
    for _ in range(2000):
        port = first + (start + next(_counter)) % span
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u, \
                    socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                u.bind(("0.0.0.0", port))
                t.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
    raise RuntimeError(f"no free port in {first}-{end - 1}")
