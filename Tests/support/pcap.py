# SPDX-License-Identifier: MIT OR Apache-2.0
"""Reads what tcpdump writes (`-w FILE`: the classic pcap format, Ethernet
frames), enough for tests to ask who talked to whom and whether some bytes
crossed the wire in the clear."""

import collections
import ipaddress
import struct

Packet = collections.namedtuple("Packet", "src dst proto sport dport payload")


def ipv4_packets(pcap):
    """The IPv4 packets of a pcap file's bytes (Ethernet frames, as tcpdump
    writes from a bridge or veth): Packet(src, dst, proto, sport, dport,
    payload), ports and payload for TCP and UDP only (else 0, 0, b"")."""
    if len(pcap) < 24:
        return []
    magic = pcap[:4]
    order = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    assert struct.unpack(order + "I", magic)[0] in (0xa1b2c3d4, 0xa1b23c4d), "not a pcap file"
    assert struct.unpack(order + "I", pcap[20:24])[0] == 1, "not Ethernet frames"
    packets, at = [], 24
    while at + 16 <= len(pcap):
        length = struct.unpack(order + "I", pcap[at + 8:at + 12])[0]
        frame, at = pcap[at + 16:at + 16 + length], at + 16 + length
        if len(frame) < 34 or frame[12:14] != b"\x08\x00":
            continue
        ip = frame[14:]
        header, proto = (ip[0] & 15) * 4, ip[9]
        total = struct.unpack(">H", ip[2:4])[0]
        src, dst = str(ipaddress.IPv4Address(ip[12:16])), str(ipaddress.IPv4Address(ip[16:20]))
        body = ip[header:total]
        sport = dport = 0
        payload = b""
        if proto == 6 and len(body) >= 20:
            sport, dport = struct.unpack(">HH", body[:4])
            payload = body[(body[12] >> 4) * 4:]
        elif proto == 17 and len(body) >= 8:
            sport, dport = struct.unpack(">HH", body[:4])
            payload = body[8:]
        packets.append(Packet(src, dst, proto, sport, dport, payload))
    return packets
