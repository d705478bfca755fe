// SPDX-License-Identifier: MIT OR Apache-2.0

extension AgentFeature {
    /// The session-bus API front ends use (docs/agent.md §15). Devices
    /// online, offline and renamed reach it as they reach the tray.
    static let sessionAPI = AgentFeature(name: "session-api", start: { server, options in
        guard let address = options.sessionAPI else { return }
        server.startBusFeatureNow(BusFeature.sessionAPI.name, busAddress: address)
        let loop = server.loop
        server.engine.onDevicesChanged { [server] in loop.post { server.trayStateChanged() } }
    }, stop: { server in
        server.engine.onDevicesChanged(nil)
    }, bus: .sessionAPI)
}

extension BusFeature {
    static let sessionAPI = BusFeature(name: "session-api", start: { server, address in
        guard let started = AgentSessionAPI.start(server: server, address: address) else { return nil }
        server.sessionAPI = started
        return started
    }, stopped: { $0.sessionAPI = nil })
}
