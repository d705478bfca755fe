// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// The relay's topic names (PROTOCOL.md §11 "Topics"): opaque tags derived
/// from the account key, so the broker can tell which topics belong
/// together but not whose they are, and cannot link them across a key
/// rotation. Pure: no broker, no I/O.
public struct RelayTopics: Sendable, Equatable {
    /// HKDF info labels (salt and IKM as in §4).
    static let accountTagLabel = "handoff relay topic v1"
    static let deviceTagLabel = "handoff relay device v1"
    static let goneKeyLabel = "handoff relay gone v1"
    static let tagSize = 16
    static let prefix = "hoff"

    /// 32 lowercase hex digits, the same on every device of the account.
    public let accountTag: String
    /// The AES-256-GCM key of gone messages (`RelayGoneMessage`).
    public let goneKey: [UInt8]
    private let accountKey: [UInt8]

    public init(accountKey: AccountKey) {
        self.accountKey = accountKey.bytes
        accountTag = AccountEncoding.hex(DerivedKeys.derive(accountKey.bytes, label: Self.accountTagLabel, length: Self.tagSize))
        goneKey = DerivedKeys.derive(accountKey.bytes, label: Self.goneKeyLabel, length: 32)
    }

    /// The device tag of a 16-byte device ID: HKDF with info = the label
    /// followed by the ID's bytes. Hides the ID; changes with the key.
    public func deviceTag(_ deviceID: [UInt8]) -> String {
        precondition(deviceID.count == 16, "a device ID is 16 bytes")
        let info = Array(Self.deviceTagLabel.utf8) + deviceID
        return AccountEncoding.hex(Crypto.hkdfSHA256(key: accountKey, salt: DerivedKeys.salt, info: info, length: Self.tagSize))
    }

    /// `hoff/<account tag>/d/<device tag>`: the device's retained beacon and its Will.
    public func deviceTopic(_ deviceID: [UInt8]) -> String {
        "\(Self.prefix)/\(accountTag)/d/\(deviceTag(deviceID))"
    }

    /// `hoff/<account tag>/p/<to>/<from>/<pipe id>`: pipe frames for `to`.
    public func pipeTopic(to: String, from: String, pipe: RelayPipeID) -> String {
        "\(Self.prefix)/\(accountTag)/p/\(to)/\(from)/\(pipe.hex)"
    }

    /// The two filters a device subscribes to when it connects: every
    /// device topic of the account, and every pipe frame addressed to it.
    public func subscriptions(ownDeviceID: [UInt8]) -> [String] {
        ["\(Self.prefix)/\(accountTag)/d/+", "\(Self.prefix)/\(accountTag)/p/\(deviceTag(ownDeviceID))/#"]
    }

    /// What a topic a message arrived on names, or nil for a topic that is
    /// not one of this account's in exactly the documented shape (dropped).
    public func parse(_ topic: String) -> RelayTopic? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == Self.prefix, parts[1] == accountTag else { return nil }
        switch (parts[2], parts.count) {
        case ("d", 4):
            guard Self.isTag(parts[3]) else { return nil }
            return .device(tag: String(parts[3]))
        case ("p", 6):
            guard Self.isTag(parts[3]), Self.isTag(parts[4]), let pipe = RelayPipeID(hex: String(parts[5])) else { return nil }
            return .pipe(to: String(parts[3]), from: String(parts[4]), pipe: pipe)
        default:
            return nil
        }
    }

    /// 32 lowercase hex digits.
    static func isTag(_ text: Substring) -> Bool {
        text.utf8.count == tagSize * 2 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// Never shows the key.
    public static func == (a: RelayTopics, b: RelayTopics) -> Bool { a.accountTag == b.accountTag }
}

/// A topic of the account, as `RelayTopics.parse` read it.
public enum RelayTopic: Sendable, Equatable {
    /// A device's topic: its retained beacon or its gone message.
    case device(tag: String)
    /// A pipe frame for the device `to`, from the device `from` (its claim:
    /// only the TLS handshake over the pipe proves the account).
    case pipe(to: String, from: String, pipe: RelayPipeID)
}
