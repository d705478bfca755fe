// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// A pipe's identity: 16 random bytes chosen by the device that opens it,
/// in the pipe's topic (32 lowercase hex digits) and in every frame's
/// header (PROTOCOL.md §11 "Pipes").
public struct RelayPipeID: Sendable, Hashable, CustomStringConvertible {
    public static let size = 16
    public let bytes: [UInt8]

    /// nil unless exactly 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = bytes
    }

    /// From the topic's 32 lowercase hex digits; nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == Self.size * 2, let bytes = AccountEncoding.bytes(fromLowercaseHex: hex) else { return nil }
        self.bytes = bytes
    }

    /// A new random pipe ID (OpenSSL's DRBG).
    public static func random() -> RelayPipeID { RelayPipeID(bytes: Crypto.randomBytes(size))! }

    public var hex: String { AccountEncoding.hex(bytes) }
    public var description: String { hex }
}
