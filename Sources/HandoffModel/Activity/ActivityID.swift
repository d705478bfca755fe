// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An activity's identifier: a UUID (RFC 4122), 16 bytes, written as 36
/// uppercase characters (`0F8FAD5B-D9CB-469F-A165-70867728950E`).
///
/// What the library needs of Foundation's `UUID`, behaving the same (the
/// same text accepted and written, random version-4 values), without
/// linking Foundation into libhandoff.so.
public struct ActivityID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first and last 8 bytes, big-endian.
    private let high: UInt64
    private let low: UInt64

    /// A new random identifier (version 4, variant RFC 4122).
    public init() {
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64
        let low = random.next() as UInt64
        self.high = high & ~0xF000 | 0x4000        // byte 6: version 4
        self.low = low & ~(0xC0 << 56) | (0x80 << 56) // byte 8: variant 10xx
    }

    /// The identifier of these 16 bytes, in order.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "an activity id is 16 bytes")
        high = bytes[0 ..< 8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8 ..< 16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Reads the 36-character form, in either case; nil for anything else.
    /// As Foundation's `UUID(uuidString:)` on Linux: the same `sscanf`
    /// pattern, so the same text is accepted.
    public init?(uuidString text: String) {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)
        let consumed = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer { bytes.deallocate(); consumed.deallocate() }
        consumed.pointee = 0
        let args: [CVarArg] = (0 ..< 16).map { bytes + $0 } + [consumed]
        _ = text.withCString { s in withVaList(args) { vsscanf(s, Self.scanPattern, $0) } }
        // Exactly 36 characters read, and the C string ends there.
        let utf8 = Array(text.utf8.prefix(37))
        guard consumed.pointee == 36, utf8.count == 36 || utf8[36] == 0 else { return nil }
        self.init(bytes: Array(UnsafeBufferPointer(start: bytes, count: 16)))
    }

    private static let scanPattern = "%2hhx%2hhx%2hhx%2hhx-%2hhx%2hhx-%2hhx%2hhx-%2hhx%2hhx-%2hhx%2hhx%2hhx%2hhx%2hhx%2hhx%n"

    /// The 16 bytes, in order.
    public var bytes: [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0 ..< 8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// 36 characters, uppercase hexadecimal.
    public var uuidString: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { uuidString }

    /// Byte by byte, as Foundation orders UUIDs.
    public static func < (a: ActivityID, b: ActivityID) -> Bool {
        (a.high, a.low) < (b.high, b.low)
    }
}
