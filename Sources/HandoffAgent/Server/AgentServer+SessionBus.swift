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
    var running: [String: (source: any AgentLoopSource, key: LoopSources.Key)] = [:]
    /// Watching for the bus to come back, while a feature asked for is not running.
    var returnWatch: (watch: SessionBusReturn, key: LoopSources.Key)?
    /// "The bus cannot be watched" was logged: once is enough.
    var saidUnwatchable = false
}

extension AgentServer {
    /// Starts the feature of `BusFeature.all` called `name` on the session
    /// bus at `busAddress` (nil: the environment's), and again whenever the
    /// bus comes back; without a bus (or a notification server, a tray) it
    /// logs so and the agent carries on. Loop thread.
    func startBusFeatureNow(_ name: String, busAddress: String?) {
        busFeatures.wanted[name] = .some(busAddress)
        if !start(name) { watchBusReturn() }
    }

    /// Starts the feature `name` on its address; false when no bus answered.
    private func start(_ name: String) -> Bool {
        guard busFeatures.running[name] == nil, let wanted = busFeatures.wanted[name],
              let feature = BusFeature.named(name) else { return true }
        guard let source = feature.start(self, wanted) else { return false }
        busFeatures.running[name] = (source, sources.add(source))
        return true
    }

    /// Before each wait of the loop: a feature whose bus closed (its descriptor
    /// is -1 then) is let go, and the bus's return is watched; once every
    /// feature asked for runs again, the watch ends.
    func checkBusFeatures() {
        var lost = false
        for (name, running) in busFeatures.running where running.source.fd < 0 {
            sources.remove(running.key)
            busFeatures.running[name] = nil
            BusFeature.named(name)?.stopped(self)
            lost = true
        }
        if lost { watchBusReturn() }
        if let (_, key) = busFeatures.returnWatch, busFeatures.wanted.keys.allSatisfy({ busFeatures.running[$0] != nil }) {
            sources.remove(key)
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
        busFeatures.returnWatch = (watch, sources.add(watch))
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
