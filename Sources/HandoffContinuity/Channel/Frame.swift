// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One message on the channel: `u32 big-endian N`, then `N` bytes, the first
/// of which is the frame type and the rest the payload. N counts the type
/// byte, so N is at least 1; a receiver refuses N outside
/// `1...ChannelLimits.maxFrameSize` before reading or allocating the payload.
public struct Frame: Sendable, Equatable {
    public var type: UInt8
    public var payload: [UInt8]

    public init(type: UInt8, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }

    /// The frame's value of N: the type byte plus the payload.
    var length: Int { 1 + payload.count }

    /// The frame as it goes on the wire.
    public func encoded() -> [UInt8] {
        let n = UInt32(truncatingIfNeeded: length)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + length)
        bytes.append(UInt8(truncatingIfNeeded: n >> 24))
        bytes.append(UInt8(truncatingIfNeeded: n >> 16))
        bytes.append(UInt8(truncatingIfNeeded: n >> 8))
        bytes.append(UInt8(truncatingIfNeeded: n))
        bytes.append(type)
        bytes.append(contentsOf: payload)
        return bytes
    }
}

/// The bounds every channel works within (docs/PROTOCOL.md §6 "Limits"
/// states each one as enforced; docs/ARCHITECTURE.md "Rules", hostile networks).
public struct ChannelLimits: Sendable {
    /// Largest accepted N (type byte + payload). A larger length prefix is
    /// refused before the payload is read or allocated, and the connection
    /// is closed. Sending a larger frame fails with `.invalidArgument`.
    public var maxFrameSize: Int = 65_536
    /// Server: unauthenticated connections handshaking at once. While they
    /// are all taken, newcomers wait in the kernel's accept backlog; one
    /// that waits there makes the server shed a pending connection that has
    /// not proven the key (see `AdmissionPolicy`), never the newcomer.
    public var maxPendingHandshakes: Int = 16
    /// Server: a source address holding this many pending handshakes has
    /// its own least advanced one shed when it opens another.
    public var pendingPerSource: Int = 8
    /// Server: seconds after accept during which a pending connection is
    /// never shed for another (time for its ClientHello to arrive).
    public var pendingGrace: Double = 0.2
    /// Server: seconds a new connection has to send its first bytes.
    public var firstBytesTimeout: Double = 1
    /// Server: connections the kernel may hold complete but not yet accepted.
    public var acceptBacklog: Int32 = 128
    /// Server: authenticated connections alive at once; when all are taken
    /// the oldest idle one of the most represented source is closed for a
    /// newcomer, and a newcomer is refused only when none is idle.
    public var maxConnections: Int = 64
    /// Server: authenticated connections one source address may hold.
    public var connectionsPerSource: Int = 32
    /// Server: seconds an authenticated connection with no exchange
    /// outstanding stays open.
    public var idleTimeout: Double = 15
    /// Seconds a TLS handshake may take, on either side (on the server from
    /// the moment the connection is accepted).
    public var handshakeTimeout: Double = 3
    /// Seconds a client waits for the TCP connection.
    public var connectTimeout: Double = 3

    public init() {}

    func validated() throws(HandoffError) -> ChannelLimits {
        guard maxFrameSize >= 1, maxFrameSize <= Int(UInt32.max) else {
            throw HandoffError(.invalidArgument, "ChannelLimits.maxFrameSize is \(maxFrameSize): use 1...\(UInt32.max)")
        }
        guard maxPendingHandshakes >= 1, maxConnections >= 1, pendingPerSource >= 1, connectionsPerSource >= 1, acceptBacklog >= 1 else {
            throw HandoffError(.invalidArgument, "ChannelLimits counts (maxPendingHandshakes, pendingPerSource, maxConnections, connectionsPerSource, acceptBacklog) must be at least 1")
        }
        let timeouts = [handshakeTimeout, connectTimeout, firstBytesTimeout, idleTimeout]
        guard timeouts.allSatisfy({ $0 > 0 && $0.isFinite }), pendingGrace >= 0, pendingGrace.isFinite else {
            throw HandoffError(.invalidArgument, "ChannelLimits timeouts must be finite and above 0 seconds (pendingGrace at least 0)")
        }
        return self
    }
}
