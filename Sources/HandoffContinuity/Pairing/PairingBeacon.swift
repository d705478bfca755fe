// SPDX-License-Identifier: MIT OR Apache-2.0
/// A joiner's pairing beacon (docs/PROTOCOL.md §9 "Pairing beacons"): 96
/// bytes in the clear, carrying nothing secret — the magic, the version,
/// the kind (comparison or one-time code), the TCP port, a per-run random
/// session ID and, in a *named* beacon, the name the joiner calls itself
/// (unauthenticated: shown beside the code, "calls itself"). A joiner
/// sends the named one and the plain one: sponsors before the name was
/// added drop the named one (its padding is not zero) and pair on the
/// plain one.
/// 96 is inside the beacon transport's size window but not 28 + 64·k, so a
/// discovery receiver drops it before any cryptography.
public struct PairingBeacon: Sendable, Equatable {
    public static let size = 96
    public static let magic: [UInt8] = Array("HOFFPAIR".utf8)
    public static let version: UInt8 = 1
    /// A joiner that will compare a code.
    public static let joinerKind: UInt8 = 1
    /// A joiner waiting for a one-time code pairing.
    public static let codeJoinerKind: UInt8 = 2
    public static let sessionIDSize = 16

    public var port: UInt16
    public var sessionID: [UInt8]
    public var kind: UInt8
    /// The joiner's device name (`DeviceIdentity.validateName`), nil in a
    /// plain beacon.
    public var name: String?
    static let nameOffset = 28

    public init(port: UInt16, sessionID: [UInt8], kind: UInt8 = joinerKind, name: String? = nil) {
        self.port = port
        self.sessionID = sessionID
        self.kind = kind
        self.name = name
    }

    /// The kind of joiner beacon a pairing by `method` sends and looks for.
    public static func kind(for method: PairingMethod) -> UInt8 {
        if case .code = method { return codeJoinerKind }
        return joinerKind
    }

    public func encoded() -> [UInt8] {
        precondition(sessionID.count == Self.sessionIDSize && port != 0)
        var bytes = Self.magic + [Self.version, kind, UInt8(port >> 8), UInt8(port & 0xff)] + sessionID
        if let name {
            precondition((try? DeviceIdentity.validateName(name)) != nil)
            bytes += [UInt8(name.utf8.count)] + Array(name.utf8)
        }
        bytes += [UInt8](repeating: 0, count: Self.size - bytes.count)
        return bytes
    }

    /// The beacon in `bytes`, or nil for anything else (wrong size, magic,
    /// version or kind, port 0, a non-zero padding byte, a name that is not
    /// 1–64 bytes of UTF-8 without control characters).
    public static func parse(_ bytes: [UInt8]) -> PairingBeacon? {
        guard bytes.count == size, bytes[0..<8].elementsEqual(magic), bytes[8] == version,
              bytes[9] == joinerKind || bytes[9] == codeJoinerKind else { return nil }
        let length = Int(bytes[nameOffset])
        let padding = length == 0 ? nameOffset : nameOffset + 1 + length
        guard length <= DeviceIdentity.maxNameLength, bytes[padding...].allSatisfy({ $0 == 0 }) else { return nil }
        var name: String?
        if length > 0 {
            let raw = Array(bytes[(nameOffset + 1)..<padding])
            let text = String(decoding: raw, as: UTF8.self)
            // Exactly these bytes (no replacement characters), a valid name.
            guard Array(text.utf8) == raw, (try? DeviceIdentity.validateName(text)) != nil else { return nil }
            name = text
        }
        let port = UInt16(bytes[10]) << 8 | UInt16(bytes[11])
        guard port != 0 else { return nil }
        return PairingBeacon(port: port, sessionID: Array(bytes[12..<28]), kind: bytes[9], name: name)
    }

    /// A joiner's name as a prompt shows it: also without the characters
    /// that reorder text (bidirectional controls), so the name cannot
    /// disguise what surrounds it.
    public static func shown(_ name: String) -> String {
        return String(String.UnicodeScalarView(name.unicodeScalars.filter { scalar in
            !(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value)
                && scalar.value != 0x200E && scalar.value != 0x200F && scalar.value != 0x061C
        }))
    }
}
