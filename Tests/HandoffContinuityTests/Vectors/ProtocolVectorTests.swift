// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// docs/PROTOCOL.md's test vectors, read from the document itself and
/// recomputed, so the specification and the code cannot drift apart.
@Suite struct ProtocolVectorTests {
    static var document: String { ProtocolDocument.text }

    /// The text of section `number` ("## 4. ...") up to the next section.
    func section(_ number: Int) throws -> String {
        try #require(ProtocolDocument.section(number), "PROTOCOL.md has no section \(number)")
    }

    /// The backquoted value in the table row whose first cell is `name`.
    func row(_ name: String, in text: String) throws -> String {
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("| \(name) |") }, "no row \(name)")
        let cells = line.split(separator: "`")
        return String(try #require(cells.count >= 2 ? cells[1] : nil))
    }

    /// The hex of the indented block that follows the line starting with `marker`.
    func hexBlock(after marker: String, in text: String) throws -> [UInt8] {
        try #require(ProtocolDocument.hexBlock(after: marker, in: text), "no hex block after \(marker)")
    }

    func decodeHex(_ s: String) -> [UInt8]? { ProtocolDocument.bytes(hex: s) }

    @Test func documentIsFound() {
        #expect(Self.document.contains("# libhandoff wire protocol"))
    }

    @Test func accountDerivationVectors() throws {
        let text = try #require(try section(4).components(separatedBy: "### Test vector").last)
        let key = try AccountKey(bytes: Array(0...31))
        #expect(try decodeHex(row("beacon key", in: text)) == key.derived.beaconKey)
        #expect(try decodeHex(row("channel PSK", in: text)) == key.derived.channelPSK)
        #expect(try row("account ID", in: text) == key.derived.accountID)
        #expect(try row("checksum", in: text) == hexString(Array(Crypto.sha256(key.bytes).prefix(4))))
        #expect(try row("pairing code", in: text) == key.pairingCode)
        #expect(try AccountKey(pairingCode: row("pairing code", in: text)) == key)
    }

    @Test func sealedBeaconVector() throws {
        let text = try section(5)
        let expected = try hexBlock(after: "Vector `advert packet`", in: text)
        let beacon = DocumentVectorRegistry.testBeacon(.advert, sequence: 1)
        let key: [UInt8] = Array(0...31)
        #expect(try BeaconCodec.seal(beacon, key: key, nonce: Array(0...11)) == expected)
        #expect(BeaconCodec.open(expected, key: key) == beacon)
        let plaintext = try hexBlock(after: "Vector `advert plaintext`", in: text)
        #expect(AESGCM(key: key).open(expected, aad: Array("libhandoff beacon v1".utf8)) == plaintext)
    }

    @Test func solicitationVector() throws {
        let text = try section(5)
        let expected = try hexBlock(after: "Vector `solicitation packet`", in: text)
        let beacon = DocumentVectorRegistry.testBeacon(.solicit, sequence: 2)
        let key: [UInt8] = Array(0...31)
        #expect(try BeaconCodec.seal(beacon, key: key, nonce: Array(0...11)) == expected)
        #expect(BeaconCodec.open(expected, key: key) == beacon)
        #expect(try BeaconCodec.encode(beacon) == hexBlock(after: "Vector `solicitation plaintext`", in: text))
    }

    @Test func frameVector() throws {
        let text = try section(6)
        let expected = try hexBlock(after: "Vector `FETCH frame`", in: text)
        #expect(Frame(type: 0x01, payload: Array(0...15)).encoded() == expected)
    }

    func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
