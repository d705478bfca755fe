// SPDX-License-Identifier: MIT OR Apache-2.0

/// What the tray's menu does besides continuing an offer (docs/agent.md §6
/// "The tray"): the seams other parts of the agent fill in. Loop thread.
/// Set `AgentServer.trayActions` on the loop thread before the tray starts
/// (`AgentServer.startTray` posts its start); when the pause changes
/// elsewhere (a settings command), call `AgentServer.trayStateChanged()`.
protocol TrayActions: AnyObject {
    /// Handoff is paused (the menu's checkmark).
    var isPaused: Bool { get }
    /// The person toggled "Pause Handoff". The settings store connects
    /// here; until it does, `MemoryTrayActions` keeps it for the session.
    func setPaused(_ paused: Bool)
    /// The person chose "Pair a new device…".
    func pairNewDevice()
}

/// The default: pause is remembered until the agent stops (and only
/// shown by the tray), pairing explains how a device joins.
final class MemoryTrayActions: TrayActions {
    private unowned let server: AgentServer
    private(set) var isPaused = false

    init(server: AgentServer) {
        self.server = server
    }

    func setPaused(_ paused: Bool) {
        isPaused = paused
        server.log("pause", paused ? "the person paused Handoff in the tray" : "the person resumed Handoff in the tray",
                   ["paused": .bool(paused)])
    }

    /// The agent sponsors every pairing a new device starts (docs/agent.md
    /// §9): there is nothing to start here, only to say what to do.
    func pairNewDevice() {
        server.log("pair-help", "the person asked to pair a new device: it runs `handoff pair`, this device asks to compare")
        server.notifications?.showPairingHelp()
    }
}
