# SPDX-License-Identifier: MIT OR Apache-2.0
"""Test vectors of docs/PROTOCOL.md §11 (the relay through an MQTT broker),
computed independently of libhandoff from the document's rules: Python's
standard library and the `cryptography` package (HKDF, AES-256-GCM).
test_document_vectors.py compares what it prints with the document.

    python3 Tests/vectors/relay_vectors.py
"""

import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def run(start, n=16):
    return bytes(range(start, start + n))


def hkdf(info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=b"libhandoff v1", info=info).derive(run(0x00, 32))


account_tag = hkdf(b"handoff relay topic v1", 16).hex()
device_a = run(0xA0)
device_d = run(0xD0)


def device_tag(device_id):
    return hkdf(b"handoff relay device v1" + device_id, 16).hex()


gone_key = hkdf(b"handoff relay gone v1", 32)
pipe_id = run(0xC0)

# Gone: version 1, 7 zero bytes, connected (u64), device ID, session.
gone_plaintext = bytes([1]) + bytes(7) + struct.pack(">Q", 1_700_000_000_000) + device_a + run(0xE0)
nonce = run(0x00, 12)
gone_message = nonce + AESGCM(gone_key).encrypt(nonce, gone_plaintext, b"libhandoff relay gone v1")


def frame(kind, seq, ack, window, payload=b"", flags=0):
    return struct.pack(">BBBB", 1, kind, flags, 0) + pipe_id + struct.pack(">III", seq, ack, window) + payload


for name, value in [
    ("relay account tag", account_tag),
    ("relay device tag", device_tag(device_a)),
    ("relay gone key", gone_key.hex()),
    ("relay device topic", f"hoff/{account_tag}/d/{device_tag(device_a)}"),
    ("relay pipe topic", f"hoff/{account_tag}/p/{device_tag(device_a)}/{device_tag(device_d)}/{pipe_id.hex()}"),
    ("relay gone plaintext", gone_plaintext.hex()),
    ("relay gone message", gone_message.hex()),
    ("relay OPEN frame", frame(1, 0, 0, 65536).hex()),
    ("relay DATA frame", frame(2, 1, 1, 65536, b"hello").hex()),
    ("relay RESET frame", frame(5, 2, 1, 0, struct.pack(">H", 3)).hex()),
]:
    print(f"{name}: {value}")
