// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity

/// One feature of the agent: the history, the desktop notifications, the
/// tray icon, the desktop's search, sponsoring pairings. The core (`Agent`,
/// `AgentServer`) knows the table `AgentFeature.all`, not each feature, as
/// the tool knows `Tool.commands`: the server starts each as the options
/// ask, in the table's order, on its loop before the first app is served,
/// and stops them in the reverse order when it stops. A feature on the
/// session bus also has its `BusFeature` (started again when the bus comes
/// back). Each entry lives in its feature's folder under Features/.
struct AgentFeature: Sendable {
    /// For the log: "history", "notifications", "tray", "search", "pairing".
    let name: String
    /// Starts it on `server` as `options` ask (nothing when they do not).
    /// Loop thread.
    let start: @Sendable (AgentServer, AgentFeatureOptions) -> Void
    /// The server stops (its connections closed): let go. Loop thread.
    let stop: @Sendable (AgentServer) -> Void
    /// Its life on the session bus; nil: not a bus feature.
    let bus: BusFeature?

    init(name: String, start: @escaping @Sendable (AgentServer, AgentFeatureOptions) -> Void,
         stop: @escaping @Sendable (AgentServer) -> Void, bus: BusFeature? = nil) {
        self.name = name
        self.start = start
        self.stop = stop
        self.bus = bus
    }

    /// A feature on the session bus: started on the address `address`
    /// reads from the options (nil: not asked for), and again whenever the
    /// bus comes back; it lets go when its bus closes or the loop stops
    /// (`AgentLoopSource.loopWillStop`).
    init(onSessionBus bus: BusFeature, address: @escaping @Sendable (AgentFeatureOptions) -> String??) {
        name = bus.name
        start = { server, options in
            guard let address = address(options) else { return }
            server.startBusFeatureNow(bus.name, busAddress: address)
        }
        stop = { _ in }
        self.bus = bus
    }

    /// Every feature, in the order they start.
    static let all: [AgentFeature] = [.history, .notifications, .tray, .search, .pairing, .sessionAPI]
}

/// What the agent was asked to run (`Agent.init`'s options), as the
/// features read it.
struct AgentFeatureOptions: Sendable {
    /// The history's database; nil: none is kept.
    var history: String?
    /// Each bus feature's session bus: nil when off, else its address
    /// (nil inside: the environment's).
    var notifications: String??
    var tray: String??
    var search: String??
    /// The session-bus API (docs/agent.md §15).
    var sessionAPI: String??
    /// The account directory (the settings file and the device file); nil:
    /// none (the tray's Pause is then only in memory).
    var settingsDirectory: String?
    /// Sponsoring pairings, when asked for (it needs the notifications).
    var pairing: Pairing?

    struct Pairing: Sendable {
        var account: AccountKey
        var deviceName: String
        var config: PairingConfiguration
    }
}
