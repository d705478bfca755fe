// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// How beacons grow (docs/PROTOCOL.md §10): a receiver of this revision
/// ignores the extensions and optional flags a later one may add, and
/// stays strict about everything else.
@Suite struct BeaconGrowthTests {
    let key = BeaconFixtures.key

    func opens(_ plaintext: [UInt8]) -> Beacon? { BeaconCodec.open(BeaconPlaintext.seal(plaintext), key: key) }

    static let solicit = Beacon(kind: .solicit, timestamp: 1_700_000_000_000, sequence: 2, deviceID: Array(0xA0...0xAF),
                                deviceName: "Test Device", role: .full, channelPort: 52371, activity: nil)
    static let withdrawal = Beacon(kind: .withdraw, timestamp: 1_700_000_000_000, sequence: 3, deviceID: Array(0xA0...0xAF),
                                   deviceName: "Test Device", role: .full, channelPort: 52371,
                                   activity: .withdrawal(of: Array(0xB0...0xBF)))

    @Test func extensionsAndOptionalFlagsAreIgnoredInEveryKind() throws {
        let future = [BeaconExtension(type: 0x7F, value: Array("future".utf8)), BeaconExtension(type: 1, value: []),
                      BeaconExtension(type: 0xFF, value: [0, 0, 0])]
        for beacon in [BeaconFixtures.vectorAdvert, Self.solicit, Self.withdrawal] {
            let plain = try BeaconCodec.encode(beacon)
            let grown = try BeaconCodec.encode(beacon, extensions: future, optionalFlags: 0x90)
            #expect(grown != plain)
            #expect(opens(grown) == beacon, "\(beacon.kind)")
            let parsed = try #require(BeaconCodec.parseIgnoring(grown))
            #expect(parsed.ignored && parsed.beacon == beacon)
            #expect(BeaconCodec.parseIgnoring(plain)?.ignored == false)
        }
    }

    /// This release sends nothing a revision-1 receiver (0.1.0) drops: no
    /// extension, no optional flag — its beacons parse strictly.
    @Test func whatThisReleaseSealsIsRevisionOne() throws {
        for beacon in [BeaconFixtures.vectorAdvert, Self.solicit, Self.withdrawal] {
            let plain = try BeaconCodec.encode(beacon)
            #expect(plain[3] & BeaconCodec.optionalFlags == 0)
            #expect(BeaconCodec.parseIgnoring(plain)?.ignored == false)
        }
    }

    @Test func anExtensionRunningPastTheEndIsDropped() throws {
        // A length past the end of the plaintext.
        var p = BeaconPlaintext.advert(pad: false) + [0x05, 0x00, 0xFF]
        while p.count % 64 != 0 { p.append(0) }
        #expect(opens(p) == nil)
        // A type (or a type and half a length) that the end of the block
        // cuts off: the fields are made to end 1 (2) bytes before it.
        let base = BeaconPlaintext.advert(pad: false).count
        for (left, tail) in [(1, [UInt8(0x05)]), (2, [0x05, 0x00])] {
            let title = [UInt8](repeating: UInt8(ascii: "t"), count: (64 - left - base % 64 + 64) % 64)
            let fields = BeaconPlaintext.advert(title: title, pad: false)
            #expect(fields.count % 64 == 64 - left)
            #expect(opens(fields + tail) == nil, "\(left) bytes left")
        }
    }

    @Test func anExtensionFillingTheBlockExactlyNeedsNoPadding() throws {
        let unpadded = BeaconPlaintext.advert(pad: false)
        let room = 64 - unpadded.count % 64
        guard room >= 3 else { return }
        let p = unpadded + [0x42, 0x00, UInt8(room - 3)] + [UInt8](repeating: 0xEE, count: room - 3)
        #expect(p.count % 64 == 0)
        #expect(opens(p) != nil)
    }

    @Test func afterThePaddingStartsNothingButZerosFollows() throws {
        let unpadded = BeaconPlaintext.advert(pad: false)
        var p = unpadded + [0x00, 0x42, 0x00, 0x00]  // an "extension" after the first zero
        while p.count % 64 != 0 { p.append(0) }
        #expect(opens(p) == nil)
        // ...and the padding is still shorter than a block.
        var q = unpadded + [0x42, 0x00, 0x00]
        while q.count % 64 != 0 { q.append(0) }
        #expect(opens(q) != nil)
        #expect(opens(q + [UInt8](repeating: 0, count: 64)) == nil)
    }

    @Test func reservedFlagsStillDropTheBeacon() throws {
        for reserved: UInt8 in [0x04, 0x08] {
            #expect(opens(BeaconPlaintext.advert(flags: 0x02 | reserved)) == nil)
            #expect(throws: HandoffError.self) { try BeaconCodec.encode(BeaconFixtures.vectorAdvert, optionalFlags: reserved) }
        }
    }

    /// Many small extensions cost work linear in the plaintext.
    @Test func manyEmptyExtensionsParse() throws {
        let many = [BeaconExtension](repeating: BeaconExtension(type: 9, value: []), count: 300)
        let grown = try BeaconCodec.encode(BeaconFixtures.vectorAdvert, extensions: many)
        #expect(BeaconCodec.parse(grown) == BeaconFixtures.vectorAdvert)
    }

    /// docs/PROTOCOL.md §10's growth vector: the §5 advert as a later
    /// revision might send it, with an extension and an optional flag.
    @Test func growthVector() throws {
        let grown = try BeaconCodec.encode(BeaconFixtures.vectorAdvert,
                                           extensions: [BeaconExtension(type: 0x7F, value: Array("future".utf8))],
                                           optionalFlags: 0x80)
        let packet = AESGCM(key: key).seal(grown, aad: BeaconCodec.associatedData, nonce: BeaconFixtures.nonce)
        #expect(beaconHex(grown) == Self.growthPlaintextHex)
        #expect(beaconHex(packet) == Self.growthPacketHex)
        #expect(BeaconCodec.open(packet, key: key) == BeaconFixtures.vectorAdvert)
    }

    /// Computed independently from the documented layout (Python: struct,
    /// and AESGCM of the `cryptography` package).
    static let growthPlaintextHex =
        "010101820000018bcfe568000000000000000001a0a1a2a3a4a5a6a7a8a9aaabacadaeafcc93000b5465737420446576"
        + "696365b0b1b2b3b4b5b6b7b8b9babbbcbdbebf001e636f6d2e6578616d706c652e6d61706f66662e766965772d726567"
        + "696f6e0009437570657274696e6f000a413142324333443445350012636f6d2e6578616d706c652e6d61706f66660000"
        + "00000000000000007f000666757475726500000000000000000000000000000000000000000000000000000000000000"
    static let growthPacketHex =
        "000102030405060708090a0b4603d799c5e5c39042a4ff8bb1e9786d83d6873550dafddf9cc24322b5c0aa19adbd0053"
        + "6352129320c10c99a8c34d4e873a053deb64106e8a219da1a1594e524d82797acdb2490c3231d20f82ff628d16e7a812"
        + "190535468b94fbbb5582dceaa29737e6ad02bd6afb6e4adb261a2175fb562099a0f661ae08ca57dfe1890320de2a61ab"
        + "c4bbae7d658038ce5bbc4cc236f4e3353511934af35fee118fa69c9cf6979e15e9ffcc7ea763ddfadf8086bb9dceca22"
        + "8bab73bc65dfc0c771c5b7f3a2c75d65efc2e9f8f2f72a917962f9da"
}
