// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffTestSupport
import Testing
@testable import HandoffModel

/// docs/PROTOCOL.md §3's activity-payload test vector, read from the
/// document and recomputed: the canonical encoding (§1.1) and the budget's
/// size cannot drift from the code.
@Suite("ProtocolVectorTests: activity payload")
struct ProtocolVectorTests {
    static var document: String { ProtocolDocument.text }

    static func section(_ number: Int) throws -> String {
        try #require(ProtocolDocument.section(number), "PROTOCOL.md has no section \(number)")
    }

    /// The hex of the indented block after the line starting with `marker`.
    static func hexBlock(after marker: String, in text: String) throws -> [UInt8] {
        try #require(ProtocolDocument.hexBlock(after: marker, in: text), "no hex block after \(marker)")
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var lines: [String] = []
        for start in stride(from: 0, to: bytes.count, by: 32) {
            var line = "   "
            for (index, byte) in bytes[start ..< min(start + 32, bytes.count)].enumerated() {
                if index % 4 == 0 { line += " " }
                line.append(digits[Int(byte >> 4)])
                line.append(digits[Int(byte & 15)])
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The activity the vector describes.
    static func activity() throws -> UserActivity {
        UserActivity(activityType: PayloadVectorActivity.activityType, activityID: PayloadVectorActivity.activityID,
                     state: PayloadVectorActivity.state)
    }

    @Test("the payload encodes to the document's bytes and decodes back")
    func payload() throws {
        let text = try Self.section(3)
        let expected = try Self.hexBlock(after: "Vector `activity payload`", in: text)
        let activity = try Self.activity()
        let encoded = try ActivityCoding.encode(activity)
        #expect(encoded == expected, "PROTOCOL.md §3 should hold:\n\(Self.hex(encoded))")
        let decoded = try ActivityCoding.decode(expected)
        #expect(decoded.activityID == activity.activityID)
        #expect(decoded.snapshot == activity.snapshot)
        // Canonical: decoding measures exactly the bytes' size.
        #expect(try BinaryPropertyList.decodeMeasured(expected).cost.encodedSize == expected.count)
    }

    @Test("the userInfo size the document states is its canonical size")
    func userInfoSize() throws {
        let text = try Self.section(3)
        let size = activityUserInfoSize(in: text)
        let activity = try Self.activity()
        #expect(size == activity.encodedUserInfoSize, "PROTOCOL.md §3 should say \(activity.encodedUserInfoSize)")
        #expect(size == BinaryPropertyList.canonicalSize(of: UserInfoCoding.propertyList(activity.userInfo), atMost: .max))
    }

    private func activityUserInfoSize(in text: String) -> Int? {
        let parts = text.components(separatedBy: "userInfo alone is ")
        guard parts.count == 2 else { return nil }
        return Int(parts[1].prefix { $0.isNumber })
    }
}
