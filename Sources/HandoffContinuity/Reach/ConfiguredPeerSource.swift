// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A configured peer given as a number: always that address.
public final class StaticPeerSource: PeerSource {
    public let address: UDPAddress

    public init(_ address: UDPAddress) { self.address = address }

    public var addresses: [UDPAddress] { [address] }
    public var state: PeerSourceState {
        PeerSourceState(kind: .peer, name: address.description, condition: .ok, addresses: [address.description])
    }
    public var needsRefresh: Bool { false }
    public func refresh(now: Double) -> Double? { nil }
}

/// A configured peer given by name (`ada.local:52370`): resolved with
/// getaddrinfo (so /etc/hosts, DNS, mDNS through nss-mdns, whatever the
/// system's resolver does) when the engine starts and every
/// `resolveInterval` seconds after, on the `hoff-reach` thread. A name
/// that does not resolve gives no address and says so in its state; it is
/// tried again at the next interval, never in a loop.
public final class NamedPeerSource: PeerSource {
    public static let resolveInterval = 60.0
    /// Addresses kept per name (a round-robin name may have many).
    public static let maxAddresses = 8

    public let peer: PeerName
    private let current: Locked<(addresses: [UDPAddress], state: PeerSourceState)>

    public init(_ peer: PeerName) {
        self.peer = peer
        current = Locked(([], PeerSourceState(kind: .peer, name: peer.description, condition: .pending)))
    }

    public var addresses: [UDPAddress] { current.withLock { $0.addresses } }
    public var state: PeerSourceState { current.withLock { $0.state } }

    public func refresh(now: Double) -> Double? {
        let result = Self.resolve(peer)
        current.withLock { c in
            switch result {
            case .success(let addresses):
                c.addresses = addresses
                c.state = PeerSourceState(kind: .peer, name: peer.description, condition: .ok,
                                          addresses: addresses.map(\.description))
            case .failure(let message):
                c.addresses = []
                c.state = PeerSourceState(kind: .peer, name: peer.description, condition: .failed, message: message)
            }
        }
        return now + Self.resolveInterval
    }

    enum Resolution { case success([UDPAddress]), failure(String) }

    /// The name's addresses (IPv4 and IPv6, each once, in the resolver's
    /// order, at most `maxAddresses`), or the resolver's words.
    static func resolve(_ peer: PeerName) -> Resolution {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let r = getaddrinfo(peer.host, nil, &hints, &list)
        guard r == 0 else { return .failure(String(cString: gai_strerror(r))) }
        defer { freeaddrinfo(list) }
        var found: [UDPAddress] = []
        var names: [UInt32: String] = [:]
        var entry = list
        while let e = entry, found.count < maxAddresses {
            entry = e.pointee.ai_next
            guard let sa = e.pointee.ai_addr, Int(e.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(e.pointee.ai_addrlen))) }
            guard let bare = UDPAddress(storage: storage, names: &names),
                  let address = UDPAddress(host: bare.host, port: peer.port), !found.contains(address) else { continue }
            found.append(address)
        }
        return found.isEmpty ? .failure("no IPv4 or IPv6 address") : .success(found)
    }
}

/// The link: multicast on the interfaces the transport joined. No unicast
/// addresses; its state is for doctor and STATUS.
public final class LinkPeerSource: PeerSource {
    private let stats: @Sendable () -> BeaconTransportStats?
    private let multicast: Bool

    public init(multicast: Bool, stats: @escaping @Sendable () -> BeaconTransportStats?) {
        self.multicast = multicast
        self.stats = stats
    }

    public var addresses: [UDPAddress] { [] }
    public var state: PeerSourceState {
        guard multicast else { return PeerSourceState(kind: .link, name: "", condition: .off, message: "multicast is off") }
        let s = stats() ?? BeaconTransportStats()
        let interfaces = Array(Set(s.ipv4Interfaces + s.ipv6Interfaces)).sorted()
        return PeerSourceState(kind: .link, name: interfaces.joined(separator: ", "),
                               condition: interfaces.isEmpty ? .unavailable : .ok,
                               message: interfaces.isEmpty ? "no interface is up with multicast" : nil)
    }
    public var needsRefresh: Bool { false }
    public func refresh(now: Double) -> Double? { nil }
}
