// SPDX-License-Identifier: MIT OR Apache-2.0

extension AgentFeature {
    /// Desktop notifications of what can be continued (`AgentNotifications`).
    static let notifications = AgentFeature(onSessionBus: .notifications, address: \.notifications)
}

extension BusFeature {
    static let notifications = BusFeature(name: "notifications", start: { server, address in
        guard let started = AgentNotifications.start(server: server, address: address) else { return nil }
        server.notifications = started
        return started
    }, stopped: { $0.notifications = nil })
}
