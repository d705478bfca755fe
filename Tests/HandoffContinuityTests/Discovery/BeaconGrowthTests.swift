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

    // docs/PROTOCOL.md §10's growth vector is recomputed with the rest of
    // the document's (DocumentVectorRegistry, Tests/vectors).
}
