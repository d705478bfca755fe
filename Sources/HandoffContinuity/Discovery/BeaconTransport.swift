// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Sends and receives sealed beacons over UDP: link-local multicast on IPv4
/// (`239.255.72.79`, TTL 1) and IPv6 (`ff02::4841:4e44`, hop limit 1), plus
/// unicast to configured peers.
///
/// - One IPv4 socket on `0.0.0.0:port` and, when the host has IPv6, one on
///   `[::]:port` (IPV6_V6ONLY). With a fixed port both set SO_REUSEADDR and
///   SO_REUSEPORT so several processes on one host can all hear the
///   multicast groups. The kernel hands a *unicast* datagram to only one of
///   the sockets sharing a port, so each process on one host that is to be
///   reached as a unicast peer needs a port of its own. An ephemeral port
///   (`port: 0`) is never shared (no reuse options).
/// - Multicast loops back: a process hears its own beacons and must drop
///   them by device id.
/// - The interface list is read at start and again on a `send` at least
///   `interfaceRescanInterval` seconds after the last read, so interfaces
///   that come up later are joined.
/// - One receive thread (`hoff-beacons`) runs a reactor watching both
///   sockets and the netlink socket, with no timer: idle, it never wakes.
///   Datagrams outside `BeaconCodec.minPacketSize...maxPacketSize` are
///   dropped before the callback, which runs on that thread with the raw
///   bytes (the caller opens them with `BeaconCodec.open`). The callback
///   may call `stop()`.
public final class BeaconTransport: Sendable {
    public static let ipv4Group = "239.255.72.79"
    public static let ipv6Group = "ff02::4841:4e44"
    public static let interfaceRescanInterval: Double = 10

    private struct JoinState {
        var thread: pthread_t
        var done = false
    }

    private let core: BeaconTransportCore
    private let join: Locked<JoinState>

    /// Opens the sockets, joins the groups and starts the receive thread.
    /// - Throws: `.io` when the IPv4 socket cannot be opened or bound (the
    ///   port taken by a program that does not share it), or no thread.
    /// - Parameter interfacesChanged: called on the receive thread when the
    ///   kernel reports a change of links or addresses (netlink) and the
    ///   joined interfaces changed (or, without multicast, on any such
    ///   report): the moment to solicit adverts again.
    public init(
        config: BeaconTransportConfig,
        interfacesChanged: (@Sendable () -> Void)? = nil,
        receive: @escaping @Sendable (_ packet: [UInt8], _ from: UDPAddress) -> Void
    ) throws(HandoffError) {
        let core = try BeaconTransportCore(config: config, receive: receive, interfacesChanged: interfacesChanged)
        guard let thread = startJoinableThread(named: "hoff-beacons", { core.receiveLoop() }) else {
            core.closeAll()
            throw HandoffError(.io, "cannot start the beacon receive thread: the system refused a new thread")
        }
        self.core = core
        join = Locked(JoinState(thread: thread))
    }

    deinit { stop() }

    /// The bound UDP port (the ephemeral one when the config said 0).
    public var port: UInt16 { core.port }

    public var peers: [UDPAddress] { core.state.withLock { $0.peers } }

    /// Replaces the unicast peers (e.g. after a configuration change).
    public func setPeers(_ peers: [UDPAddress]) { core.state.withLock { $0.peers = peers } }

    public var stats: BeaconTransportStats { core.stats.withLock { $0 } }

    /// The receive thread's reactor's counts (tests: an idle transport
    /// makes no turn); nil once stopped.
    var loopCounts: Reactor.Counts? { core.state.withLock { $0.reactor }?.counts }

    /// Sends `packet` to the multicast groups on each joined interface and
    /// to every unicast peer. Never blocks (MSG_DONTWAIT); failures are
    /// counted in `stats`, not reported. Does nothing after `stop()`.
    public func send(_ packet: [UInt8]) { core.send(packet) }

    /// Sends `packet` to one address only (an answer to a solicitation),
    /// from the socket of the address's family. Never blocks; counted in
    /// `stats`. Does nothing after `stop()`.
    public func send(_ packet: [UInt8], to address: UDPAddress) { core.send(packet, to: address) }

    /// Stops receiving and closes the sockets. Idempotent and thread-safe;
    /// returns after the receive thread has ended, except when called from
    /// the receive callback itself (the thread then ends, and closes the
    /// sockets, as soon as the callback returns).
    public func stop() {
        if core.isLoopThread {
            core.requestStop(fromReceiveThread: true)
            return
        }
        join.withLock { j in
            guard !j.done else { return }
            j.done = true
            if core.requestStop(fromReceiveThread: false) {
                pthread_join(j.thread, nil)
                core.closeAll()
            }
        }
    }
}
