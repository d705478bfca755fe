// SPDX-License-Identifier: MIT OR Apache-2.0
/// A joiner's pairing beacon (docs/PROTOCOL.md §9 "Pairing beacons"): 96
/// bytes in the clear, carrying nothing secret or stable — the magic, the
/// version, the kind (comparison or one-time code), the TCP port and a
/// per-run random session ID.
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

    public init(port: UInt16, sessionID: [UInt8], kind: UInt8 = joinerKind) {
        self.port = port
        self.sessionID = sessionID
        self.kind = kind
    }

    /// The kind of joiner beacon a pairing by `method` sends and looks for.
    public static func kind(for method: PairingMethod) -> UInt8 {
        if case .code = method { return codeJoinerKind }
        return joinerKind
    }

    public func encoded() -> [UInt8] {
        precondition(sessionID.count == Self.sessionIDSize && port != 0)
        var bytes = Self.magic + [Self.version, kind, UInt8(port >> 8), UInt8(port & 0xff)] + sessionID
        bytes += [UInt8](repeating: 0, count: Self.size - bytes.count)
        return bytes
    }

    /// The beacon in `bytes`, or nil for anything else (wrong size, magic,
    /// version or kind, port 0, a non-zero padding byte).
    public static func parse(_ bytes: [UInt8]) -> PairingBeacon? {
        guard bytes.count == size, bytes[0..<8].elementsEqual(magic), bytes[8] == version,
              bytes[9] == joinerKind || bytes[9] == codeJoinerKind,
              bytes[28...].allSatisfy({ $0 == 0 }) else { return nil }
        let port = UInt16(bytes[10]) << 8 | UInt16(bytes[11])
        guard port != 0 else { return nil }
        return PairingBeacon(port: port, sessionID: Array(bytes[12..<28]), kind: bytes[9])
    }
}
