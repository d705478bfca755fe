// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel

/// What a front end shows of the agent (docs/agent.md §15): its state,
/// this device, what can be continued, the account's devices, the recent
/// history. Plain values, compared to tell what changed; the session-bus
/// API serves them as properties, and the tray builds its menu from the
/// same snapshot (`TrayMenu.init(_:offerID:now:)`). Built on the loop thread (`AgentServer.snapshot()`).
struct AgentSnapshot: Equatable {
    enum State: String {
        case waitingForAccount = "waiting-for-account"
        case running
        case paused
    }

    struct ThisDevice: Equatable {
        var id: String
        var name: String
        var role: String
    }

    struct Offer: Equatable {
        /// The activity id (UUID form).
        var id: String
        var title: String
        var type: String
        /// The desktop entry ID that continues it ("" when only the web page opens).
        var appID: String
        var appName: String
        var icon: String
        var deviceID: String
        var deviceName: String
        var webPage: String?
        /// Ms since the epoch.
        var received: UInt64
        /// No app here continues it, only the web page opens (not served:
        /// the tray says "web page" and shows the browser's icon).
        var webPageOnly = false
    }

    struct Device: Equatable {
        var id: String
        var name: String
        var role: String
        var online: Bool
        /// Ms since the epoch.
        var lastSeen: UInt64
        /// The protocol revision its channel agreed on (nil: not verified now).
        var revision: UInt32?
        var offer: Bool
        var accept: Bool
        var history: Bool

        /// An online device is heard all the time: its `lastSeen` moving
        /// is no change worth a signal (a client reading it gets the
        /// current one).
        static func == (a: Device, b: Device) -> Bool {
            a.id == b.id && a.name == b.name && a.role == b.role && a.online == b.online
                && (a.online || a.lastSeen == b.lastSeen) && a.revision == b.revision
                && a.offer == b.offer && a.accept == b.accept && a.history == b.history
        }
    }

    struct Recent: Equatable {
        /// The history entry's number, in decimal.
        var id: String
        var title: String
        var appID: String
        var appName: String
        var icon: String
        var deviceName: String
        /// Ms since the epoch it was last seen.
        var when: UInt64
        /// Seen on this device (not served: the tray says "from" only for
        /// the others').
        var fromThisDevice = false
    }

    var state: State
    var thisDevice: ThisDevice
    var offers: [Offer]
    var devices: [Device]
    var recent: [Recent]

    /// How many history entries `recent` holds at most.
    static let maxRecent = 5
}

extension AgentServer {
    /// The agent as front ends see it now. Loop thread.
    func snapshot(paused: Bool) -> AgentSnapshot {
        let settings = engine.settings
        let revisions = Dictionary(engine.status.remotes.compactMap { r in r.revision.map { (r.id, UInt32(clamping: $0)) } },
                                   uniquingKeysWith: { a, _ in a })
        let devices = engine.roster.map { d in
            let rule = settings.devices[d.id]
            return AgentSnapshot.Device(id: d.id, name: d.name, role: d.role.name, online: d.online, lastSeen: d.lastSeen,
                                        revision: d.online ? revisions[d.id] : nil, offer: rule?.offer ?? true,
                                        accept: rule?.accept ?? true, history: rule?.history ?? true)
        }
        let offers = self.offers.newestFirst.map { o in
            AgentSnapshot.Offer(id: o.activityID.uuidString, title: o.remote.title ?? "", type: o.remote.activityType,
                                appID: o.target.webPageOnly ? "" : (o.target.desktopEntry ?? ""),
                                appName: o.target.appName ?? "", icon: o.target.icon ?? "",
                                deviceID: o.remote.deviceID, deviceName: o.remote.deviceName,
                                webPage: o.remote.webpageURL?.absoluteString,
                                received: UInt64(max(0, o.remote.firstSeen.timeIntervalSince1970 * 1000)),
                                webPageOnly: o.target.webPageOnly)
        }
        let here = identity.device.idBytes
        let recent = (history?.newest(AgentSnapshot.maxRecent) ?? []).map { e in
            let app = routing.installedApp(bundle: e.bundle)
            // Named as everywhere a person reads it: also by the entry
            // named after the bundle, or an app continuing its team's type.
            let label = routing.appLabel(bundle: e.bundle, team: e.team, type: e.activityType)
            return AgentSnapshot.Recent(id: String(e.id), title: e.title.isEmpty ? e.activityType : e.title,
                                        appID: app.map { String($0.desktopID.dropLast(".desktop".count)) } ?? "",
                                        appName: label?.name ?? "", icon: label?.icon ?? "", deviceName: e.deviceName,
                                        when: UInt64(max(0, e.lastSeen)), fromThisDevice: e.deviceID == here)
        }
        let device = currentDevice
        return AgentSnapshot(state: paused ? .paused : .running,
                             thisDevice: .init(id: device.id, name: device.name, role: device.role.name),
                             offers: offers, devices: devices, recent: recent)
    }
}
