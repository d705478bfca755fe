// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Where a device learns the addresses it sends its beacons to
/// (docs/PROTOCOL.md "Peer sources"): the link (multicast, the
/// transport's own), configured peers (numbers or host names), the tailnet
/// (tailscaled's LocalAPI), and a relay. The engine's `PeerSources` asks
/// each for its addresses and beacons to their union; nothing new goes on
/// the wire.
///
/// A source that needs time (a name to resolve, a daemon to ask) does it in
/// `refresh`, on the one `hoff-reach` thread of its engine, never on the
/// beacon or scheduler threads. Threads: `refresh` and `descriptorReadable`
/// on that thread only; `addresses` and `state` from any thread.
public protocol PeerSource: AnyObject, Sendable {
    /// Unicast beacon targets now (the discovery port included).
    var addresses: [UDPAddress] { get }
    /// What `handoff doctor` and STATUS `sources` show.
    var state: PeerSourceState { get }
    /// Whether `refresh` has work (a static address has none: no thread is
    /// started for sources that all say false).
    var needsRefresh: Bool { get }
    /// Does what is due (may block for a bounded time) and returns when it
    /// wants to run again (monotonic seconds), nil for "only on an event of
    /// `descriptor`".
    func refresh(now: Double) -> Double?
    /// A descriptor whose readability asks for a refresh (inotify), or -1.
    var descriptor: Int32 { get }
    /// How long after the network's interfaces change to refresh (a name
    /// may resolve elsewhere now), nil when a change means nothing here.
    var refreshAfterNetworkChange: Double? { get }
    /// Reads what made `descriptor` readable; true when a refresh is due now.
    func descriptorReadable() -> Bool
}

extension PeerSource {
    public var needsRefresh: Bool { true }
    public var descriptor: Int32 { -1 }
    public var refreshAfterNetworkChange: Double? { nil }
    public func descriptorReadable() -> Bool { false }
}

/// A source's state for people (doctor) and programs (STATUS `sources`).
public struct PeerSourceState: Sendable, Equatable {
    /// Which source: the link, a configured peer, the tailnet, the relay.
    public typealias Kind = PeerPathKind

    public enum Condition: String, Sendable {
        /// In use: `addresses` are beaconed to (for the link, multicast is on).
        case ok
        /// Turned off by configuration.
        case off
        /// Not asked yet (a name before its first resolution).
        case pending
        /// Nothing to ask: no tailscaled socket at the path.
        case absent
        /// Asked, and refused: the socket refuses connections, or the tailnet
        /// is not running (`message` says which).
        case unavailable
        /// Asked, and the answer is unusable (a timeout, garbage, too big),
        /// or a name does not resolve: `message` says what.
        case failed
    }

    public var kind: Kind
    /// The peer as configured (`ada.local:52370`), the tailnet's socket
    /// path, "" for the link.
    public var name: String
    public var condition: Condition
    /// The unicast targets this source gives now, as text (`host:port`).
    public var addresses: [String]
    /// Tailnet: the devices kept (online, this person's, not shared in).
    public var peers: Int
    /// What went wrong, or why it is off (English; the library's words).
    public var message: String?

    public init(kind: Kind, name: String, condition: Condition, addresses: [String] = [], peers: Int = 0,
                message: String? = nil) {
        self.kind = kind
        self.name = name
        self.condition = condition
        self.addresses = addresses
        self.peers = peers
        self.message = message
    }
}
