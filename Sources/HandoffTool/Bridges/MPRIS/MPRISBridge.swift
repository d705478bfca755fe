// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The sending side: offers what the Playing player plays as
/// `org.libhandoff.media.playing` (docs/mpris.md), keeps the offer fresh,
/// pauses the player when another device continued it, and keeps the
/// last state in the status file for `doctor`.
final class MPRISBridge: UserActivityDelegate {
    let watcher: MPRISWatcher
    let home: String
    let environment: [String: String]
    var log: (JSONObject) -> Void = { _ in }
    weak var application: Application?

    private var activity: UserActivity?
    private var offeredPlayer: String?
    private var offered: MPRISActivityInfo?
    private var lastState = ""

    init(watcher: MPRISWatcher, home: String, environment: [String: String]) {
        self.watcher = watcher
        self.home = home
        self.environment = environment
    }

    /// After every change of any player: offer, refresh or resign.
    func update() {
        guard let player = MPRISChoice.player(Array(watcher.players.values)) else {
            resign(reason: "nothing is playing")
            return
        }
        switch MPRISURLRules.offer(player.url ?? "", home: home, playerSchemes: player.uriSchemes) {
        case .refuse(let reason):
            resign(reason: "\(player.suffix): \(reason)")
        case .offer(let url, let homePath):
            let info = MPRISActivityInfo(url: url, homePath: homePath, position: player.position(at: player.positionAt),
                                         at: player.positionAt, playing: player.isPlaying, rate: player.rate,
                                         desktopEntry: player.desktopEntry, player: player.suffix)
            offer(info, title: MPRISActivityInfo.title(track: player.title, artists: player.artists, url: url), player: player)
        }
    }

    private func offer(_ info: MPRISActivityInfo, title: String, player: MPRISPlayer) {
        guard let application else { return }
        if let activity, offeredPlayer == player.busName, !activity.isInvalidated {
            guard info != offered || activity.title != title else { return }
            // The same player: the offer is updated in place, so the agent's
            // ahead-of-time payload follows.
            do {
                activity.title = title
                try activity.setUserInfo(info.userInfo)
                if info.url != offered?.url { try activity.setWebpageURL(webpage(info.url)) }
                activity.needsSave = true
                offered = info
                log(["event": "refreshed", "player": .string(player.busName), "title": .string(title),
                     "position": .double(info.position), "playing": .bool(info.playing)])
            } catch {
                log(["event": "error", "message": .string(error.message)])
            }
            writeStatus(state: "offered", reason: nil, title: title, url: info.url)
            return
        }
        if let activity { application.resignCurrent(activity) }
        do {
            let made = try UserActivity(activityType: MPRISActivityInfo.type)
            made.title = title
            try made.setUserInfo(info.userInfo)
            try made.setWebpageURL(webpage(info.url))
            made.retainDelegate(self)
            try application.becomeCurrent(made)
            activity = made
            offeredPlayer = player.busName
            offered = info
            log(["event": "offered", "id": .string(made.activityID.uuidString), "player": .string(player.busName),
                 "title": .string(title), "url": .string(info.url), "position": .double(info.position)])
            writeStatus(state: "offered", reason: nil, title: title, url: info.url)
        } catch {
            activity = nil
            log(["event": "error", "message": .string(error.message)])
        }
    }

    private func webpage(_ url: String) -> URLReference? {
        guard let scheme = MPRISURLRules.scheme(of: url), scheme == "http" || scheme == "https" else { return nil }
        return URLReference(string: url)
    }

    func resign(reason: String) {
        if let activity {
            application?.resignCurrent(activity)
            self.activity = nil
            offeredPlayer = nil
            offered = nil
            log(["event": "resigned", "reason": .string(reason)])
        }
        writeStatus(state: "not-offered", reason: reason, title: nil, url: nil)
    }

    private func writeStatus(state: String, reason: String?, title: String?, url: String?) {
        var line: JSONObject = ["state": .string(state)]
        if let title { line["title"] = .string(title) }
        if let url { line["url"] = .string(url) }
        if let reason { line["reason"] = .string(reason) }
        let text = JSON.object(line).text
        guard text != lastState else { return }
        lastState = text
        if let reason { log(["event": "not-offered", "reason": .string(reason)]) }
        MPRISStatusFile.write(text, environment: environment)
    }

    // MARK: UserActivityDelegate

    /// Another device continued it: pause here, as the person moved on.
    func userActivityWasContinued(_ activity: UserActivity) {
        guard activity === self.activity, let name = offeredPlayer else { return }
        log(["event": "continued-elsewhere", "player": .string(name)])
        watcher.callPlayer(name, "Pause", done: { [weak self] error in
            if let error {
                self?.log(["event": "pause-failed", "player": .string(name), "message": .string(error.message)])
            } else {
                self?.log(["event": "paused", "player": .string(name)])
            }
        })
    }
}
