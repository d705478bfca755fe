// SPDX-License-Identifier: MIT OR Apache-2.0

extension AgentFeature {
    /// The desktop's search of the history (`AgentSearch`: GNOME Shell,
    /// KRunner), when a history is kept.
    static let search = AgentFeature(onSessionBus: .search) { $0.history == nil ? nil : $0.search }
}

extension BusFeature {
    static let search = BusFeature(name: "search", start: { server, address in
        guard let started = AgentSearch.start(backend: server, address: address, log: server.logSink) else { return nil }
        server.search = started
        return started
    }, stopped: { $0.search = nil })
}
