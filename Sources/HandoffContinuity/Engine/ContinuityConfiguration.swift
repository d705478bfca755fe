// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Everything a continuity engine needs: who (account and device), where
/// (beacon port, multicast, unicast peers, channel address) and how long
/// (timeouts). Defaults suit a LAN; tests and the demo shrink them.
public struct ContinuityConfiguration: Sendable {
    public var account: AccountKey
    public var device: DeviceIdentity
    /// UDP discovery: port (default 52370), multicast on/off, unicast peers.
    public var beacons: BeaconTransportConfig
    /// Configured peers given by host name (`--peer ada.local:52370`),
    /// resolved at start and every minute (`NamedPeerSource`); numeric ones
    /// are `beacons.peers`.
    public var peerNames: [PeerName] = []
    /// tailscaled's LocalAPI socket, for the tailnet source (`TailnetSource`);
    /// nil: no tailnet source. By default the environment's
    /// (`HANDOFF_TAILNET_SOCKET`) or `/var/run/tailscale/tailscaled.sock`.
    /// Used only with a fixed beacon port: the tailnet's devices are sent
    /// beacons on the discovery port, which an ephemeral one is not.
    public var tailnetSocket: String? = TailnetSource.configuredSocket()
    /// Peer sources of the host's own, after the built-in ones (the link's
    /// unicast targets). Each is refreshed on the engine's `hoff-reach` thread.
    public var additionalPeerSources: [any PeerSource] = []
    /// Paths to the other devices besides the link (`PeerPath`): the
    /// engine starts each, sends it its beacons, dials the channels of its
    /// kind through it, and stops it. The agent gives its MQTT relay here
    /// (PROTOCOL.md §11); empty by default (an embedded app reaches the
    /// relay through the agent).
    public var paths: [any PeerPath] = []
    /// Where the TLS channel listens; port 0 picks a free one (announced in
    /// beacons). `::` is both IPv6 and IPv4 on one port (IPv4 alone where
    /// the host has no IPv6).
    public var channelAddress = SocketAddress(host: "::", port: 0)
    public var channelLimits = ChannelLimits()
    /// How long the sending app's main thread has to hand over an activity
    /// before the receiver hears RemoteApplicationTimedOut (4610).
    public var fetchTimeout: Double = 5
    /// Beacons while an activity stays the same, after the first burst.
    public var keepaliveInterval: Double = 4
    /// Delays, after a change, of the burst of beacons that announce it.
    public var burst: [Double] = [0, 0.25, 0.75, 1.75]
    /// A remote activity not heard of for this long is withdrawn.
    public var remoteLifetime: Double = 12
    /// A device that offers nothing sends a presence beacon after this
    /// many seconds without a beacon (docs/PROTOCOL.md §5 "Schedule");
    /// 0: never (it still answers solicitations and says it is leaving).
    public var presenceInterval: Double = 60
    /// A device not heard of for this long is offline and forgotten by
    /// discovery (the roster keeps when it was last seen): 2.5 presence
    /// intervals, so one lost presence beacon does not make it offline.
    public var presenceLifetime: Double = 150
    /// Where the devices this one verified are kept across restarts (the
    /// agent's: next to the account); nil keeps them in memory only.
    public var roster: DeviceRosterFile?
    /// How long an unused warm connection to a peer is kept (PROTOCOL §6:
    /// clients drop idle pooled connections after 10 s, before servers do at 15 s).
    public var idleConnectionLifetime: Double = 10
    /// The directory of the person's settings file (`SettingsStore`; the
    /// account directory): read at start and watched for changes. Nil: no
    /// settings, the defaults (tests and hosts with an explicit identity).
    public var settingsDirectory: String?

    /// The environment whose home and configuration say where documents
    /// live (docs/documents.md §2); nil: the process's own.
    public var documentEnvironment: [String: String]?

    public init(account: AccountKey, device: DeviceIdentity, beacons: BeaconTransportConfig) {
        self.account = account
        self.device = device
        self.beacons = beacons
    }
}
