// SPDX-License-Identifier: MIT OR Apache-2.0

/// What the agent does for a front end besides what `AgentControls`
/// does (docs/agent.md §6 "The tray"): the seams other parts of the agent
/// fill in. Loop thread. Set `AgentServer.trayActions` on the loop thread
/// before the tray starts (`AgentServer.startTray` posts its start).
protocol TrayActions: AnyObject {
    /// Paused for this session: the pause of an agent without an account
    /// directory (with one, the settings file's: `AgentControls`).
    var isPaused: Bool { get }
    func setPaused(_ paused: Bool)
    /// The person chose "Pair a new device…".
    func pairNewDevice()
}

/// The default: pause is remembered until the agent stops, pairing
/// explains how a device joins.
final class MemoryTrayActions: TrayActions {
    private unowned let server: AgentServer
    private(set) var isPaused = false

    init(server: AgentServer) {
        self.server = server
    }

    /// `AgentControls.setPaused` logs it and tells the front ends.
    func setPaused(_ paused: Bool) {
        isPaused = paused
    }

    /// The agent sponsors every pairing a new device starts (docs/agent.md
    /// §9): there is nothing to start here, only to say what to do.
    func pairNewDevice() {
        server.log("pair-help", "the person asked to pair a new device: it runs `handoff pair`, this device asks to compare")
        server.notifications?.showPairingHelp()
    }
}
