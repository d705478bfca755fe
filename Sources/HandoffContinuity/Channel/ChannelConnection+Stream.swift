// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The channel over any stream socket a `PeerPath` dialed or accepted
/// (a relay pipe, PROTOCOL.md §11 "Pipes"): the same TLS 1.3 PSK handshake
/// and frames as over TCP, on that socket instead of a TCP connection.
extension ChannelConnection {
    /// The client's side: the handshake over `fd` (a non-blocking stream
    /// socket, owned from here on: closed on failure and with the
    /// connection) within `limits.handshakeTimeout`. Throws as `connect`
    /// does once connected: `.handoffFailed` when the other side holds
    /// another account's key, `.connectionUnavailable` when it goes away
    /// or does not answer in time.
    public static func connect(overStream fd: Int32, peer: SocketAddress, psk: [UInt8],
                               limits: ChannelLimits = ChannelLimits()) throws(HandoffError) -> ChannelConnection {
        let (limits, context) = try owning(fd) { () throws(HandoffError) in
            (try limits.validated(), try TLSContext(role: .client, psk: psk, identity: TLSContext.randomIdentity()))
        }
        return try handshake(TLSSocket(fd: fd, peer: peer, context: context), limits: limits)
    }

    /// The server's side of an accepted pipe, on its own: the handshake
    /// over `fd` (owned from here on) within `limits.handshakeTimeout`.
    /// The agent hands an accepted pipe to its channel server instead, so
    /// that §6's admission limits count it; this is for tests and tools.
    public static func accept(overStream fd: Int32, peer: SocketAddress, psk: [UInt8],
                              limits: ChannelLimits = ChannelLimits()) throws(HandoffError) -> ChannelConnection {
        let (limits, context) = try owning(fd) { () throws(HandoffError) in
            (try limits.validated(), try TLSContext(role: .server, psk: psk))
        }
        return try handshake(TLSSocket(fd: fd, peer: peer, context: context), limits: limits)
    }

    /// Runs what comes before the socket owns `fd`, closing `fd` if it
    /// throws: the caller gave it up when it called.
    private static func owning<T>(_ fd: Int32, _ body: () throws(HandoffError) -> T) throws(HandoffError) -> T {
        do {
            return try body()
        } catch {
            Glibc.close(fd)
            throw error
        }
    }
}
