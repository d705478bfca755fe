# SPDX-License-Identifier: MIT OR Apache-2.0
"""The pairing test vectors of docs/PROTOCOL.md §9, computed independently of
libhandoff with Python's `cryptography` package (OpenSSL underneath, but
none of libhandoff's code). PairingVectorTests checks the Swift side against
the same numbers.

    python3 Tests/vectors/pairing_vectors.py
"""

import hashlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def run(start, n=16):
    return bytes(range(start, start + n))


def hkdf(ikm, salt, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def public(private):
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


LABEL = b"libhandoff pair v1"
sponsor = X25519PrivateKey.from_private_bytes(run(0x00, 32))
joiner = X25519PrivateKey.from_private_bytes(run(0x20, 32))
pk_s, pk_j = public(sponsor), public(joiner)
n_s, n_j, session = run(0xA0), run(0xB0), run(0xC0)
account_key = run(0x00, 32)
key_nonce, accept_nonce = run(0xD0, 12), run(0xE0, 12)

commitment = hashlib.sha256(b"libhandoff pair commit v1" + pk_s + n_s).digest()
commit = bytes([1]) + session + commitment
share = pk_j + n_j
reveal = pk_s + n_s
th = hashlib.sha256(LABEL + commit + share + reveal).digest()
z = sponsor.exchange(joiner.public_key())
assert z == joiner.exchange(sponsor.public_key())
sas = int.from_bytes(hkdf(pk_s + pk_j + n_s + n_j, LABEL, b"sas" + th, 8), "big") % 1_000_000
k_sj = hkdf(z, th, b"pair key s to j", 32)
k_js = hkdf(z, th, b"pair key j to s", 32)
key_sealed = key_nonce + AESGCM(k_sj).encrypt(key_nonce, account_key + b"laptop", LABEL + b" key")
accept_sealed = accept_nonce + AESGCM(k_js).encrypt(accept_nonce, b"desktop", LABEL + b" accept")
account_id = hkdf(account_key, b"libhandoff v1", b"account id", 8)
done_nonce = run(0xF0, 12)
done_sealed = done_nonce + AESGCM(k_js).encrypt(done_nonce, account_id, LABEL + b" done")


def frame(kind, payload):
    return (1 + len(payload)).to_bytes(4, "big") + bytes([kind]) + payload


for name, value in [
    ("pkS", pk_s), ("pkJ", pk_j), ("commitment C", commitment),
    ("COMMIT frame", frame(0x21, commit)), ("SHARE frame", frame(0x22, share)),
    ("REVEAL frame", frame(0x23, reveal)), ("TH", th), ("Z", z),
    ("kSJ", k_sj), ("kJS", k_js),
]:
    print(f"{name}: {value.hex()}")
print(f"SAS: {sas:06d}")
print(f"KEY payload: {key_sealed.hex()}")
print(f"ACCEPT payload: {accept_sealed.hex()}")
print(f"DONE payload: {done_sealed.hex()}")
