// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The presence beacon (kind 4, protocol revision 3; docs/PROTOCOL.md §5):
/// device fields only, flags 0 or 0x01 (leaving), strict like every kind.
@Suite struct PresenceBeaconTests {
    let key = BeaconFixtures.key

    static func presence(leaving: Bool = false, role: DeviceRole = .full) -> Beacon {
        Beacon(kind: .presence, timestamp: 1_700_000_000_000, sequence: 3, deviceID: Array(0xA0...0xAF),
               deviceName: "Jürgen’s ThinkPad", role: role, channelPort: 52371, activity: nil, leaving: leaving)
    }

    @Test(arguments: [false, true]) func roundTrips(leaving: Bool) throws {
        for role: DeviceRole in [.full, .sendOnly] {
            let b = Self.presence(leaving: leaving, role: role)
            let packet = try BeaconCodec.seal(b, key: key)
            #expect(packet.count == BeaconCodec.minPacketSize)  // as small as a solicitation
            #expect(BeaconCodec.open(packet, key: key) == b)
            let plaintext = try BeaconCodec.encode(b)
            #expect(plaintext[1] == 4 && plaintext[3] == (leaving ? 0x01 : 0x00))
        }
    }

    @Test func sealRefusesAnActivityOrLeavingOnAnotherKind() {
        var withActivity = Self.presence()
        withActivity.activity = .withdrawal(of: Array(repeating: 1, count: 16))
        #expect(throws: HandoffError.self) { try BeaconCodec.seal(withActivity, key: key) }
        for kind: Beacon.Kind in [.solicit, .withdraw] {
            var b = Self.presence(leaving: true)
            b.kind = kind
            #expect(throws: HandoffError.self) { try BeaconCodec.seal(b, key: key) }
        }
    }

    @Test func onlyItsOwnFlagAndTheOptionalOnesAreAccepted() {
        func opens(_ flags: UInt8) -> Beacon? {
            var p = BeaconPlaintext.header(kind: 4, flags: flags); p.pad()
            return BeaconCodec.open(BeaconPlaintext.seal(p.bytes), key: key)
        }
        #expect(opens(0x00)?.leaving == false)
        #expect(opens(0x01)?.leaving == true)
        // The optional flags of a later revision are ignored (§10).
        #expect(opens(0x10)?.leaving == false && opens(0x81)?.leaving == true)
        // No activity id (0x02), reserved 0x04 and 0x08: dropped.
        for flags: UInt8 in [0x02, 0x03, 0x04, 0x08, 0x0C, 0x12] { #expect(opens(flags) == nil) }
        // An activity id after the name (as if 0x02 were allowed) reads as
        // an extension that runs past the end: dropped.
        var p = BeaconPlaintext.header(kind: 4, flags: 0)
        p.raw(Array(repeating: 0x22, count: 16)); p.pad()
        #expect(BeaconCodec.open(BeaconPlaintext.seal(p.bytes), key: key) == nil)
        // Padding of 64 bytes or a non-zero padding byte: dropped.
        var long = BeaconPlaintext.header(kind: 4, flags: 0); long.pad(); long.raw(Array(repeating: 0, count: 64))
        #expect(BeaconCodec.open(BeaconPlaintext.seal(long.bytes), key: key) == nil)
        var dirty = BeaconPlaintext.header(kind: 4, flags: 0); dirty.pad(); dirty.bytes[dirty.bytes.count - 1] = 1
        #expect(BeaconCodec.open(BeaconPlaintext.seal(dirty.bytes), key: key) == nil)
    }

    @Test func everyBitFlipAndTruncationIsRejected() throws {
        let packet = try BeaconCodec.seal(Self.presence(leaving: true), key: key)
        for i in packet.indices {
            var p = packet
            p[i] ^= 0x01
            #expect(BeaconCodec.open(p, key: key) == nil)
        }
        for n in [0, 1, 91, packet.count - 1] { #expect(BeaconCodec.open(Array(packet.prefix(n)), key: key) == nil) }
    }

    /// A revision-2 receiver (this codec with kind 4 unknown) drops it: the
    /// kind byte is what it checks, as every revision does.
    @Test func anUnknownKindIsStillDropped() {
        for kind: UInt8 in [5, 6, 255] {
            var p = BeaconPlaintext.header(kind: kind, flags: 0); p.pad()
            #expect(BeaconCodec.open(BeaconPlaintext.seal(p.bytes), key: key) == nil)
        }
    }
}
