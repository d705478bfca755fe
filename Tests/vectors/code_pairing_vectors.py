# SPDX-License-Identifier: MIT OR Apache-2.0
"""The one-time-code pairing vectors of docs/PROTOCOL.md §9, computed
independently of libhandoff: P-256 in plain Python integers (affine
coordinates; fine for fixed test scalars, never for secrets), HKDF, HMAC
and AES-GCM from Python's `cryptography` package. It first reproduces
RFC 9382's Appendix B vector, so the SPAKE2 here is the RFC's.
CodePairingVectorTests checks the Swift side against the same numbers.

    python3 Tests/vectors/code_pairing_vectors.py
"""

import hashlib
import hmac

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def add(p, q):
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0] and (p[1] + q[1]) % P == 0:
        return None
    if p == q:
        slope = (3 * p[0] * p[0] + A) * pow(2 * p[1], -1, P) % P
    else:
        slope = (q[1] - p[1]) * pow(q[0] - p[0], -1, P) % P
    x = (slope * slope - p[0] - q[0]) % P
    return x, (slope * (p[0] - x) - p[1]) % P


def mul(k, p):
    result = None
    while k:
        if k & 1:
            result = add(result, p)
        p = add(p, p)
        k >>= 1
    return result


def neg(p):
    return p[0], (-p[1]) % P


def decompress(data):
    x = int.from_bytes(data[1:], "big")
    y = pow((x * x * x + A * x + B) % P, (P + 1) // 4, P)
    if y % 2 != data[0] % 2:
        y = P - y
    return x, y


def encode(p):
    return b"\x04" + p[0].to_bytes(32, "big") + p[1].to_bytes(32, "big")


M = decompress(bytes.fromhex("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f"))
NN = decompress(bytes.fromhex("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49"))


def hkdf(ikm, salt, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def spake2(w, x, y, id_a, id_b, aad):
    p_a = add(mul(x, G), mul(w, M))
    p_b = add(mul(y, G), mul(w, NN))
    k = mul(x, add(p_b, neg(mul(w, NN))))
    assert k == mul(y, add(p_a, neg(mul(w, M))))
    tt = b""
    for part in (id_a, id_b, encode(p_a), encode(p_b), encode(k), w.to_bytes(32, "big")):
        tt += len(part).to_bytes(8, "little") + part
    digest = hashlib.sha256(tt).digest()
    kc = hkdf(digest[16:], b"", b"ConfirmationKeys" + aad, 32)
    return dict(pA=encode(p_a), pB=encode(p_b), TT=tt, Ke=digest[:16],
                cA=hmac.new(kc[:16], tt, "sha256").digest(), cB=hmac.new(kc[16:], tt, "sha256").digest())


X = 0x43DD0FD7215BDCB482879FCA3220C6A968E66D70B1356CAC18BB26C84A78D729
Y = 0xDCB60106F276B02606D8EF0A328C02E4B629F84F89786AF5BEFB0BC75B6E66BE

# RFC 9382 Appendix B, first vector.
rfc = spake2(0x2EE57912099D31560B3A44B1184B9B4866E904C49D12AC5042C97DCA461B1A5F, X, Y, b"server", b"client", b"")
assert rfc["cA"].hex() == "58ad4aa88e0b60d5061eb6b5dd93e80d9c4f00d127c65b3b35b1b5281fee38f0"
assert rfc["cB"].hex() == "d3e2e547f1ae04f2dbdbf0fc4b79f8ecff2dff314b5d32fe9fcef2fb26dc459b"


def run(start, n=16):
    return bytes(range(start, start + n))


CODE = "47110828"
session = run(0xC0)
label = b"libhandoff pair code v1"
w = int.from_bytes(hkdf(CODE.encode(), label, b"w", 48), "big") % N
v = spake2(w, X, Y, b"libhandoff sponsor", b"libhandoff joiner", label + session)
salt = hashlib.sha256(v["TT"]).digest()
k_sj = hkdf(v["Ke"], salt, b"pair key s to j", 32)
k_js = hkdf(v["Ke"], salt, b"pair key j to s", 32)
aad = b"libhandoff pair v1 "
key_payload = run(0xD0, 12) + AESGCM(k_sj).encrypt(run(0xD0, 12), run(0x00, 32) + b"laptop", aad + b"key")
accept_payload = run(0xE0, 12) + AESGCM(k_js).encrypt(run(0xE0, 12), b"desktop", aad + b"accept")


def frame(kind, payload):
    return (len(payload) + 1).to_bytes(4, "big") + bytes([kind]) + payload


rows = [
    ("code w", w.to_bytes(32, "big")),
    ("CODE_START frame", frame(0x28, b"\x01" + session + v["pA"])),
    ("CODE_SHARE frame", frame(0x29, v["pB"] + v["cB"])),
    ("CODE_CONFIRM frame", frame(0x2A, v["cA"])),
    ("code kSJ", k_sj),
    ("code kJS", k_js),
    ("code KEY payload", key_payload),
    ("code ACCEPT payload", accept_payload),
]
for name, value in rows:
    print(f"| {name} | `{value.hex()}` |")
