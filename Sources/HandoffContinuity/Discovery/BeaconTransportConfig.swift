// SPDX-License-Identifier: MIT OR Apache-2.0

/// Where beacons go and come from.
public struct BeaconTransportConfig: Sendable {
    public static let defaultPort: UInt16 = 52370

    /// UDP port, the same on every device of a link for multicast; 0 picks an
    /// ephemeral port (tests, unicast only).
    public var port: UInt16
    /// Send to and receive from the link-local multicast groups.
    public var multicast: Bool
    /// Unicast peers, each sent every beacon: for networks without multicast
    /// and for tests on loopback, e.g. `UDPAddress("127.0.0.1:52371")`.
    public var peers: [UDPAddress]
    /// Interfaces for multicast by name; nil = every interface that is UP,
    /// MULTICAST and not loopback.
    public var interfaces: [String]?

    public init(port: UInt16 = defaultPort, multicast: Bool = true, peers: [UDPAddress] = [], interfaces: [String]? = nil) {
        self.port = port
        self.multicast = multicast
        self.peers = peers
        self.interfaces = interfaces
    }
}
