// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity

/// The tray's Pause as the person's settings (docs/agent.md §11): the
/// checkmark is what the engine applies, toggling it writes the settings
/// file through `SettingsStore.update` (the engine's watch applies it, and
/// `ContinuityEngine.onSettingsApplied` refreshes the tray). Pairing is as
/// `MemoryTrayActions` does it. Loop thread.
final class SettingsTrayActions: TrayActions {
    private unowned let server: AgentServer
    private let store: SettingsStore
    private let pairing: MemoryTrayActions

    init(server: AgentServer, store: SettingsStore) {
        self.server = server
        self.store = store
        pairing = MemoryTrayActions(server: server)
    }

    var isPaused: Bool { server.engine.settings.paused }

    func setPaused(_ paused: Bool) {
        do {
            let written = try store.update { $0.paused = paused }
            // At once, so the menu redrawn now shows it (the watch's reload
            // of the same settings then changes nothing).
            server.engine.apply(written)
            server.log("pause", paused ? "the person paused Handoff in the tray" : "the person resumed Handoff in the tray",
                       ["paused": .bool(paused)])
        } catch {
            server.log("pause-failed", "the tray could not \(paused ? "pause" : "resume") Handoff: \(error.message)",
                       ["paused": .bool(paused)])
        }
    }

    func pairNewDevice() { pairing.pairNewDevice() }
}
