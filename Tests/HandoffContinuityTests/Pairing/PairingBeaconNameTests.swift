// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
import Testing

/// The named pairing beacon (docs/PROTOCOL.md §9 "The joiner's name"): it
/// round-trips, a plain one still parses as before, anything malformed is
/// dropped whole, and the sponsor's table keeps the name with its session.
@Suite struct PairingBeaconNameTests {
    static let session = [UInt8](0xc0...0xcf)

    @Test func aNamedBeaconRoundTripsAndAPlainOneHasNoName() throws {
        let named = PairingBeacon(port: 52380, sessionID: Self.session, name: "Ada's tablet 👩‍💻")
        let bytes = named.encoded()
        #expect(bytes.count == PairingBeacon.size)
        #expect(PairingBeacon.parse(bytes) == named)
        let plain = PairingBeacon(port: 52380, sessionID: Self.session)
        #expect(PairingBeacon.parse(plain.encoded())?.name == nil)
        // The longest name fits, and the padding after it is checked.
        let longest = String(repeating: "é", count: 32)
        var full = PairingBeacon(port: 1, sessionID: Self.session, name: longest).encoded()
        #expect(PairingBeacon.parse(full)?.name == longest)
        full[95] = 1
        #expect(PairingBeacon.parse(full) == nil)
    }

    @Test func malformedNamesDropTheBeacon() {
        func with(_ name: [UInt8], length: Int? = nil) -> [UInt8] {
            var bytes = PairingBeacon(port: 52380, sessionID: Self.session).encoded()
            bytes[28] = UInt8(length ?? name.count)
            for (i, b) in name.enumerated() where 29 + i < bytes.count { bytes[29 + i] = b }
            return bytes
        }
        #expect(PairingBeacon.parse(with(Array("ok".utf8))) != nil)
        #expect(PairingBeacon.parse(with(Array("bad\u{7}".utf8))) == nil)        // a control character
        #expect(PairingBeacon.parse(with([0xff, 0xfe])) == nil)                      // not UTF-8
        #expect(PairingBeacon.parse(with(Array("x".utf8), length: 65)) == nil)      // over 64 bytes
        #expect(PairingBeacon.parse(with(Array("ab".utf8), length: 1)) == nil)      // a byte after the name
    }

    @Test func shownNamesLoseCharactersThatReorderText() {
        #expect(PairingBeacon.shown("Ada\u{202E}tel\u{2066}\u{200F}") == "Adatel")
        #expect(PairingBeacon.shown("Ada's tablet") == "Ada's tablet")
    }

    @Test func theTableKeepsTheNameOfTheSessionThatSentIt() throws {
        var table = PairingSessionTable(limits: PairingLimits(), now: 0)
        _ = table.heard(PairingBeacon(port: 7, sessionID: Self.session, name: "Ada's tablet"), from: "10.0.0.2", now: 0)
        _ = table.heard(PairingBeacon(port: 7, sessionID: Self.session), from: "10.0.0.2", now: 0.1)
        // Someone else's beacon for the same session from another address names nothing of ours.
        _ = table.heard(PairingBeacon(port: 7, sessionID: Self.session, name: "Mallory"), from: "10.0.0.66", now: 0.2)
        var picks: [PairingSessionTable.Candidate] = []
        for step in 0..<4 { if let pick = table.next(now: 0.3 + Double(step) * 3) { picks.append(pick) } }
        let genuine = try #require(picks.first { $0.host == "10.0.0.2" })
        #expect(table.name(of: genuine) == "Ada's tablet")
        let other = try #require(picks.first { $0.host == "10.0.0.66" })
        #expect(table.name(of: other) == "Mallory")
    }
}
