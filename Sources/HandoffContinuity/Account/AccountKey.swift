// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The secret shared by all devices of one Handoff account: 32 random
/// bytes. Every other key and identifier is derived from it (`derived`).
///
/// People move it between devices as a pairing code (`pairingCode`). It
/// never appears in a `description`, a debug dump or an error message: those
/// show only the public account ID.
public struct AccountKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public static let size = 32

    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(HandoffError) {
        guard bytes.count == Self.size else {
            throw HandoffError(
                .invalidValue,
                "an account key is \(Self.size) bytes; this one has \(bytes.count): generate a new key or import it from a pairing code")
        }
        self.bytes = bytes
    }

    /// A new random account key (OpenSSL's DRBG).
    public static func generate() -> AccountKey {
        AccountKey(unchecked: Crypto.randomBytes(size))
    }

    /// The key from its pairing code, as typed by a person: dashes, spaces,
    /// tabs and case are ignored, O reads as 0 and I, L as 1.
    public init(pairingCode: String) throws(HandoffError) {
        self.init(unchecked: try PairingCode.decode(pairingCode))
    }

    /// The key written for people: 58 Crockford base32 characters carrying
    /// the key and a 32-bit checksum, in groups of five joined by "-".
    public var pairingCode: String { PairingCode.encode(bytes) }

    /// The keys and identifiers derived from this account key.
    public var derived: DerivedKeys { DerivedKeys(accountKey: bytes) }

    public var description: String { "AccountKey(account \(derived.accountID))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["accountID": derived.accountID], displayStyle: .struct)
    }

    /// Compares in time independent of where the keys differ.
    public static func == (a: AccountKey, b: AccountKey) -> Bool {
        guard a.bytes.count == b.bytes.count else { return false }
        var difference: UInt8 = 0
        for i in a.bytes.indices { difference |= a.bytes[i] ^ b.bytes[i] }
        return difference == 0
    }

    private init(unchecked bytes: [UInt8]) {
        precondition(bytes.count == Self.size)
        self.bytes = bytes
    }
}

/// What libhandoff derives from an account key: HKDF-SHA256 (RFC 5869) with
/// the account key as input keying material, salt "libhandoff v1" and one
/// ASCII label per output as info. See docs/PROTOCOL.md, "Account".
public struct DerivedKeys: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// HKDF salt, shared by every label.
    public static let salt: [UInt8] = Array("libhandoff v1".utf8)

    /// Seals and opens beacons (AES-256-GCM). 32 bytes, info "beacon key".
    public let beaconKey: [UInt8]
    /// The TLS 1.3 external PSK of the channel. 32 bytes, info "channel psk".
    public let channelPSK: [UInt8]
    /// A public fingerprint of the account, safe to show people and to log:
    /// 8 bytes (info "account id") as 16 lowercase hex digits.
    public let accountID: String

    public init(accountKey: [UInt8]) {
        beaconKey = Self.derive(accountKey, label: "beacon key", length: 32)
        channelPSK = Self.derive(accountKey, label: "channel psk", length: 32)
        accountID = AccountEncoding.hex(Self.derive(accountKey, label: "account id", length: 8))
    }

    /// HKDF-SHA256(ikm: key, salt: "libhandoff v1", info: label).
    public static func derive(_ key: [UInt8], label: String, length: Int) -> [UInt8] {
        Crypto.hkdfSHA256(key: key, salt: salt, info: Array(label.utf8), length: length)
    }

    public var description: String { "DerivedKeys(account \(accountID))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["accountID": accountID], displayStyle: .struct)
    }
}
