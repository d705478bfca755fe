// SPDX-License-Identifier: MIT OR Apache-2.0

extension BusFeature {
    /// The tray icon and its menu (`AgentTray`); what Pause and Pair do is
    /// the server's `trayActions` (nil: `MemoryTrayActions`).
    static let tray = BusFeature(name: "tray", start: { server, address in
        let actions = server.trayActions ?? MemoryTrayActions(server: server)
        server.trayActions = actions
        let content = OffersTrayContent(server: server, actions: actions)
        guard let started = AgentTray.start(content: content, address: address, log: server.logSink) else { return nil }
        server.tray = started
        return started
    }, stopped: { $0.tray = nil })
}
