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

/// The bounds every channel works within, most of them there for the time
/// before a peer has authenticated (DESIGN.md §5 "Before authentication").
public struct ChannelLimits: Sendable {
    /// Largest accepted N (type byte + payload). A larger length prefix is
    /// refused before the payload is read or allocated, and the connection
    /// is closed. Sending a larger frame fails with `.invalidArgument`.
    public var maxFrameSize: Int = 65_536
    /// Server: unauthenticated connections handshaking at once; more are
    /// closed as soon as they are accepted.
    public var maxPendingHandshakes: Int = 8
    /// Server: authenticated connections alive at once; more are closed.
    public var maxConnections: Int = 64
    /// Seconds a TLS handshake may take, on either side.
    public var handshakeTimeout: Double = 3
    /// Seconds a client waits for the TCP connection.
    public var connectTimeout: Double = 3

    public init() {}

    func validated() throws(HandoffError) -> ChannelLimits {
        guard maxFrameSize >= 1, maxFrameSize <= Int(UInt32.max) else {
            throw HandoffError(.invalidArgument, "ChannelLimits.maxFrameSize is \(maxFrameSize): use 1...\(UInt32.max)")
        }
        guard maxPendingHandshakes >= 1, maxConnections >= 1 else {
            throw HandoffError(.invalidArgument, "ChannelLimits.maxPendingHandshakes and maxConnections must be at least 1")
        }
        guard handshakeTimeout > 0, connectTimeout > 0, handshakeTimeout.isFinite, connectTimeout.isFinite else {
            throw HandoffError(.invalidArgument, "ChannelLimits timeouts must be finite and above 0 seconds")
        }
        return self
    }
}
