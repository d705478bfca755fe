// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

/// ActivityID stands in for Foundation's UUID in the library: the same
/// text accepted and written. Compared here with Foundation itself.
@Suite struct ActivityIDTests {
    /// What Foundation reads from `text`, as bytes (nil: refused).
    static func foundation(_ text: String) -> [UInt8]? {
        UUID(uuidString: text).map { withUnsafeBytes(of: $0.uuid, Array.init) }
    }

    @Test func aNewIdIsRandomVersion4() {
        var seen = Set<ActivityID>()
        for _ in 0 ..< 200 {
            let id = ActivityID()
            #expect(id.bytes[6] >> 4 == 4)
            #expect(id.bytes[8] >> 6 == 0b10)
            seen.insert(id)
        }
        #expect(seen.count == 200)
    }

    @Test func textAndBytesRoundTripAsFoundationWritesThem() {
        for _ in 0 ..< 200 {
            let id = ActivityID()
            let theirs = UUID(uuidString: id.uuidString)!
            #expect(id.uuidString == theirs.uuidString)
            #expect(id.description == theirs.uuidString)
            #expect(ActivityID(bytes: id.bytes) == id)
            #expect(Self.foundation(id.uuidString) == id.bytes)
            #expect(ActivityID(uuidString: id.uuidString.lowercased()) == id)
        }
    }

    static let odd: [String] = [
        "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-469f-a165-70867728950e",
        "0F8FAD5B-D9CB-469F-A165-70867728950", "0F8FAD5B-D9CB-469F-A165-70867728950EE",
        "0F8FAD5BD9CB-469F-A165-70867728950E0", "0F8FAD5B-D9CB-469F-A165-70867728950G",
        "0F8FAD5B-D9CB-469F-A165-70867728950E\0", "0F8FAD5B-D9CB-469F-A165-70867728950E\0x",
        "+F8FAD5B-D9CB-469F-A165-70867728950E", " F8FAD5B-D9CB-469F-A165-70867728950E",
        "0x8FAD5B-D9CB-469F-A165-70867728950E", "-F8FAD5B-D9CB-469F-A165-70867728950E",
        "0F8FAD5B-D9CB-469F-A165-7086772895 E", "0F8FAD5B-D9CB-469F-A165-7086772895+E",
        "0F8FAD5B D9CB-469F-A165-70867728950E", "", "-", "{0F8FAD5B-D9CB-469F-A165-70867728950E}",
        "0F8FAD5B-D9CB-469F-A165-70867728950É", "00000000-0000-0000-0000-000000000000",
    ]

    @Test(arguments: odd)
    func oddTextIsReadAsFoundationReadsIt(_ text: String) {
        #expect(ActivityID(uuidString: text)?.bytes == Self.foundation(text), "\(Array(text.utf8))")
    }

    /// Bounded: 5,000 texts mutated from a valid one with characters
    /// sscanf treats specially (sign, space, x, dash, NUL).
    @Test func mutatedTextIsReadAsFoundationReadsIt() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFxX+- \t\0G".utf8)
        for _ in 0 ..< 5000 {
            var bytes = Array(ActivityID().uuidString.utf8)
            for _ in 0 ..< Int.random(in: 1 ... 4, using: &rng) {
                let i = Int.random(in: 0 ..< bytes.count, using: &rng)
                switch Int.random(in: 0 ..< 3, using: &rng) {
                case 0: bytes[i] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet.randomElement(using: &rng)!, at: i)
                }
                if bytes.isEmpty { break }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(ActivityID(uuidString: text)?.bytes == Self.foundation(text), "\(bytes)")
        }
    }

    @Test func orderIsFoundations() {
        for _ in 0 ..< 200 {
            let a = ActivityID(), b = ActivityID()
            #expect((a < b) == (UUID(uuidString: a.uuidString)! < UUID(uuidString: b.uuidString)!))
        }
    }
}
