// SPDX-License-Identifier: MIT OR Apache-2.0

/// Counters for diagnostics (`handoff` logs, tests). Errors are counted,
/// never raised: a beacon is best effort.
public struct BeaconTransportStats: Sendable, Equatable {
    /// Datagrams handed to the kernel (one per interface and family, one
    /// per peer).
    public var packetsSent: UInt64 = 0
    /// sendto or setsockopt failures, packets refused for their size, and
    /// IPv6 peers without an IPv6 socket.
    public var sendErrors: UInt64 = 0
    /// Datagrams given to the receive callback.
    public var packetsReceived: UInt64 = 0
    /// Datagrams dropped before the callback for their size.
    public var packetsDropped: UInt64 = 0
    public var receiveErrors: UInt64 = 0
    /// Things skipped while setting up: no IPv6 stack, an interface without
    /// IPv4 (or one that vanished), a group join the kernel refused.
    /// Counted once per interface and family.
    public var setupSkips: UInt64 = 0
    /// Whether the IPv6 socket is open.
    public var ipv6Available: Bool = false
    /// Interfaces whose IPv4 / IPv6 group this transport has joined (and
    /// sends to), by name.
    public var ipv4Interfaces: [String] = []
    public var ipv6Interfaces: [String] = []

    public init() {}
}
