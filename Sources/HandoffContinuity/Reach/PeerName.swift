// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// A configured peer given by host name and port, `ada.local:52370` or
/// `desk.tailnet-1234.ts.net:52370`: resolved when the engine starts and
/// again every minute (`NamedPeerSource`), so a WireGuard, mDNS or DHCP
/// name that moves keeps working.
public struct PeerName: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    /// A DNS name (letters, digits, `-`, `_`, dots; at most 253 bytes;
    /// not all digits and dots, which is a number) and a port.
    public init?(host: String, port: UInt16) {
        // One trailing dot (a fully qualified name) is allowed.
        let bare = host.hasSuffix(".") ? host.dropLast() : Substring(host)
        let labels = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard !bare.isEmpty, host.utf8.count <= 253, port != 0,
              labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 && !$0.hasPrefix("-") && $0.utf8.allSatisfy(Self.allowed) }),
              !bare.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E })
        else { return nil }
        self.host = host
        self.port = port
    }

    /// Parses `name:port`.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let port = UInt16(portText) else { return nil }
        self.init(host: String(text[..<colon]), port: port)
    }

    public var description: String { "\(host):\(port)" }

    private static func allowed(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
    }
}

/// A configured peer as a person writes it: a numeric address, or a name.
public enum ConfiguredPeer: Sendable, Hashable {
    case address(UDPAddress)
    case name(PeerName)

    /// `192.168.1.20:52370`, `[fe80::1%eth0]:52370` or `ada.local:52370`;
    /// nil for anything else.
    public init?(_ text: String) {
        if let address = UDPAddress(text) {
            self = .address(address)
        } else if !text.hasPrefix("["), let name = PeerName(text) {
            self = .name(name)
        } else {
            return nil
        }
    }
}
