// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

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

// MARK: - Core: the sockets, shared by the transport and its thread

private final class BeaconTransportCore: Sendable {
    struct State {
        var peers: [UDPAddress]
        var v4Joined: [UInt32: String] = [:]   // ifindex -> name
        var v6Joined: [UInt32: String] = [:]
        var v6Groups: [UInt32: UDPAddress] = [:]   // ff02::4841:4e44%ifindex
        var skipped: Set<String> = []          // "4:eth0", "6:eth0": counted once
        var lastScan: Double = -.infinity
        var stopping = false
        var closed = false
        /// The receive thread's wait; dropped (its descriptors closed) by `closeAll`.
        var reactor: Reactor?
        var joinClaimed = false                // another thread will join the receiver
        var detached = false                   // the receiver detached itself
    }

    let v4: Int32
    let v6: Int32                              // -1 without IPv6
    /// Netlink socket for link and address changes; -1 when unavailable.
    let netlink: Int32
    let interfacesChanged: (@Sendable () -> Void)?
    let port: UInt16
    let multicast: Bool
    let interfaceNames: [String]?
    let receive: @Sendable ([UInt8], UDPAddress) -> Void
    let state: Locked<State>
    let stats = Locked(BeaconTransportStats())
    let v4Group: UDPAddress?

    init(config: BeaconTransportConfig, receive: @escaping @Sendable ([UInt8], UDPAddress) -> Void,
         interfacesChanged: (@Sendable () -> Void)?) throws(HandoffError) {
        self.receive = receive
        self.interfacesChanged = interfacesChanged
        multicast = config.multicast
        interfaceNames = config.interfaces
        state = Locked(State(peers: config.peers))
        let share = config.port != 0
        var skips: UInt64 = 0

        // IPv4 is required; IPv6 is used when the host has it. With an
        // ephemeral port the IPv6 socket may find "its" port taken: retry.
        var v4: Int32 = -1, v6: Int32 = -1, bound: UInt16 = 0
        for attempt in 0..<16 {
            v4 = try BeaconSocket.openIPv4(port: config.port, share: share)
            bound = BeaconSocket.localPort(v4)
            switch BeaconSocket.openIPv6(port: bound, share: share) {
            case .opened(let fd):
                v6 = fd
            case .unavailable:
                v6 = -1
                skips += 1
            case .portTaken where config.port == 0 && attempt < 15:
                close(v4)
                continue
            case .portTaken:
                v6 = -1
                skips += 1
            }
            break
        }
        let reactor: Reactor
        do {
            reactor = try Reactor()
        } catch {
            close(v4)
            if v6 >= 0 { close(v6) }
            throw HandoffError(.io, "cannot create the beacon receiver's wait: \(error)")
        }
        self.v4 = v4
        self.v6 = v6
        port = bound
        v4Group = UDPAddress(host: BeaconTransport.ipv4Group, port: bound)
        state.withLock { $0.reactor = reactor }
        netlink = interfacesChanged == nil ? -1 : BeaconSocket.openNetlink()
        stats.withLock {
            $0.setupSkips = skips
            $0.ipv6Available = v6 >= 0
        }
        if multicast {
            state.withLock { rescan(&$0) }
        }
    }

    // MARK: Sending

    func send(_ packet: [UInt8]) {
        var sent: UInt64 = 0, errors: UInt64 = 0
        guard !packet.isEmpty, packet.count <= BeaconCodec.maxPacketSize else {
            stats.withLock { $0.sendErrors += 1 }
            return
        }
        state.withLock { s in
            guard !s.stopping else { return }
            if multicast, monotonicSeconds() - s.lastScan >= BeaconTransport.interfaceRescanInterval {
                rescan(&s)
            }
            func count(_ ok: Bool) { if ok { sent += 1 } else { errors += 1 } }
            for index in s.v4Joined.keys.sorted() {
                var request = ip_mreqn()
                request.imr_ifindex = Int32(bitPattern: index)
                guard BeaconSocket.setOption(v4, Int32(IPPROTO_IP), IP_MULTICAST_IF, &request) else { errors += 1; continue }
                count(sendPacket(packet, fd: v4, to: v4Group))
            }
            for index in s.v6Joined.keys.sorted() {
                var interface = Int32(bitPattern: index)
                guard BeaconSocket.setOption(v6, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, &interface) else { errors += 1; continue }
                count(sendPacket(packet, fd: v6, to: s.v6Groups[index]))
            }
            for peer in s.peers {
                count(sendPacket(packet, fd: peer.isIPv6 ? v6 : v4, to: peer))
            }
        }
        stats.withLock {
            $0.packetsSent += sent
            $0.sendErrors += errors
        }
    }

    func send(_ packet: [UInt8], to address: UDPAddress) {
        guard !packet.isEmpty, packet.count <= BeaconCodec.maxPacketSize else {
            stats.withLock { $0.sendErrors += 1 }
            return
        }
        let ok: Bool? = state.withLock { s in
            s.stopping ? nil : sendPacket(packet, fd: address.isIPv6 ? v6 : v4, to: address)
        }
        guard let ok else { return }
        stats.withLock { if ok { $0.packetsSent += 1 } else { $0.sendErrors += 1 } }
    }

    private func sendPacket(_ packet: [UInt8], fd: Int32, to address: UDPAddress?) -> Bool {
        guard fd >= 0, let address else { return false }
        let n = packet.withUnsafeBytes { bytes in
            address.withSockaddr { sa, length in
                sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), sa, length)
            }
        }
        return n == packet.count
    }

    // MARK: Interfaces

    /// Joins the groups on interfaces that appeared, forgets those that went.
    private func rescan(_ s: inout State) {
        s.lastScan = monotonicSeconds()
        let found = BeaconSocket.scanInterfaces(named: interfaceNames)
        var skips: UInt64 = 0
        func skip(_ key: String) { if s.skipped.insert(key).inserted { skips += 1 } }

        if let names = interfaceNames {
            for name in names where !found.contains(where: { $0.name == name }) {
                skip("4:" + name)
                skip("6:" + name)
            }
        }
        let current = Set(found.map(\.index))
        for (index, _) in s.v4Joined where !current.contains(index) {
            var request = membership4(index)
            _ = BeaconSocket.setOption(v4, Int32(IPPROTO_IP), IP_DROP_MEMBERSHIP, &request)
            s.v4Joined[index] = nil
        }
        for (index, _) in s.v6Joined where !current.contains(index) {
            var request = membership6(index)
            _ = BeaconSocket.setOption(v6, Int32(IPPROTO_IPV6), IPV6_DROP_MEMBERSHIP, &request)
            s.v6Joined[index] = nil
            s.v6Groups[index] = nil
        }
        for interface in found {
            if s.v4Joined[interface.index] == nil {
                var request = membership4(interface.index)
                if interface.hasIPv4,
                   BeaconSocket.setOption(v4, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request) || errno == EADDRINUSE {
                    s.v4Joined[interface.index] = interface.name
                    s.skipped.remove("4:" + interface.name)
                } else {
                    skip("4:" + interface.name)
                }
            }
            if s.v6Joined[interface.index] == nil {
                var request = membership6(interface.index)
                if v6 >= 0,
                   BeaconSocket.setOption(v6, Int32(IPPROTO_IPV6), IPV6_ADD_MEMBERSHIP, &request) || errno == EADDRINUSE {
                    s.v6Joined[interface.index] = interface.name
                    s.v6Groups[interface.index] = UDPAddress(host: "\(BeaconTransport.ipv6Group)%\(interface.index)", port: port)
                    s.skipped.remove("6:" + interface.name)
                } else if v6 >= 0 {
                    skip("6:" + interface.name)
                }
            }
        }
        let names4 = s.v4Joined.sorted { $0.key < $1.key }.map(\.value)
        let names6 = s.v6Joined.sorted { $0.key < $1.key }.map(\.value)
        stats.withLock {
            $0.setupSkips += skips
            $0.ipv4Interfaces = names4
            $0.ipv6Interfaces = names6
        }
    }

    private func membership4(_ index: UInt32) -> ip_mreqn {
        var request = ip_mreqn()
        _ = inet_pton(AF_INET, BeaconTransport.ipv4Group, &request.imr_multiaddr)
        request.imr_ifindex = Int32(bitPattern: index)
        return request
    }

    private func membership6(_ index: UInt32) -> ipv6_mreq {
        var request = ipv6_mreq()
        _ = inet_pton(AF_INET6, BeaconTransport.ipv6Group, &request.ipv6mr_multiaddr)
        request.ipv6mr_interface = index
        return request
    }

    // MARK: Receiving

    /// Whether the caller is the receive thread (in its reactor's run).
    var isLoopThread: Bool { state.withLock { $0.reactor }?.isLoopThread ?? false }

    private var stopping: Bool { state.withLock { $0.stopping } }

    /// The receive thread: each socket drained a bounded batch per turn
    /// (level-triggered: the rest is the next turn's, after a look at
    /// `stop()`).
    func receiveLoop() {
        guard let reactor = state.withLock({ $0.reactor }) else { return }
        var buffer = [UInt8](repeating: 0, count: 1500)
        var names: [UInt32: String] = [:]
        // Handlers run only inside `run`, on this thread, which holds the core.
        for fd in [v4, v6] where fd >= 0 {
            _ = reactor.watch(fd, .readable) { [unowned self] _ in
                for _ in 0..<64 {
                    guard !self.stopping, let (packet, from) = self.receiveOne(fd, &buffer, &names) else { break }
                    self.receive(packet, from)
                }
            }
        }
        if netlink >= 0 {
            _ = reactor.watch(netlink, .readable) { [unowned self] _ in
                if !self.stopping { self.linkEvents(&buffer) }
            }
        }
        if !stopping { reactor.run() }
        let closeHere = state.withLock { $0.detached }
        if closeHere { closeAll() }
    }

    /// Drains the netlink socket; rescans the interfaces and tells the
    /// owner when what is joined changed.
    private func linkEvents(_ buffer: inout [UInt8]) {
        var any = false
        for _ in 0..<64 {
            let n = buffer.withUnsafeMutableBytes { recv(netlink, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { break }
            any = true
        }
        guard any else { return }
        let changed: Bool = state.withLock { s in
            guard !s.stopping else { return false }
            guard multicast else { return true }
            let before = (Set(s.v4Joined.keys), Set(s.v6Joined.keys))
            rescan(&s)
            return before != (Set(s.v4Joined.keys), Set(s.v6Joined.keys))
        }
        if changed { interfacesChanged?() }
    }

    /// One datagram that passed the size check; nil when the socket has
    /// nothing more (or failed).
    private func receiveOne(_ fd: Int32, _ buffer: inout [UInt8], _ names: inout [UInt32: String]) -> ([UInt8], UDPAddress)? {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            // MSG_TRUNC: the datagram's real length, even when longer than the buffer.
            let n = buffer.withUnsafeMutableBytes { b in
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT) | Int32(MSG_TRUNC), $0, &length)
                    }
                }
            }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e != EAGAIN && e != EWOULDBLOCK { stats.withLock { $0.receiveErrors += 1 } }
                return nil
            }
            guard n >= BeaconCodec.minPacketSize, n <= BeaconCodec.maxPacketSize,
                  let from = UDPAddress(storage: storage, names: &names) else {
                stats.withLock { $0.packetsDropped += 1 }
                continue
            }
            stats.withLock { $0.packetsReceived += 1 }
            return (Array(buffer[0..<n]), from)
        }
    }

    // MARK: Stopping

    /// Marks the transport stopping and wakes the receiver. Returns true
    /// when the caller (not the receiver) is to join the receive thread.
    @discardableResult
    func requestStop(fromReceiveThread: Bool) -> Bool {
        state.withLock { s in
            if !s.stopping {
                s.stopping = true
                s.reactor?.stop()
            }
            if fromReceiveThread {
                if !s.joinClaimed && !s.detached {
                    pthread_detach(pthread_self())
                    s.detached = true
                }
                return false
            }
            guard !s.detached else { return false }
            s.joinClaimed = true
            return true
        }
    }

    /// Closes every descriptor, once.
    func closeAll() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            s.stopping = true
            for fd in [v4, v6, netlink] where fd >= 0 { close(fd) }
            s.reactor = nil
            s.v4Joined = [:]
            s.v6Joined = [:]
            s.v6Groups = [:]
        }
    }
}

/// Socket, interface and thread helpers of the transport.
private enum BeaconSocket {
    // MARK: - Sockets

    enum IPv6Open {
        case opened(Int32)
        case unavailable
        case portTaken
    }

    static func openIPv4(port: UInt16, share: Bool) throws(HandoffError) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HandoffError(.io, "cannot open a UDP socket for beacons: \(errnoText())") }
        var one: Int32 = 1
        var ttl: Int32 = 1
        if share {
            _ = setOption(fd, SOL_SOCKET, SO_REUSEADDR, &one)
            _ = setOption(fd, SOL_SOCKET, SO_REUSEPORT, &one)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            let text = errnoText()
            close(fd)
            throw HandoffError(.io,
                "cannot bind the beacon socket to UDP port \(port): \(text); another program may hold the port without sharing it (choose another port)")
        }
        _ = setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl)
        _ = setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &one)
        return fd
    }

    static func openIPv6(port: UInt16, share: Bool) -> IPv6Open {
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unavailable }
        var one: Int32 = 1
        var hops: Int32 = 1
        guard setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one) else {
            close(fd)
            return .unavailable
        }
        if share {
            _ = setOption(fd, SOL_SOCKET, SO_REUSEADDR, &one)
            _ = setOption(fd, SOL_SOCKET, SO_REUSEPORT, &one)
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        address.sin6_addr = in6addr_any
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        guard ok == 0 else {
            let e = errno
            close(fd)
            return e == EADDRINUSE ? .portTaken : .unavailable
        }
        _ = setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &hops)
        _ = setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, &one)
        return .opened(fd)
    }

    /// A netlink socket subscribed to link and IPv4/IPv6 address changes;
    /// -1 when the kernel refuses (the periodic rescan still applies).
    static func openNetlink() -> Int32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                        0 /* NETLINK_ROUTE */)
        guard fd >= 0 else { return -1 }
        // struct sockaddr_nl (linux/netlink.h, not in Glibc's module):
        // family u16, pad u16, pid u32, groups u32.
        var address: (UInt16, UInt16, UInt32, UInt32) =
            (UInt16(AF_NETLINK), 0, 0, 0x1 | 0x10 | 0x100)  // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR
        let ok = withUnsafeBytes(of: &address) {
            bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), 12)
        }
        guard ok == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func setOption<T>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: inout T) -> Bool {
        guard fd >= 0 else { return false }
        return withUnsafeBytes(of: &value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) } == 0
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    // MARK: - Interfaces

    struct Interface {
        var name: String
        var index: UInt32
        var hasIPv4: Bool
    }

    /// The interfaces to use: those named (that exist), or every UP, MULTICAST,
    /// non-loopback one.
    static func scanInterfaces(named names: [String]?) -> [Interface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var flagsByName: [String: UInt32] = [:]
        var withIPv4: Set<String> = []
        var order: [String] = []
        var entry = list
        while let e = entry {
            let name = String(cString: e.pointee.ifa_name)
            if flagsByName[name] == nil { order.append(name) }
            flagsByName[name, default: 0] |= e.pointee.ifa_flags
            if let address = e.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET {
                withIPv4.insert(name)
            }
            entry = e.pointee.ifa_next
        }
        let wanted: [String]
        if let names {
            wanted = names
        } else {
            let up = UInt32(IFF_UP), multicast = UInt32(IFF_MULTICAST), loopback = UInt32(IFF_LOOPBACK)
            wanted = order.filter {
                let f = flagsByName[$0] ?? 0
                return f & up != 0 && f & multicast != 0 && f & loopback == 0
            }
        }
        return wanted.compactMap { name in
            let index = if_nametoindex(name)
            guard index != 0 else { return nil }
            return Interface(name: name, index: index, hasIPv4: withIPv4.contains(name))
        }
    }
}
