// SPDX-License-Identifier: MIT OR Apache-2.0

extension BusFeature {
    /// The desktop's search of the history (`AgentSearch`: GNOME Shell, KRunner).
    static let search = BusFeature(name: "search", start: { server, address in
        guard let started = AgentSearch.start(backend: server, address: address, log: server.logSink) else { return nil }
        server.search = started
        return started
    }, stopped: { $0.search = nil })
}
