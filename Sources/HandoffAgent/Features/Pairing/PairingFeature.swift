// SPDX-License-Identifier: MIT OR Apache-2.0

extension AgentFeature {
    /// Sponsoring new devices' pairings (docs/agent.md §9): the engine
    /// hands it the pairing beacons it hears. It asks the person in a
    /// notification: without the notifications, no pairing.
    static let pairing = AgentFeature(name: "pairing", start: { server, options in
        guard let wanted = options.pairing, options.notifications != nil,
              let pairing = try? AgentPairing(server: server, account: wanted.account,
                                              deviceName: wanted.deviceName, config: wanted.config) else { return }
        server.pairing = pairing
        server.engine.routePairingBeacons { pairing.heard($0, from: $1) }
    }, stop: { server in
        // A run under way ends (as a "no") before the server lets go.
        server.engine.routePairingBeacons(to: nil)
        server.pairing?.stop()
        server.pairing = nil
    })
}
