// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// A way to reach the account's other devices: the seam between the engine
/// and everything that carries its beacons and channels. What goes through a
/// path is the same everywhere (sealed beacons, the channel's TLS 1.3 PSK
/// handshake and frames, docs/PROTOCOL.md); only the carriage differs.
///
/// A path has five parts, and the engine knows a path by them alone:
///
/// - beacons out: `publish(beacon:)` carries each sealed beacon to the
///   devices on the path;
/// - beacons in: what the path hears goes to `PeerPathEvents.beacon`, from
///   a `PeerPathAddress` (the path's kind and the device's tag on it);
/// - dial: `dial(_:)` gives a byte stream to the device at an address; the
///   engine runs the channel's client over it (`ChannelConnection.connect(overStream:)`);
/// - accept: streams other devices open arrive at `PeerPathEvents.accepted`,
///   for the channel server's admission (`ChannelServer.adopt`);
/// - status: `state`, what `handoff doctor` and STATUS `sources` show.
///
/// The engine's own path is the link: UDP beacons (multicast, plus unicast
/// to the addresses its `PeerSource`s give: configured peers, the tailnet)
/// and direct TCP to a channel's `SocketAddress`. Every other path is given
/// to the engine in `ContinuityConfiguration.paths` (the agent gives the MQTT
/// relay, a target of its own that libhandoff.so never links), and a channel
/// reached over one is a `SocketAddress` whose `path` names it: the engine,
/// `RemoteTable` and `ExchangeClient` tell paths apart by that typed value,
/// never by the text of a host.
///
/// Threads: every method from any thread; events on the path's own threads.
public protocol PeerPath: AnyObject, Sendable {
    /// Which kind of path this is: addresses of this kind are dialed here.
    var kind: PeerPathKind { get }
    /// What `handoff doctor` and STATUS `sources` show.
    var state: PeerSourceState { get }
    /// Starts the path; what it hears from now on goes to `events`. False
    /// when the system refused what it needs (a thread).
    @discardableResult
    func start(_ events: PeerPathEvents) -> Bool
    /// Carries a sealed beacon to the devices on this path (soon; dropped
    /// while the path is down: it announces afresh when it comes up).
    func publish(beacon packet: [UInt8])
    /// A connected stream socket to the device at `address` (owned by the
    /// caller). Throws `.connectionUnavailable` while the path is down.
    func dial(_ address: PeerPathAddress) throws(HandoffError) -> Int32
    /// The device of `deviceID` said it is leaving: what the path holds
    /// for it (streams, their share of its limits) is let go.
    func peerLeft(_ deviceID: [UInt8])
    /// Sends what is queued (the engine's leaving presence), then ends.
    /// Idempotent; bounded.
    func stop()
}

/// What a path tells its engine (on the path's threads).
public struct PeerPathEvents: Sendable {
    /// A datagram that may be a beacon, heard from the device at `from`.
    public var beacon: @Sendable (_ packet: [UInt8], _ from: PeerPathAddress) -> Void
    /// A device's sealed gone message (it went away without saying so).
    public var gone: @Sendable (_ deviceID: [UInt8]) -> Void
    /// A stream another device opened (`fd`, owned by the callee), and what
    /// to call once the channel's handshake over it completed.
    public var accepted: @Sendable (_ fd: Int32, _ from: PeerPathAddress,
                                    _ authenticated: @escaping @Sendable () -> Void) -> Void
    /// The path came up (again): time to solicit.
    public var connected: @Sendable () -> Void
    /// The path wants a fresh beacon of this device (what it holds of it is stale).
    public var announce: @Sendable () -> Void

    public init(beacon: @escaping @Sendable ([UInt8], PeerPathAddress) -> Void,
                gone: @escaping @Sendable ([UInt8]) -> Void,
                accepted: @escaping @Sendable (Int32, PeerPathAddress, @escaping @Sendable () -> Void) -> Void,
                connected: @escaping @Sendable () -> Void, announce: @escaping @Sendable () -> Void) {
        self.beacon = beacon
        self.gone = gone
        self.accepted = accepted
        self.connected = connected
        self.announce = announce
    }
}

/// The kinds of path and peer source (STATUS `sources` names them by raw value).
public enum PeerPathKind: String, Sendable, Hashable {
    /// Multicast on the link's interfaces (no unicast addresses).
    case link
    /// One configured peer (`--peer`, options.peers): a number or a host name.
    case peer
    /// tailscaled's LocalAPI.
    case tailnet
    /// An MQTT broker (PROTOCOL.md §11).
    case relay

    /// The order a continue tries a device's paths in, nearest first
    /// (PROTOCOL §11: the relay is the fallback). Explicit, so adding a
    /// kind is a decision about where it goes, not an accident of its name.
    public var preference: Int {
        switch self {
        case .link: 0
        case .peer: 1
        case .tailnet: 2
        case .relay: 3
        }
    }
}

/// A device's address on a path that is not IP (the relay): the path's
/// kind and the device's tag there. Shown as `kind:tag` ("relay:<tag>" in
/// STATUS and `handoff devices`), never parsed back.
public struct PeerPathAddress: Sendable, Hashable, CustomStringConvertible {
    public var kind: PeerPathKind
    public var tag: String

    public init(kind: PeerPathKind, tag: String) {
        self.kind = kind
        self.tag = tag
    }

    public var description: String { "\(kind.rawValue):\(tag)" }
}
