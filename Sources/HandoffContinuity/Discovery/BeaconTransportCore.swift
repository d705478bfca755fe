// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The sockets of a `BeaconTransport`, shared by it and its receive thread.
final class BeaconTransportCore: Sendable {
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
