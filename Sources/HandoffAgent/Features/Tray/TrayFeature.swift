// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

extension AgentFeature {
    /// The tray icon and its menu (docs/agent.md §6 "The tray"), a client
    /// of `AgentSnapshot` and `AgentControls` as the session-bus API is: its
    /// Pause is the settings file's (docs/agent.md §11) when the agent has
    /// an account directory; devices online, offline, renamed show at once.
    static let tray = AgentFeature(name: "tray", start: { server, options in
        guard let address = options.tray else { return }
        server.startBusFeatureNow(BusFeature.tray.name, busAddress: address)
        let loop = server.loop
        server.engine.onDevicesChanged { [server] in loop.post { server.trayStateChanged() } }
    }, stop: { server in
        server.engine.onDevicesChanged(nil)
    }, bus: .tray)
}

extension BusFeature {
    /// What Pair does is the server's `trayActions` (nil:
    /// `MemoryTrayActions`).
    static let tray = BusFeature(name: "tray", start: { server, address in
        let actions = server.trayActions ?? MemoryTrayActions(server: server)
        server.trayActions = actions
        let content = OffersTrayContent(server: server, actions: actions)
        guard let started = AgentTray.start(content: content, address: address, log: server.logSink) else { return nil }
        server.tray = started
        return started
    }, stopped: { $0.tray = nil })
}
