// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffContinuity
import HandoffTestSupport

/// The primitives the account derivation and the beacons stand on, checked
/// against published vectors: this proves the OpenSSL wiring.
@Suite struct AccountCryptoTests {
    typealias F = AccountFixtures

    /// RFC 5869, Appendix A.1 (Test Case 1, basic test case with SHA-256).
    @Test func hkdfMatchesRFC5869TestCase1() {
        let okm = Crypto.hkdfSHA256(
            key: [UInt8](repeating: 0x0b, count: 22),
            salt: F.bytes("000102030405060708090a0b0c"),
            info: F.bytes("f0f1f2f3f4f5f6f7f8f9"),
            length: 42)
        #expect(
            F.hex(okm)
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    /// FIPS 180-2, Appendix B.1: SHA-256("abc").
    @Test func sha256MatchesFIPS180() {
        #expect(
            F.hex(Crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)",
    /// revised 2005 submission to NIST, Appendix B, Test Case 14 (AES-256,
    /// zero key, zero IV, one zero block, no AAD).
    @Test func aesGCMMatchesGCMSpecTestCase14() {
        let gcm = AESGCM(key: [UInt8](repeating: 0, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        let sealed = gcm.seal([UInt8](repeating: 0, count: 16), aad: [], nonce: nonce)
        #expect(
            F.hex(sealed)
                == "000000000000000000000000" + "cea7403d4d606b6e074ec5d3baf39d18"
                + "d0d1c8a799996bf0265b98b5d48ab919")
        #expect(gcm.open(sealed, aad: []) == [UInt8](repeating: 0, count: 16))
    }

    /// Same source, Test Case 16 (AES-256, 96-bit IV, 60-byte plaintext,
    /// 20-byte AAD).
    @Test func aesGCMMatchesGCMSpecTestCase16() {
        let gcm = AESGCM(key: F.bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
        let nonce = F.bytes("cafebabefacedbaddecaf888")
        let plaintext = F.bytes(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let aad = F.bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let sealed = gcm.seal(plaintext, aad: aad, nonce: nonce)
        let ciphertext =
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
            + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
        let tag = "76fc6ece0f4e1768cddf8853bb2d551b"
        #expect(F.hex(sealed) == "cafebabefacedbaddecaf888" + ciphertext + tag)
        #expect(gcm.open(sealed, aad: aad) == plaintext)
    }

    @Test func aesGCMRejectsEveryTamperedByte() {
        let key = AccountFixtures.sequentialKey.derived.beaconKey
        let gcm = AESGCM(key: key)
        let aad = Array("header".utf8)
        let sealed = gcm.seal(Array("an activity beacon".utf8), aad: aad)
        #expect(gcm.open(sealed, aad: aad) == Array("an activity beacon".utf8))
        for i in sealed.indices {
            for bit: UInt8 in [0x01, 0x80] {
                var tampered = sealed
                tampered[i] ^= bit
                #expect(gcm.open(tampered, aad: aad) == nil, "byte \(i) bit \(bit) altered, yet it opened")
            }
        }
        #expect(gcm.open(sealed, aad: Array("headeR".utf8)) == nil, "other AAD")
        #expect(gcm.open(Array(sealed.dropLast()), aad: aad) == nil, "truncated")
        #expect(AESGCM(key: AccountFixtures.key(seed: 1).derived.beaconKey).open(sealed, aad: aad) == nil, "other key")
    }

    @Test func aesGCMUsesAFreshNonceEachTime() {
        let gcm = AESGCM(key: AccountFixtures.sequentialKey.derived.beaconKey)
        let a = gcm.seal([1, 2, 3], aad: [])
        let b = gcm.seal([1, 2, 3], aad: [])
        #expect(a != b)
        #expect(Array(a[0..<12]) != Array(b[0..<12]))
    }
}
