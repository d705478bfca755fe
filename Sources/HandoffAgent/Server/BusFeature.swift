// SPDX-License-Identifier: MIT OR Apache-2.0

/// How a feature of the agent lives on the session bus (docs/agent.md §6):
/// how to start it on an address and how the server lets go of it when
/// its bus closes. The core (`AgentServer+SessionBus`) knows the table
/// `BusFeature.all` (the bus features of `AgentFeature.all`), not each
/// feature: it starts the ones asked for, watches each as a loop source,
/// and starts them again when the bus comes back. Each feature's entry
/// lives in its folder under Features/.
struct BusFeature: Sendable {
    /// For the log and `startBusFeature`: "notifications", "tray", "search".
    let name: String
    /// Connects on `address` (nil: the environment's) and takes the
    /// feature's place in the server; nil when no bus answered (the feature
    /// logged why). Loop thread.
    let start: @Sendable (AgentServer, String?) -> (any AgentLoopSource)?
    /// Its bus closed: the server's slot for it is emptied. Loop thread.
    let stopped: @Sendable (AgentServer) -> Void

    /// Every feature on the session bus, in the order they start again
    /// (that of `AgentFeature.all`).
    static let all: [BusFeature] = AgentFeature.all.compactMap(\.bus)

    static func named(_ name: String) -> BusFeature? {
        all.first { $0.name == name }
    }
}
