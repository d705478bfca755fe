// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// The tray's menu as data (docs/agent.md §6 "The tray"): built whole
/// from the agent's snapshot (`AgentSnapshot`: what can be continued, the
/// devices, Recent, the pause state); the
/// dbusmenu object serves it and compares one build with the next to say
/// what changed. Ids are stable while an item means the same thing, so a
/// host's click on an old layout still finds its item or is refused.
struct TrayMenu: Equatable {
    enum Action: Equatable {
        case none
        case continueOffer(ActivityID)
        /// A history entry (its number): continued as a handoff from the past.
        case continueHistory(Int64)
        case togglePause
        case pairNewDevice
        /// The waiting agent (docs/agent.md §10): join another device's account.
        case pairThisDevice
        /// The codes match (what the notification's "Pair" also says).
        case confirmPairing
        case cancelPairing
    }

    struct Item: Equatable {
        var id: Int32
        var label: String = ""
        var enabled = true
        var isSeparator = false
        var iconName: String?
        /// A checkmark item's state.
        var checked: Bool?
        var action: Action = .none

        /// Shows the same (what it does may differ: another activity under
        /// the same id is another layout, not a property change).
        func looksSame(as other: Item) -> Bool {
            label == other.label && enabled == other.enabled && isSeparator == other.isSeparator
                && iconName == other.iconName && checked == other.checked
        }

        /// Its dbusmenu properties (defaults left out, as the spec allows).
        var properties: [(String, BusValue)] {
            if isSeparator { return [("type", .string("separator"))] }
            var out: [(String, BusValue)] = [("label", .string(label))]
            if !enabled { out.append(("enabled", .bool(false))) }
            if let iconName { out.append(("icon-name", .string(iconName))) }
            if let checked {
                out.append(("toggle-type", .string("checkmark")))
                out.append(("toggle-state", .int32(checked ? 1 : 0)))
            }
            return out
        }
    }

    static let rootID: Int32 = 0
    static let pauseID: Int32 = 1
    static let pairID: Int32 = 2
    /// Not in the menu: kept out of use so that no item takes the number
    /// a "History…" item would have.
    static let historyID: Int32 = 3
    static let nothingID: Int32 = 4
    static let devicesHeaderID: Int32 = 5
    static let noDevicesID: Int32 = 6
    static let notSetUpID: Int32 = 7
    static let pairThisID: Int32 = 8
    static let joiningID: Int32 = 9
    static let cancelJoinID: Int32 = 20
    static let confirmJoinID: Int32 = 21
    /// Each separator has an id of its own (hosts key items by id: two
    /// items under one id show as "Label Empty" on Xfce or vanish).
    static let firstSeparatorID: Int32 = 10
    static let actionsSeparatorID: Int32 = 11
    static let recentSeparatorID: Int32 = 12
    /// "This device: <name>" under "Devices".
    static let thisDeviceID: Int32 = 14
    /// "and N more" after the devices listed.
    static let moreDevicesID: Int32 = 15
    static let firstDeviceID: Int32 = 100
    /// Offers take ids from here on, one per activity, never reused while
    /// the agent runs (wrapping far beyond anything a session reaches).
    static let firstOfferID: Int32 = 1000
    /// At most this many offers and devices are listed (the rest are
    /// counted in one disabled line).
    static let maxListed = 16
    /// "Recent": the history's newest entries (docs/history.md), at most
    /// `maxRecent`, under ids from `firstRecentID` (the entry's number
    /// folded into the range: stable while the entry is listed).
    static let maxRecent = AgentSnapshot.maxRecent
    static let recentHeaderID: Int32 = 13
    static let firstRecentID: Int32 = 1_500_000_000
    static let recentIDRange: Int64 = 500_000_000

    /// One history entry as the menu lists it.
    struct Recent: Equatable {
        var entry: Int64
        var label: String
        var iconName: String?

        var id: Int32 { TrayMenu.firstRecentID + Int32(entry % TrayMenu.recentIDRange) }
    }

    var items: [Item]

    /// `offerID` gives each offer (by its id) the menu's; `thisDevice` is
    /// this device's name (shown under "Devices" when known).
    init(offers: [AgentSnapshot.Offer], offerID: (String) -> Int32,
         devices: [TrayDevice], paused: Bool, recent: [Recent] = [], thisDevice: String? = nil) {
        var items: [Item] = []
        if offers.isEmpty {
            // While paused nothing is listed because of the pause: say so.
            items.append(Item(id: Self.nothingID, label: paused ? tr("Handoff is paused") : tr("Nothing to continue"),
                              enabled: false))
        }
        for offer in offers.prefix(Self.maxListed) {
            guard let activity = ActivityID(uuidString: offer.id) else { continue }
            let title = offer.title.isEmpty ? offer.type : offer.title
            let by = offer.appName.isEmpty ? (offer.webPageOnly ? tr("web page") : nil) : offer.appName
            let what = by.map { tr("{title} — {app}", ["title": title, "app": $0]) } ?? title
            items.append(Item(id: offerID(offer.id), label: Self.mnemonicSafe(tr("{title} (from {device})", ["title": what, "device": offer.deviceName])),
                              enabled: !paused, iconName: Self.themedIcon(offer), action: .continueOffer(activity)))
        }
        if offers.count > Self.maxListed {
            items.append(Item(id: Self.nothingID, label: tr("and {count} more", ["count": "\(offers.count - Self.maxListed)"]), enabled: false))
        }
        if !recent.isEmpty {
            items.append(Item(id: Self.recentSeparatorID, isSeparator: true))
            items.append(Item(id: Self.recentHeaderID, label: tr("Recent"), enabled: false))
            for r in recent.prefix(Self.maxRecent) {
                items.append(Item(id: r.id, label: Self.mnemonicSafe(r.label), enabled: !paused, iconName: r.iconName,
                                  action: .continueHistory(r.entry)))
            }
        }
        items.append(Item(id: Self.firstSeparatorID, isSeparator: true))
        items.append(Item(id: Self.devicesHeaderID, label: tr("Devices"), enabled: false))
        if let thisDevice {
            items.append(Item(id: Self.thisDeviceID, label: Self.mnemonicSafe(tr("This device: {device}", ["device": thisDevice])),
                              enabled: false, iconName: "computer"))
        }
        if devices.isEmpty {
            items.append(Item(id: Self.noDevicesID, label: tr("No other device seen"), enabled: false))
        }
        for (index, device) in devices.prefix(Self.maxListed).enumerated() {
            items.append(Item(id: Self.firstDeviceID + Int32(index), label: Self.mnemonicSafe(device.label), enabled: false,
                              iconName: device.online ? "network-idle" : "network-offline"))
        }
        if devices.count > Self.maxListed {
            items.append(Item(id: Self.moreDevicesID, label: tr("and {count} more", ["count": "\(devices.count - Self.maxListed)"]),
                              enabled: false))
        }
        items.append(Item(id: Self.actionsSeparatorID, isSeparator: true))
        // Said as what choosing it does: "Resume Handoff" while paused (a
        // checkmark alone is easy to miss, and some hosts draw none).
        items.append(Item(id: Self.pauseID, label: paused ? tr("Resume Handoff") : tr("Pause Handoff"), action: .togglePause))
        items.append(Item(id: Self.pairID, label: tr("Pair a new device…"), action: .pairNewDevice))
        self.items = items
    }

    /// The waiting agent's menu (docs/agent.md §10): what is missing and
    /// how to pair; while its pairing runs, what it waits for (the code,
    /// once there) and Cancel.
    /// `thisDevice`: the name it would join under (said before pairing,
    /// so the person knows what the other devices will show).
    static func notSetUp(_ joining: JoinProgress?, thisDevice: String? = nil) -> TrayMenu {
        var items = [Item(id: notSetUpID, label: tr("Handoff is not set up"), enabled: false)]
        if let thisDevice {
            items.append(Item(id: thisDeviceID, label: mnemonicSafe(tr("This device: {device}", ["device": thisDevice])),
                              enabled: false, iconName: "computer"))
        }
        items.append(Item(id: firstSeparatorID, isSeparator: true))
        switch joining {
        case nil:
            items.append(Item(id: pairThisID, label: tr("Pair this device…"), action: .pairThisDevice))
        case .looking:
            items.append(Item(id: joiningID, label: tr("Looking for your other device…"), enabled: false))
            items.append(Item(id: cancelJoinID, label: tr("Cancel pairing"), action: .cancelPairing))
        case .comparing(let code):
            items.append(Item(id: joiningID, label: tr("Compare: {code}", ["code": code]), enabled: false))
            items.append(Item(id: confirmJoinID, label: tr("Pair (the other device shows the same code)"), action: .confirmPairing))
            items.append(Item(id: cancelJoinID, label: tr("Cancel pairing"), action: .cancelPairing))
        }
        return TrayMenu(items: items)
    }

    /// Where the waiting agent's pairing is, for its menu.
    enum JoinProgress: Equatable {
        /// Beacons out, no other device yet.
        case looking
        /// The code to compare (as shown: "123 456").
        case comparing(String)
    }

    private init(items: [Item]) {
        self.items = items
    }

    /// The continuing app's themed icon name, else the browser's.
    static func themedIcon(_ offer: AgentSnapshot.Offer) -> String? {
        offer.webPageOnly ? "web-browser" : themed(offer.icon)
    }

    /// dbusmenu's `icon-name` takes no path (an `Icon=` path shows no icon).
    static func themed(_ icon: String) -> String? {
        icon.isEmpty || icon.hasPrefix("/") ? nil : icon
    }

    func item(_ id: Int32) -> Item? { items.first { $0.id == id } }

    /// What a host would stumble on, one line each (empty: none): an id
    /// twice (or the root's), a separator first, last or after another,
    /// an item that is not a separator without a label.
    var layoutProblems: [String] {
        var problems: [String] = []
        var seen: Set<Int32> = [Self.rootID]
        for (index, item) in items.enumerated() {
            if !seen.insert(item.id).inserted { problems.append("id \(item.id) is used twice") }
            if item.isSeparator {
                if index == 0 { problems.append("a separator (\(item.id)) comes first") }
                if index == items.count - 1 { problems.append("a separator (\(item.id)) comes last") }
                if index > 0, items[index - 1].isSeparator { problems.append("separators \(items[index - 1].id) and \(item.id) are adjacent") }
            } else if item.label.isEmpty {
                problems.append("item \(item.id) has no label")
            }
        }
        return problems
    }

    var ids: [Int32] { items.map(\.id) }

    /// dbusmenu labels use "_" for mnemonics: a title's own is doubled.
    static func mnemonicSafe(_ text: String) -> String {
        String(text.flatMap { $0 == "_" ? ["_", "_"] : [$0] })
    }

    static func == (a: TrayMenu, b: TrayMenu) -> Bool { a.items == b.items }
}
