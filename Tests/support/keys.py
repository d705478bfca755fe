# SPDX-License-Identifier: MIT OR Apache-2.0
"""The account key derivation of docs/PROTOCOL.md §4, for tests that speak
the protocol from Python (beacons, the channel's PSK)."""

import hashlib
import hmac

SALT = b"libhandoff v1"


def hkdf_sha256(ikm, salt, info, length=32):
    """RFC 5869: extract then expand."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def derive(key, label, length=32):
    """The key labelled `label` (b"beacon key", b"channel psk", b"account id")."""
    return hkdf_sha256(key, SALT, label, length)
