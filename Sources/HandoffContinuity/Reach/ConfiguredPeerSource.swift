// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
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
/// system's resolver does) when the engine starts, every `resolveInterval`
/// seconds after, and `networkSettle` seconds after the network's
/// interfaces change (`PeerSources.interfacesChanged`), on the
/// `hoff-reach` thread.
///
/// A lookup that fails keeps the last good addresses (a flaky resolver
/// must not make a device vanish): the state stays ok and says so. They
/// are dropped, and the state is failed, once `dropAfterFailures` lookups
/// in a row have failed over more than `dropAfterSeconds` since the last
/// success. After a failure the next try comes sooner (2 s, doubling up to
/// the interval), never in a loop (docs/PROTOCOL.md "Peer sources").
public final class NamedPeerSource: PeerSource {
    public static let resolveInterval = 60.0
    /// Addresses kept per name (a round-robin name may have many).
    public static let maxAddresses = 8
    /// Both must hold before failed lookups drop the last good addresses:
    /// a burst of quick failures (a network change) drops nothing, nor
    /// does one failure after a long sleep.
    public static let dropAfterFailures = 3
    public static let dropAfterSeconds = 300.0
    /// The first retry after a failure (then doubling, up to `resolveInterval`).
    public static let failureRetry = 2.0
    /// How long after a network change the name is looked up: the burst
    /// of netlink events, and the resolver's new configuration, settle.
    public static let networkSettle = 1.0

    /// What one lookup gave: addresses, or the resolver's words.
    public enum Resolution: Sendable, Equatable { case success([UDPAddress]), failure(String) }
    public typealias Resolver = @Sendable (PeerName) -> Resolution

    public let peer: PeerName
    private let resolver: Resolver
    private let current: Locked<Current>

    private struct Current {
        var addresses: [UDPAddress] = []
        var state: PeerSourceState
        /// Monotonic and wall-clock (seconds since the epoch) times of the last success.
        var lastSuccess: (monotonic: Double, wall: Int)?
        var failures = 0
        init(_ state: PeerSourceState) { self.state = state }
    }

    /// A name the system's resolver looks up (`resolve`).
    public convenience init(_ peer: PeerName) { self.init(peer, resolver: NamedPeerSource.resolve) }

    /// - Parameter resolver: the lookup (tests give their own), called on
    ///   the `hoff-reach` thread only.
    public init(_ peer: PeerName, resolver: @escaping Resolver) {
        self.peer = peer
        self.resolver = resolver
        current = Locked(Current(PeerSourceState(kind: .peer, name: peer.description, condition: .pending)))
    }

    public var addresses: [UDPAddress] { current.withLock { $0.addresses } }
    public var state: PeerSourceState { current.withLock { $0.state } }
    public var refreshAfterNetworkChange: Double? { Self.networkSettle }

    public func refresh(now: Double) -> Double? {
        let result = resolver(peer)
        return current.withLock { c in
            let name = peer.description
            switch result {
            case .success(let addresses):
                c.addresses = addresses
                c.lastSuccess = (now, Int(time(nil)))
                c.failures = 0
                c.state = PeerSourceState(kind: .peer, name: name, condition: .ok, addresses: addresses.map(\.description))
                return now + Self.resolveInterval
            case .failure(let message):
                c.failures += 1
                let retry = min(Self.resolveInterval, Self.failureRetry * Double(1 << min(c.failures - 1, 8)))
                if let last = c.lastSuccess, !c.addresses.isEmpty,
                   c.failures < Self.dropAfterFailures || now - last.monotonic <= Self.dropAfterSeconds {
                    // Kept: the state says the lookups failed, and when the kept addresses were resolved.
                    c.state = PeerSourceState(kind: .peer, name: name, condition: .ok, addresses: c.addresses.map(\.description),
                                              message: (c.failures == 1 ? "the last lookup failed" : "the last \(c.failures) lookups failed")
                                                  + " (\(message)); kept the addresses of \(Self.utc(last.wall))")
                } else {
                    c.addresses = []
                    let since = c.lastSuccess.map { "; it last resolved at \(Self.utc($0.wall))" } ?? ""
                    c.state = PeerSourceState(kind: .peer, name: name, condition: .failed, message: message + since)
                }
                return now + retry
            }
        }
    }

    /// `2026-11-28 02:40:05 UTC`.
    static func utc(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }

    /// The name's addresses (IPv4 and IPv6, each once, in the resolver's
    /// order, at most `maxAddresses`), or the resolver's words: the
    /// system's resolver (getaddrinfo).
    @Sendable public static func resolve(_ peer: PeerName) -> Resolution {
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
