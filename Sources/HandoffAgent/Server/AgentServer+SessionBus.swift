// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// What the agent shows on the session bus (docs/agent.md §6): the
/// features of `BusFeature.all` (the notifications, the tray icon, the
/// desktop's search). Each is started on the address asked for; when the bus goes away (a session ending,
/// dbus-daemon restarted) or was not there at start, the ones asked for
/// start again once it is back (`SessionBusReturn`: inotify on the bus
/// socket's folder, nothing while it is absent). Loop thread.
struct SessionBusFeatures {
    /// The features asked for (by `BusFeature.name`), each with its address
    /// (nil: the environment's).
    var wanted: [String: String?] = [:]
    /// Each running feature and the token it is watched under.
    var running: [String: (source: any AgentLoopSource, token: EventLoop.Token)] = [:]
    /// Watching for the bus to come back, while a feature asked for is not running.
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
        startBusFeature(BusFeature.notifications.name, busAddress: busAddress)
    }

    /// Shows the tray icon and its menu (docs/agent.md §6 "The tray") on
    /// the session bus at `address` (nil: the environment's); what Pause and
    /// Pair do is `trayActions` (nil: `MemoryTrayActions`). Any thread;
    /// without a bus or a tray it logs so and the agent carries on.
    public func startTray(busAddress: String? = nil) {
        startBusFeature(BusFeature.tray.name, busAddress: busAddress)
    }

    /// Serves the history to the desktop's search (GNOME Shell, KRunner;
    /// docs/history.md "Searching from the desktop") on the session bus
    /// at `address` (nil: the environment's). Any thread; without a bus it
    /// logs so and the agent carries on.
    public func startSearch(busAddress: String? = nil) {
        startBusFeature(BusFeature.search.name, busAddress: busAddress)
    }

    /// Starts the feature of `BusFeature.all` called `name` on the session
    /// bus at `busAddress`, and again whenever the bus comes back. Any thread.
    func startBusFeature(_ name: String, busAddress: String?) {
        loop.post { [self] in
            self.busFeatures.wanted[name] = .some(busAddress)
            if !self.start(name) { self.watchBusReturn() }
        }
    }

    /// Starts the feature `name` on its address; false when no bus answered.
    private func start(_ name: String) -> Bool {
        guard busFeatures.running[name] == nil, let wanted = busFeatures.wanted[name],
              let feature = BusFeature.named(name) else { return true }
        guard let source = feature.start(self, wanted) else { return false }
        let token = takeToken()
        busFeatures.running[name] = (source, token)
        sources.add(source, token: token)
        return true
    }

    /// After each turn of the loop: a feature whose bus closed (its descriptor
    /// is -1 then) is let go, and the bus's return is watched; once every
    /// feature asked for runs again, the watch ends.
    func checkBusFeatures() {
        var lost = false
        for (name, running) in busFeatures.running where running.source.fd < 0 {
            sources.remove(running.token)
            busFeatures.running[name] = nil
            BusFeature.named(name)?.stopped(self)
            lost = true
        }
        if lost { watchBusReturn() }
        if let (_, token) = busFeatures.returnWatch, busFeatures.wanted.keys.allSatisfy({ busFeatures.running[$0] != nil }) {
            sources.remove(token)
            busFeatures.returnWatch = nil
        }
    }

    private func watchBusReturn() {
        guard busFeatures.returnWatch == nil, let address = busFeatures.wanted.values.first else { return }
        guard let watch = SessionBusReturn(address: address, reconnect: { [unowned self] in self.restartBusFeatures() }) else {
            if !busFeatures.saidUnwatchable {
                busFeatures.saidUnwatchable = true
                log("bus", "the session bus's address is not a socket path that can be watched: "
                    + "notifications, the tray and the search come back when the agent restarts")
            }
            return
        }
        let token = takeToken()
        busFeatures.returnWatch = (watch, token)
        sources.add(watch, token: token)
        log("bus", "waiting for the session bus at \(watch.socketPath)", ["path": .string(watch.socketPath)])
    }

    /// The bus's socket is there: starts each feature asked for that is not
    /// running; true when all run.
    private func restartBusFeatures() -> Bool {
        var all = true
        for feature in BusFeature.all where busFeatures.wanted[feature.name] != nil && busFeatures.running[feature.name] == nil {
            if start(feature.name) {
                log("bus", "the session bus is back: \(feature.name) started again", ["face": .string(feature.name)])
            } else {
                all = false
            }
        }
        return all
    }
}
