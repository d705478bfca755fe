// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The running agent's tray (docs/agent.md §6 "The tray"), a client of
/// the agent's model as the session-bus API is (docs/agent.md §15): what
/// it shows is `AgentServer.snapshot(paused:)`, what its items do is
/// `AgentControls`; Pair a new device is `trayActions`'. Loop thread.
final class OffersTrayContent: TrayContent {
    private unowned let server: AgentServer
    private let actions: TrayActions
    private var controls: AgentControls { .tray(server) }
    private var listener: ContinuableOffers.Listener?
    private var offerIDs: [String: Int32] = [:]
    private var nextOfferID = TrayMenu.firstOfferID
    var changed: (() -> Void)?

    init(server: AgentServer, actions: TrayActions) {
        self.server = server
        self.actions = actions
        listener = server.offers.listen { [unowned self] _ in self.changed?() }
        server.offers.start()
    }

    private var snapshot: AgentSnapshot { server.snapshot(paused: controls.isPaused) }

    /// Always Active (docs/agent.md §6 "The tray"): Xfce's panel and
    /// GNOME's AppIndicator extension hide a Passive item, and the menu
    /// (devices, pairing, Recent, Resume) must stay in reach while idle or
    /// paused. The icon tells the three states apart; NeedsAttention is
    /// not used: an offer is a possibility, not something that needs the
    /// person (hosts blink or highlight such items).
    var look: StatusNotifierItemObject.Look {
        let now = snapshot
        if now.state == .paused {
            return .init(status: "Active", iconName: "handoff-paused", toolTipTitle: tr("Handoff is paused"),
                         toolTipText: tr("Choose “Resume Handoff” to continue activities again"))
        }
        guard let newest = now.offers.first else {
            return .init(status: "Active", iconName: "handoff", toolTipTitle: "Handoff",
                         toolTipText: tr("Nothing to continue"))
        }
        let count = now.offers.count
        return .init(status: "Active", iconName: "handoff-available",
                     toolTipTitle: trn("{count} thing to continue", "{count} things to continue", count, ["count": "\(count)"]),
                     toolTipText: tr("{title} from {device}", ["title": newest.title.isEmpty ? newest.type : newest.title,
                                                               "device": newest.deviceName]))
    }

    func menu() -> TrayMenu {
        let now = snapshot
        let live = Set(now.offers.map(\.id))
        offerIDs = offerIDs.filter { live.contains($0.key) }
        return TrayMenu(now, offerID: { [unowned self] id in self.id(for: id) }, now: wallMilliseconds())
    }

    private func id(for offer: String) -> Int32 {
        if let id = offerIDs[offer] { return id }
        let id = nextOfferID
        nextOfferID = nextOfferID == TrayMenu.firstRecentID - 1 ? TrayMenu.firstOfferID : nextOfferID + 1
        offerIDs[offer] = id
        return id
    }

    var stateSummary: (text: String, fields: [(key: String, value: AgentLogEvent.Value)]) {
        let offers = server.offers.offers.count
        let paused = controls.isPaused
        return ("\(offers) offer\(offers == 1 ? "" : "s")\(paused ? ", paused" : "")",
                [("offers", .int(Int64(offers))), ("paused", .bool(paused))])
    }

    func clicked(_ item: TrayMenu.Item, activationToken: String?) {
        server.count { $0.trayClicks += 1 }
        switch item.action {
        case .continueOffer(let id):
            _ = controls.continueOffer(id, activationToken: activationToken)
        case .continueHistory(let entry):
            _ = controls.continueRecent(entry, activationToken: activationToken)
        case .togglePause:
            // Told to the tray and the API by `trayStateChanged`.
            _ = controls.setPaused(!controls.isPaused)
        case .pairNewDevice:
            actions.pairNewDevice()
        case .none, .pairThisDevice, .confirmPairing, .cancelPairing:
            break
        }
    }

    /// Activate (hosts that do not show the menu on a click): the newest.
    func activated(activationToken: String?) {
        let now = snapshot
        guard now.state != .paused, let newest = now.offers.first, let id = ActivityID(uuidString: newest.id) else { return }
        _ = controls.continueOffer(id, activationToken: activationToken)
    }

    func registered() { server.count { $0.trayRegistrations += 1 } }

    /// A device offline for less than an hour says "last seen N min ago":
    /// looked at again each minute. Online, offline and renamed devices
    /// are told by the engine (`ContinuityEngine.onDevicesChanged`).
    var lookInterval: Double? {
        let now = wallMilliseconds()
        return snapshot.devices.map { TrayDevice($0, now: now) }
            .contains { !$0.online && ($0.lastSeenSecondsAgo ?? .infinity) < 3600 } ? 60 : nil
    }

    func stop() {
        if let listener { server.offers.unlisten(listener) }
        listener = nil
    }
}
