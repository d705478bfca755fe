// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel

/// What a front end does (docs/agent.md §15), the one path the tray and
/// the session-bus API share: continuing an offer or a history entry
/// (logged, then routed as the notification's Continue), and the
/// person's settings (docs/agent.md §11): written through
/// `SettingsStore.update` (the file `handoff settings` writes too),
/// applied to the engine at once, and the front ends told. Without an
/// account directory the pause is the session's (`MemoryTrayActions`)
/// and the rest cannot be set. Loop thread.
struct AgentControls {
    unowned let server: AgentServer
    /// Who asked, for the log's text ("the session bus").
    let surface: String
    /// The same for the log's `surface` field ("session-bus").
    let surfaceKey: String

    static func tray(_ server: AgentServer) -> AgentControls {
        AgentControls(server: server, surface: "the tray", surfaceKey: "tray")
    }

    static func sessionBus(_ server: AgentServer) -> AgentControls {
        AgentControls(server: server, surface: "the session bus", surfaceKey: "session-bus")
    }

    private var store: SettingsStore? {
        server.engine.configuration.settingsDirectory.map(SettingsStore.init(directory:))
    }

    var isPaused: Bool {
        store == nil ? server.trayActions?.isPaused ?? false : server.engine.settings.paused
    }

    func setPaused(_ paused: Bool) -> Result<Void, HandoffError> {
        guard store != nil else {
            let actions = server.trayActions ?? MemoryTrayActions(server: server)
            server.trayActions = actions
            actions.setPaused(paused)
            server.trayStateChanged()
            server.log("pause", "the person \(paused ? "paused" : "resumed") Handoff through \(surface)", ["paused": .bool(paused)])
            return .success(())
        }
        return update("pause", paused ? "paused Handoff" : "resumed Handoff", ["paused": .bool(paused)]) { $0.paused = paused }
    }

    /// Continues offer `id` (it may have gone: the router says so).
    func continueOffer(_ id: ActivityID, activationToken: String?) -> Result<ContinueChoice, HandoffError> {
        server.log("chosen", "the person chose \(id.uuidString) through \(surface)",
                   ["activity": .string(id.uuidString), "token": .bool(activationToken != nil), "surface": .string(surfaceKey)])
        return failureLogged(id.uuidString, server.routing.choose(id, activationToken: activationToken))
    }

    /// Continues history entry `entry` as a handoff from the past.
    func continueRecent(_ entry: Int64, activationToken: String?) -> Result<ContinueChoice, HandoffError> {
        server.log("chosen", "the person chose history entry \(entry) through \(surface)",
                   ["entry": .int(entry), "token": .bool(activationToken != nil), "surface": .string(surfaceKey)])
        return failureLogged(String(entry), server.continueHistoryEntry(entry, activationToken: activationToken))
    }

    private func failureLogged(_ id: String, _ result: Result<ContinueChoice, HandoffError>) -> Result<ContinueChoice, HandoffError> {
        if case .failure(let error) = result {
            server.log("choose-failed", "cannot continue \(id): \(error.message)",
                       ["activity": .string(id), "code": .int(Int64(error.code.rawValue))])
        }
        return result
    }

    /// Per device: `offer`, `accept`, `history` (nil: left as they are).
    func setDevice(_ id: String, name: String?, offer: Bool?, accept: Bool?, history: Bool?) -> Result<Void, HandoffError> {
        update("device-settings", "changed the settings of device \(id)", ["device": .string(id)]) { s in
            var rule = s.devices[id] ?? HandoffSettings.DeviceRule(name: name)
            if let offer { rule.offer = offer }
            if let accept { rule.accept = accept }
            if let history { rule.history = history }
            if rule.name == nil { rule.name = name }
            s.devices[id] = rule
        }
    }

    /// Per app: `muted`, `history` (nil: left as they are).
    func setApp(_ bundle: String, muted: Bool?, history: Bool?) -> Result<Void, HandoffError> {
        update("app-settings", "changed the settings of app \(bundle)", ["bundle": .string(bundle)]) { s in
            if let muted {
                if muted { s.mutedApps.insert(bundle) } else { s.mutedApps.remove(bundle) }
            }
            if let history {
                if history { s.historyOffApps.remove(bundle) } else { s.historyOffApps.insert(bundle) }
            }
        }
    }

    private func update(_ event: String, _ what: String, _ fields: KeyValuePairs<String, AgentLogEvent.Value>,
                        _ change: (inout HandoffSettings) -> Void) -> Result<Void, HandoffError> {
        guard let store else {
            return .failure(HandoffError(.invalidState, "this agent has no account directory: its settings cannot be changed"))
        }
        do {
            let written = try store.update { (s) throws(HandoffError) in change(&s) }
            // At once, so what front ends read next shows it (the file
            // watch's reload of the same settings then changes nothing).
            server.engine.apply(written)
            server.trayStateChanged()
            server.log(event, "the person \(what) through \(surface)", fields)
            return .success(())
        } catch {
            server.log(event + "-failed", "\(surface) could not change the settings: \(error.message)")
            return .failure(error)
        }
    }
}
