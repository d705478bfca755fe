// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// A device's MQTT Last Will (PROTOCOL.md §11 "Gone"): sealed with the
/// account's gone key, so nobody without the account key can make one,
/// and bound to one connection (`connected`, `session`), so an older
/// connection's Will played again is told apart.
public struct RelayGoneMessage: Sendable, Equatable {
    public static let version: UInt8 = 1
    public static let plaintextSize = 48
    /// 12 nonce + 48 + 16 tag: never a beacon's size (92…1200).
    public static let sealedSize = AESGCM.nonceSize + plaintextSize + AESGCM.tagSize
    public static let associatedData: [UInt8] = Array("libhandoff relay gone v1".utf8)

    public var deviceID: [UInt8]
    /// Milliseconds since the Unix epoch when the device connected (set its Will).
    public var connected: UInt64
    /// 16 random bytes, new for every connection to the broker.
    public var session: [UInt8]

    public init(deviceID: [UInt8], connected: UInt64, session: [UInt8]) {
        precondition(deviceID.count == 16 && session.count == 16, "a device ID and a session are 16 bytes")
        self.deviceID = deviceID
        self.connected = connected
        self.session = session
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version] + [UInt8](repeating: 0, count: 7)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(connected >> UInt64(shift) & 0xff)) }
        return out + deviceID + session
    }

    /// The exact parse of a plaintext; nil for anything else.
    public static func parse(_ plaintext: [UInt8]) -> RelayGoneMessage? {
        guard plaintext.count == plaintextSize, plaintext[0] == version, plaintext[1..<8].allSatisfy({ $0 == 0 }) else {
            return nil
        }
        let connected = plaintext[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return RelayGoneMessage(deviceID: Array(plaintext[16..<32]), connected: connected, session: Array(plaintext[32..<48]))
    }

    /// Sealed under the gone key; a fresh random nonce unless one is given
    /// (test vectors only).
    public func sealed(key: [UInt8], nonce: [UInt8]? = nil) -> [UInt8] {
        AESGCM(key: key).seal(encoded(), aad: Self.associatedData, nonce: nonce)
    }

    /// Opens a message of a device topic: nil unless it is exactly a
    /// gone message's size, authenticates under `key` and parses.
    public static func open(_ message: [UInt8], key: [UInt8]) -> RelayGoneMessage? {
        guard message.count == sealedSize, let plaintext = AESGCM(key: key).open(message, aad: associatedData) else { return nil }
        return parse(plaintext)
    }
}
