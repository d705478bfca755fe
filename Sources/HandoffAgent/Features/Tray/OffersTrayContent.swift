// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The running agent's tray (docs/agent.md §6 "The tray"): what can be
/// continued (`ContinuableOffers`, the model the notifications share), the
/// account's devices, Pause and Pair a new device. Loop thread.
final class OffersTrayContent: TrayContent {
    private unowned let server: AgentServer
    private let actions: TrayActions
    private var listener: ContinuableOffers.Listener?
    private var offerIDs: [ActivityID: Int32] = [:]
    private var nextOfferID = TrayMenu.firstOfferID
    var changed: (() -> Void)?

    init(server: AgentServer, actions: TrayActions) {
        self.server = server
        self.actions = actions
        listener = server.offers.listen { [unowned self] _ in self.changed?() }
        server.offers.start()
    }

    /// Always Active (docs/agent.md §6 "The tray"): Xfce's panel and
    /// GNOME's AppIndicator extension hide a Passive item, and the menu
    /// (devices, pairing, Recent, Resume) must stay in reach while idle or
    /// paused. The icon tells the three states apart; NeedsAttention is
    /// not used: an offer is a possibility, not something that needs the
    /// person (hosts blink or highlight such items).
    var look: StatusNotifierItemObject.Look {
        let count = server.offers.offers.count
        if actions.isPaused {
            return .init(status: "Active", iconName: "handoff-paused", toolTipTitle: tr("Handoff is paused"),
                         toolTipText: tr("Choose “Resume Handoff” to continue activities again"))
        }
        if count == 0 {
            return .init(status: "Active", iconName: "handoff", toolTipTitle: "Handoff",
                         toolTipText: tr("Nothing to continue"))
        }
        let newest = server.offers.newestFirst[0].remote
        let what = newest.title.flatMap { $0.isEmpty ? nil : $0 } ?? newest.activityType
        return .init(status: "Active", iconName: "handoff-available",
                     toolTipTitle: trn("{count} thing to continue", "{count} things to continue", count, ["count": "\(count)"]),
                     toolTipText: tr("{title} from {device}", ["title": what, "device": newest.deviceName]))
    }

    func menu() -> TrayMenu {
        let offers = server.offers.newestFirst
        let live = Set(offers.map(\.activityID))
        offerIDs = offerIDs.filter { live.contains($0.key) }
        return TrayMenu(offers: offers, offerID: { [unowned self] id in self.id(for: id) },
                        devices: server.trayDevices(), paused: actions.isPaused, recent: recent(),
                        thisDevice: server.deviceName)
    }

    private func id(for activity: ActivityID) -> Int32 {
        if let id = offerIDs[activity] { return id }
        let id = nextOfferID
        nextOfferID = nextOfferID == TrayMenu.firstRecentID - 1 ? TrayMenu.firstOfferID : nextOfferID + 1
        offerIDs[activity] = id
        return id
    }

    /// The history's newest entries, as "Recent" lists them.
    private func recent() -> [TrayMenu.Recent] {
        guard let history = server.history else { return [] }
        return history.newest(TrayMenu.maxRecent).map { e in
            let app = server.routing.appLabel(bundle: e.bundle, team: e.team, type: e.activityType)
            let title = e.title.isEmpty ? e.activityType : e.title
            let what = app.map { tr("{title} — {app}", ["title": title, "app": $0.name]) } ?? title
            // This device's own entries need no "from".
            let here = e.deviceID == server.identity.device.idBytes
            return TrayMenu.Recent(entry: e.id, label: here ? what : tr("{title} (from {device})", ["title": what, "device": e.deviceName]),
                                   iconName: app?.icon.flatMap { $0.hasPrefix("/") ? nil : $0 })
        }
    }

    var stateSummary: (text: String, fields: [(key: String, value: AgentLogEvent.Value)]) {
        let offers = server.offers.offers.count
        return ("\(offers) offer\(offers == 1 ? "" : "s")\(actions.isPaused ? ", paused" : "")",
                [("offers", .int(Int64(offers))), ("paused", .bool(actions.isPaused))])
    }

    func clicked(_ item: TrayMenu.Item, activationToken: String?) {
        server.count { $0.trayClicks += 1 }
        switch item.action {
        case .continueOffer(let id):
            continueOffer(id, from: "the tray's menu", activationToken: activationToken)
        case .continueHistory(let entry):
            server.log("chosen", "the person chose history entry \(entry) in the tray's menu",
                       ["entry": .int(entry), "surface": .string("tray"), "token": .bool(activationToken != nil)])
            if case .failure(let error) = server.continueHistoryEntry(entry, activationToken: activationToken) {
                server.log("choose-failed", "cannot continue history entry \(entry): \(error.message)",
                           ["entry": .int(entry), "code": .int(Int64(error.code.rawValue))])
            }
        case .togglePause:
            actions.setPaused(!actions.isPaused)
            changed?()
        case .pairNewDevice:
            actions.pairNewDevice()
        case .none, .pairThisDevice, .confirmPairing, .cancelPairing:
            break
        }
    }

    /// Activate (hosts that do not show the menu on a click): the newest.
    func activated(activationToken: String?) {
        guard !actions.isPaused, let newest = server.offers.newestFirst.first else { return }
        continueOffer(newest.activityID, from: "the tray icon", activationToken: activationToken)
    }

    /// Exactly what the notification's Continue does.
    private func continueOffer(_ id: ActivityID, from surface: String, activationToken: String?) {
        server.log("chosen", "the person chose \(id.uuidString) in \(surface)",
                   ["activity": .string(id.uuidString), "token": .bool(activationToken != nil), "surface": .string("tray")])
        if case .failure(let error) = server.routing.choose(id, activationToken: activationToken) {
            server.log("choose-failed", "cannot continue \(id.uuidString): \(error.message)",
                       ["activity": .string(id.uuidString), "code": .int(Int64(error.code.rawValue))])
        }
    }

    func registered() { server.count { $0.trayRegistrations += 1 } }

    /// A device offline for less than an hour says "last seen N min ago":
    /// looked at again each minute. Online, offline and renamed devices
    /// are told by the engine (`ContinuityEngine.onDevicesChanged`).
    var lookInterval: Double? {
        server.trayDevices().contains { !$0.online && ($0.lastSeenSecondsAgo ?? .infinity) < 3600 } ? 60 : nil
    }

    func stop() {
        if let listener { server.offers.unlisten(listener) }
        listener = nil
    }
}
