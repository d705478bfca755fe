# SPDX-License-Identifier: MIT OR Apache-2.0
"""Test vectors of docs/PROTOCOL.md §4, §5, §6, §8 and §9's pairing beacon,
computed independently of libhandoff from the document's rules: Python's
standard library and the `cryptography` package (AES-256-GCM, HKDF).
test_document_vectors.py compares what it prints with the document; the
Swift suite (DocumentVectorTests) recomputes the same vectors with the
library's own code.

    python3 Tests/vectors/protocol_vectors.py
"""

import hashlib
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def run(start, n=16):
    return bytes(range(start, start + n))


def hkdf(ikm, salt, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


# §4: derivations and the pairing code.
account_key = run(0x00, 32)
salt = b"libhandoff v1"
beacon_key = hkdf(account_key, salt, b"beacon key", 32)
channel_psk = hkdf(account_key, salt, b"channel psk", 32)
account_id = hkdf(account_key, salt, b"account id", 8)
checksum = hashlib.sha256(account_key).digest()[:4]


def pairing_code(key):
    bits = int.from_bytes(key + hashlib.sha256(key).digest()[:4], "big") << 2  # 288 bits + 2 zero bits
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    symbols = "".join(alphabet[(bits >> (5 * (57 - i))) & 31] for i in range(58))
    return "-".join(symbols[i:i + 5] for i in range(0, 58, 5))


# §5: beacons.
def string(text):
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def beacon(kind, sequence, activity=None, optional_flags=0, extensions=()):
    flags = (0x02 if activity else 0) | optional_flags
    out = struct.pack(">BBBBQQ", 1, kind, 1, flags, 1_700_000_000_000, sequence)
    out += run(0xA0) + struct.pack(">H", 52371) + string("Test Device")
    if activity:
        out += run(0xB0) + b"".join(string(s) for s in activity) + string("") + struct.pack(">Q", 0)
    for kind_, value in extensions:  # §10: type u8, length u16, value
        out += struct.pack(">BH", kind_, len(value)) + value
    return out + bytes(-len(out) % 64)


def seal(plaintext):
    nonce = run(0x00, 12)
    return nonce + AESGCM(run(0x00, 32)).encrypt(nonce, plaintext, b"libhandoff beacon v1")


advert = beacon(1, 1, ["com.example.mapoff.view-region", "Cupertino", "A1B2C3D4E5", "com.example.mapoff"])
solicitation = beacon(3, 2)
presence = beacon(4, 3)  # revision 3: device fields only, flags 0
# §10: the same advert as a later revision might send it.
grown = beacon(1, 1, ["com.example.mapoff.view-region", "Cupertino", "A1B2C3D4E5", "com.example.mapoff"],
               optional_flags=0x80, extensions=[(0x7F, b"future")])


# §6, §8: frames.
def frame(kind, payload=b""):
    return struct.pack(">IB", 1 + len(payload), kind) + payload


# §9: the pairing beacon.
pairing_beacon = b"HOFFPAIR" + bytes([1, 1]) + struct.pack(">H", 52380) + run(0xC0) + bytes(68)
joiner_name = "Ada's tablet".encode()
named_pairing_beacon = (b"HOFFPAIR" + bytes([1, 1]) + struct.pack(">H", 52380) + run(0xC0) + bytes([len(joiner_name)])
                        + joiner_name + bytes(67 - len(joiner_name)))

for name, value in [
    ("beacon key", beacon_key), ("channel PSK", channel_psk), ("account ID", account_id), ("checksum", checksum),
    ("advert plaintext", advert), ("advert packet", seal(advert)),
    ("solicitation plaintext", solicitation), ("solicitation packet", seal(solicitation)),
    ("presence plaintext", presence), ("presence packet", seal(presence)),
    ("growth plaintext", grown), ("growth packet", seal(grown)),
    ("FETCH frame", frame(0x01, run(0x00))),
    ("STREAM_OPEN frame", frame(0x05, run(0xB0))), ("STREAM_ACCEPTED frame", frame(0x06)),
    ("DATA frame", frame(0x07, b"hello")), ("END frame", frame(0x08)),
    ("pairing beacon", pairing_beacon), ("named pairing beacon", named_pairing_beacon),
]:
    print(f"{name}: {value.hex()}")
print(f"pairing code: {pairing_code(account_key)}")
