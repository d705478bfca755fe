// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffJSON
import HandoffModel
import HandoffRuntime

/// What the checks of one `doctor` run share: the options, and what earlier
/// checks learned (the account, the source of the engine's figures: the
/// agent or an engine of doctor's own, the devices heard).
/// Main thread only.
final class DoctorContext {
    let beaconConfig: BeaconTransportConfig
    /// tailscaled's socket for doctor's own engine (`--tailnet-socket`,
    /// `--no-tailnet`, else the environment's or the default).
    var tailnetSocket: String? = TailnetSource.configuredSocket()
    /// Channel addresses to test (`--peer`).
    let peers: [SocketAddress]
    let listenSeconds: Double
    let channelAddress: SocketAddress
    let limits: ChannelLimits

    var profile: Profile?
    var account: AccountKey?
    var device: DeviceIdentity?
    /// The command line, for choosing the source as nearby does.
    let arguments: ParsedArguments
    /// The agent or an engine of doctor's own, once the port check chose.
    var source: NearbySource?
    /// The engine's figures when the listen window began (the agent's
    /// counters run from its start: the window's are the difference).
    var before: AgentStatus?
    /// Each peer source's state, once the sources check read it (the report's `sources`).
    var sources: [PeerSourceState]?
    /// The history's figures, once its check read them (the report's `history`).
    var history: JSONObject?
    /// What the listen window heard, by kind (the report's `beacons`).
    var heardBeacons: BeaconTally?
    let queue: HostQueue
    let loop: MainLoop
    /// Other devices of the account whose beacons arrived, by device id.
    var heard: [String: HeardDevice] = [:]
    /// SIGINT or SIGTERM arrived: the remaining checks are skipped.
    var interrupted = false

    struct HeardDevice {
        var name: String
        var role: DeviceRole
        /// The engine verified its channel (a handshake with the account's key).
        var verified: Bool
        /// Its channel per address family it was heard over: a beacon's
        /// source address and channel port.
        var channels: [AddressFamily: SocketAddress]

        /// The channels, IPv4 first.
        var addresses: [SocketAddress] { AddressFamily.allCases.compactMap { channels[$0] } }
    }

    init(_ arguments: ParsedArguments, beaconConfig: BeaconTransportConfig, peers: [SocketAddress], listenSeconds: Double,
         channelAddress: SocketAddress, limits: ChannelLimits) throws(HandoffError) {
        self.arguments = arguments
        self.beaconConfig = beaconConfig
        self.peers = peers
        self.listenSeconds = listenSeconds
        self.channelAddress = channelAddress
        self.limits = limits
        queue = try HostQueue()
        loop = MainLoop([queue])
    }

    /// The key beacons are opened with: the account's, or (without an
    /// account) a random one, so arriving packets are still counted.
    var beaconAccount: AccountKey { account ?? AccountKey.generate() }

    /// Doctor's options that set up the device's network (`--peer` here
    /// names a channel to test, not a beacon peer).
    static let deviceOptions = ["--beacon-port", "--no-multicast", "--interface", "--tailnet-socket", "--no-tailnet"]
}

/// IPv4 or IPv6: a device heard over both is tested over both.
enum AddressFamily: String, CaseIterable {
    case ipv4 = "IPv4"
    case ipv6 = "IPv6"

    init(of address: SocketAddress) { self = address.host.contains(":") ? .ipv6 : .ipv4 }
}

/// One check of `doctor`: runs in order with the others, may use what
/// earlier ones put in the context.
protocol DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding]
}
