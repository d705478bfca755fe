// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity

extension AgentServer {
    /// WELCOME's body.
    var welcome: AgentWelcome {
        AgentWelcome(agentVersion: identity.agentVersion, deviceID: identity.device.idBytes,
                     deviceName: engine.deviceName, role: identity.device.role, accountID: identity.accountID)
    }

    /// STATUS's body: the device, the engine's view of the others, and
    /// the engine's and the server's counters (server ones prefixed "agent.").
    func status() -> AgentStatus {
        var extra: [String: Int64] = [:]
        for (key, value) in counters.dictionary { extra["agent." + key] = value }
        // What became of history records (docs/agent.md §14): none lost uncounted.
        if let counts = history?.counts {
            extra["agent.historyReceived"] = Int64(counts.received)
            extra["agent.historyCoalesced"] = Int64(counts.coalesced)
            extra["agent.historyDropped"] = Int64(counts.dropped)
            extra["agent.historyFailed"] = Int64(counts.failed)
        }
        return AgentStatus(engine: engine, device: currentDevice, clients: clientCount, extraCounters: extra)
    }
}
