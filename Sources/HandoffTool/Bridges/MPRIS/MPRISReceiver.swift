// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBase
import HandoffBridges
import HandoffDBus
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The receiving side (docs/mpris.md "Continuing"): a running player that
/// can open the URL (the sender's desktop entry first), else that desktop
/// entry launched and waited for (10 s); then OpenUri, a bounded wait (5 s)
/// for its Metadata to show the track, and SetPosition at the position
/// extrapolated to that moment.
final class MPRISReceiver: ApplicationDelegate {
    static let launchWait = 10.0
    static let metadataWait = 5.0
    static let pollInterval = 0.1
    /// How long a freshly started bridge waits for its first look at the bus.
    static let settleWait = 3.0
    /// How far from the wanted position a seek may land and count as done.
    static let seekSlack = 0.5

    let watcher: MPRISWatcher
    let timers: MPRISTimers
    let home: String
    var log: (JSONObject) -> Void = { _ in }

    init(watcher: MPRISWatcher, timers: MPRISTimers, home: String) {
        self.watcher = watcher
        self.timers = timers
        self.home = home
    }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool { false }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        guard userActivity.activityType == MPRISActivityInfo.type else { return false }
        let info: MPRISActivityInfo
        switch MPRISActivityInfo.parse(userActivity.userInfo) {
        case .failure(let error):
            log(["event": "continue-refused", "reason": .string(error.reason)])
            return false
        case .success(let parsed):
            info = parsed
        }
        var url = info.url
        if let homePath = info.homePath {
            guard let path = MPRISURLRules.mapToHome(homePath, home: home) else {
                log(["event": "continue-refused", "reason": .string("home_path \(homePath) is not a path below home")])
                return false
            }
            guard access(path, R_OK) == 0 else {
                log(["event": "continue-refused", "code": .int(4608), "reason": .string("\(path) is not here (home_path \(homePath))")])
                return false
            }
            url = MPRISURLRules.fileURL(path)
        }
        guard let scheme = MPRISURLRules.scheme(of: url), url.utf8.count <= MPRISURLRules.maxURLBytes else {
            log(["event": "continue-refused", "reason": .string("the URL is not one a player opens")])
            return false
        }
        // Refused now when it is already plain that nothing here can play it,
        // so the sender is not told it was continued (and does not pause).
        if watcher.isSettled, MPRISChoice.receiver(Array(watcher.players.values), scheme: scheme, desktopEntry: info.desktopEntry) == nil,
           info.desktopEntry.flatMap(Self.entryPath) == nil {
            log(["event": "continue-refused", "reason": .string("no running player opens \(scheme): URLs and no player to start")])
            return false
        }
        log(["event": "continue", "url": .string(url), "position": .double(info.position), "playing": .bool(info.playing)])
        choosePlayer(url, info, scheme: scheme, until: monotonicSeconds() + Self.settleWait)
        return true
    }

    /// Where the desktop entry `entry` (its id, `.desktop` optional) is, in
    /// the XDG data directories; nil when nowhere (or not a plain id).
    static func entryPath(_ entry: String) -> String? {
        let id = entry.hasSuffix(".desktop") ? entry : entry + ".desktop"
        guard !id.contains("/"), id.utf8.count <= 255 else { return nil }
        return XDGDataDirectories.current().directories.map { $0 + "/applications/" + id }.first { access($0, R_OK) == 0 }
    }

    /// A running player, once the watcher has had its first look at the bus
    /// (a bridge the agent just started gets the activity at once); else
    /// the sender's desktop entry, launched.
    private func choosePlayer(_ url: String, _ info: MPRISActivityInfo, scheme: String, until deadline: Double) {
        if !watcher.isSettled && monotonicSeconds() < deadline {
            timers.after(Self.pollInterval) { [weak self] in self?.choosePlayer(url, info, scheme: scheme, until: deadline) }
            return
        }
        if let player = MPRISChoice.receiver(Array(watcher.players.values), scheme: scheme, desktopEntry: info.desktopEntry) {
            open(url, info, in: player.busName)
        } else if let entry = info.desktopEntry, launch(entry) {
            waitForPlayer(url, info, scheme: scheme, until: monotonicSeconds() + Self.launchWait)
        } else {
            log(["event": "continue-failed", "reason": .string("no running player opens \(scheme): URLs and none could be started")])
        }
    }

    private func waitForPlayer(_ url: String, _ info: MPRISActivityInfo, scheme: String, until deadline: Double) {
        if let player = MPRISChoice.receiver(Array(watcher.players.values), scheme: scheme, desktopEntry: info.desktopEntry) {
            open(url, info, in: player.busName)
            return
        }
        guard monotonicSeconds() < deadline else {
            log(["event": "continue-failed", "reason": .string("the player started did not appear on the bus within \(Int(Self.launchWait)) s")])
            return
        }
        timers.after(Self.pollInterval) { [weak self] in self?.waitForPlayer(url, info, scheme: scheme, until: deadline) }
    }

    /// Starts the desktop entry `entry` (its id, `.desktop` optional) found in
    /// the XDG data directories, by its Exec (the player then gets the URL by
    /// OpenUri).
    private func launch(_ entry: String) -> Bool {
        guard let path = Self.entryPath(entry) else {
            log(["event": "launch-failed", "entry": .string(entry), "message": "no such desktop entry in the XDG data directories"])
            return false
        }
        do {
            let desktop = try DesktopEntry(path: path)
            guard let line = try desktop.string("Exec") else { return false }
            let exec = try ExecCommandLine(line)
            let pid = try Launcher(dbus: nil, searchPath: XDGDataDirectories.current().searchPath).run(exec, for: path)
            log(["event": "launched", "entry": .string(entry), "pid": .int(Int64(pid))])
            return true
        } catch {
            log(["event": "launch-failed", "entry": .string(entry), "message": .string(error.message)])
            return false
        }
    }

    private func open(_ url: String, _ info: MPRISActivityInfo, in name: String) {
        watcher.callPlayer(name, "OpenUri", build: { (w) throws(DBusError) in try w.string(url) }) { [weak self] error in
            guard let self else { return }
            if let error {
                self.log(["event": "continue-failed", "player": .string(name), "message": .string(error.message)])
                return
            }
            self.seekWhenLoaded(url, info, name, until: monotonicSeconds() + Self.metadataWait)
        }
    }

    /// Re-reads the player until its Metadata names `url` (bounded), then seeks.
    private func seekWhenLoaded(_ url: String, _ info: MPRISActivityInfo, _ name: String, until deadline: Double) {
        watcher.refresh(name, interface: MPRISPlayer.playerInterface) { [weak self] in
            guard let self, let player = self.watcher.players[name] else { return }
            if Self.sameTrack(player.url, url), let track = player.trackID {
                self.seek(player, track, info, until: deadline)
            } else if monotonicSeconds() < deadline {
                self.timers.after(Self.pollInterval) { [weak self] in self?.seekWhenLoaded(url, info, name, until: deadline) }
            } else {
                self.log(["event": "continue-failed", "player": .string(name),
                          "reason": .string("the player did not show the track within \(Int(Self.metadataWait)) s")])
            }
        }
    }

    /// SetPosition, then a check that it took: a player may show the new
    /// track before it can seek in it (mpv does) and ignore the call; then
    /// again, every 100 ms until the deadline.
    private func seek(_ player: MPRISPlayer, _ track: String, _ info: MPRISActivityInfo, until deadline: Double) {
        let position = info.position(at: Timestamp.unixNow)
        let micros = Int64(min(position * 1e6, 1e15))
        let name = player.busName
        watcher.callPlayer(name, "SetPosition", build: { (w) throws(DBusError) in
            try w.objectPath(track)
            try w.int64(micros)
        }) { [weak self] error in
            guard let self else { return }
            if let error {
                self.log(["event": "continue-failed", "player": .string(name), "message": .string(error.message)])
                return
            }
            self.timers.after(Self.pollInterval) { [weak self] in
                self?.watcher.refresh(name, interface: MPRISPlayer.playerInterface) { [weak self] in
                    guard let self, let now = self.watcher.players[name] else { return }
                    let there = now.position(at: Timestamp.unixNow)
                    let wanted = info.position(at: Timestamp.unixNow)
                    if abs(there - wanted) <= Self.seekSlack || monotonicSeconds() >= deadline {
                        if !info.playing { self.watcher.callPlayer(name, "Pause") }
                        self.log(["event": "continued", "player": .string(name), "position": .double(position),
                                  "playing": .bool(info.playing), "off_by": .double(there - wanted)])
                    } else {
                        self.seek(now, now.trackID ?? track, info, until: deadline)
                    }
                }
            }
        }
    }

    /// The same track: equal URLs, or file URLs naming the same path.
    static func sameTrack(_ shown: String?, _ url: String) -> Bool {
        guard let shown else { return false }
        if shown == url { return true }
        if shown.hasPrefix("/") { return MPRISURLRules.filePath(url) == shown }
        guard shown.hasPrefix("file:"), url.hasPrefix("file:") else { return false }
        return MPRISURLRules.filePath(shown) == MPRISURLRules.filePath(url)
    }
}
