// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// What the agent shows on the session bus (docs/agent.md §6): the
/// notifications, the tray icon and the desktop's search. Each is started
/// on the address asked for; when the bus goes away (a session ending,
/// dbus-daemon restarted) or was not there at start, the ones asked for
/// start again once it is back (`SessionBusReturn`: inotify on the bus
/// socket's folder, nothing while it is absent). Loop thread.
struct SessionBusFaces {
    enum Face: String, CaseIterable {
        case notifications, tray, search
    }

    /// The faces asked for, each with its address (nil: the environment's).
    var wanted: [Face: String?] = [:]
    /// The token each running face is watched under.
    var tokens: [Face: EventLoop.Token] = [:]
    /// Watching for the bus to come back, while a face asked for is not running.
    var returnWatch: (watch: SessionBusReturn, token: EventLoop.Token)?
    /// "The bus cannot be watched" was logged: once is enough.
    var saidUnwatchable = false
}

extension AgentServer {
    /// Shows notifications for what can be continued, on the session bus
    /// at `address` (nil: the environment's). Any thread; without a bus
    /// or a notification server it logs so and the agent carries on, and
    /// starts them when the bus comes.
    public func startNotifications(busAddress: String? = nil) {
        loop.post { [self] in self.want(.notifications, busAddress) }
    }

    /// Shows the tray icon and its menu (docs/agent.md §6 "The tray") on
    /// the session bus at `address` (nil: the environment's); what Pause and
    /// Pair do is `trayActions` (nil: `MemoryTrayActions`). Any thread;
    /// without a bus or a tray it logs so and the agent carries on.
    public func startTray(busAddress: String? = nil) {
        loop.post { [self] in self.want(.tray, busAddress) }
    }

    /// Serves the history to the desktop's search (GNOME Shell, KRunner;
    /// docs/history.md "Searching from the desktop") on the session bus
    /// at `address` (nil: the environment's). Any thread; without a bus it
    /// logs so and the agent carries on.
    public func startSearch(busAddress: String? = nil) {
        loop.post { [self] in self.want(.search, busAddress) }
    }

    private func want(_ face: SessionBusFaces.Face, _ address: String?) {
        busFaces.wanted[face] = .some(address)
        if !start(face) { watchBusReturn() }
    }

    /// Starts `face` on its address; false when no bus answered.
    private func start(_ face: SessionBusFaces.Face) -> Bool {
        guard busFaces.tokens[face] == nil, let wanted = busFaces.wanted[face] else { return true }
        let source: any AgentLoopSource
        switch face {
        case .notifications:
            guard let started = AgentNotifications.start(server: self, address: wanted) else { return false }
            notifications = started
            source = started
        case .tray:
            let actions = trayActions ?? MemoryTrayActions(server: self)
            trayActions = actions
            let content = OffersTrayContent(server: self, actions: actions)
            guard let started = AgentTray.start(content: content, address: wanted, log: logSink) else { return false }
            tray = started
            source = started
        case .search:
            guard let started = AgentSearch.start(backend: self, address: wanted, log: logSink) else { return false }
            search = started
            source = started
        }
        let token = takeToken()
        busFaces.tokens[face] = token
        sources.add(source, token: token)
        return true
    }

    /// After each turn of the loop: a face whose bus closed (its descriptor
    /// is -1 then) is let go, and the bus's return is watched; once every
    /// face asked for runs again, the watch ends.
    func checkBusFaces() {
        var lost = false
        for (face, token) in busFaces.tokens where running(face)?.fd ?? -1 < 0 {
            sources.remove(token)
            busFaces.tokens[face] = nil
            switch face {
            case .notifications: notifications = nil
            case .tray: tray = nil
            case .search: search = nil
            }
            lost = true
        }
        if lost { watchBusReturn() }
        if let (_, token) = busFaces.returnWatch, busFaces.wanted.keys.allSatisfy({ busFaces.tokens[$0] != nil }) {
            sources.remove(token)
            busFaces.returnWatch = nil
        }
    }

    private func running(_ face: SessionBusFaces.Face) -> (any AgentLoopSource)? {
        switch face {
        case .notifications: notifications
        case .tray: tray
        case .search: search
        }
    }

    private func watchBusReturn() {
        guard busFaces.returnWatch == nil, let address = busFaces.wanted.values.first else { return }
        guard let watch = SessionBusReturn(address: address, reconnect: { [unowned self] in self.restartBusFaces() }) else {
            if !busFaces.saidUnwatchable {
                busFaces.saidUnwatchable = true
                log("bus", "the session bus's address is not a socket path that can be watched: "
                    + "notifications, the tray and the search come back when the agent restarts")
            }
            return
        }
        let token = takeToken()
        busFaces.returnWatch = (watch, token)
        sources.add(watch, token: token)
        log("bus", "waiting for the session bus at \(watch.socketPath)", ["path": .string(watch.socketPath)])
    }

    /// The bus's socket is there: starts each face asked for that is not
    /// running; true when all run.
    private func restartBusFaces() -> Bool {
        var all = true
        for face in SessionBusFaces.Face.allCases where busFaces.wanted[face] != nil && busFaces.tokens[face] == nil {
            if start(face) {
                log("bus", "the session bus is back: \(face.rawValue) started again", ["face": .string(face.rawValue)])
            } else {
                all = false
            }
        }
        return all
    }
}
