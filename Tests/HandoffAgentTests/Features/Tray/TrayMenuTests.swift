// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import HandoffModel
import HandoffRuntime
import Testing

/// The tray's menu as data (docs/agent.md §6 "The tray"): what it lists,
/// in which order, with which ids and dbusmenu properties. The bus side
/// is tested end to end in Tests/cli/test_agent_tray.py.
struct TrayMenuTests {
    /// An offer continued by the app `entry` (named "Notes" with the icon
    /// "accessories-text-editor" when it is org.example.Notes, unnamed
    /// otherwise), or by the browser when `entry` is nil.
    static func offer(_ title: String?, from device: String = "Device A", entry: String? = "org.example.Notes")
        -> AgentSnapshot.Offer {
        let notes = entry == "org.example.Notes"
        return AgentSnapshot.Offer(id: ActivityID().uuidString, title: title ?? "", type: "org.example.edit", appID: entry ?? "",
                                   appName: notes ? "Notes" : "", icon: entry == nil ? "" : notes ? "accessories-text-editor" : "/opt/x/icon.png",
                                   deviceID: "a", deviceName: device, webPage: entry == nil ? "https://example.org/" : nil,
                                   received: 1, webPageOnly: entry == nil)
    }

    static func menu(_ offers: [AgentSnapshot.Offer], devices: [TrayDevice] = [], paused: Bool = false) -> TrayMenu {
        var ids: [String: Int32] = [:]
        return TrayMenu(offers: offers, offerID: { id in
            if let known = ids[id] { return known }
            ids[id] = TrayMenu.firstOfferID + Int32(ids.count)
            return ids[id]!
        }, devices: devices, paused: paused)
    }

    static func labels(_ menu: TrayMenu) -> [String] {
        menu.items.map { $0.isSeparator ? "----" : $0.label + ($0.enabled ? "" : " (disabled)") }
    }

    @Test func emptyItSaysNothingToContinueAndKeepsPauseAndPair() {
        #expect(Self.labels(Self.menu([])) == ["Nothing to continue (disabled)", "----", "Devices (disabled)",
                                               "No other device seen (disabled)", "----", "Pause Handoff",
                                               "Pair a new device…"])
    }

    @Test func offersComeWithTheirAppAndDeviceAndContinueThemselves() throws {
        let offers = [Self.offer("Draft_7"), Self.offer(nil, from: "Phone", entry: nil), Self.offer("X", entry: "unknown")]
        let menu = Self.menu(offers, devices: [TrayDevice(name: "Phone", online: true, lastSeenSecondsAgo: 3)])
        #expect(Array(Self.labels(menu).prefix(3)) == ["Draft__7 — Notes (from Device A)",
                                                        "org.example.edit — web page (from Phone)",
                                                        "X (from Device A)"])
        let first = menu.items[0]
        let activity = try #require(ActivityID(uuidString: offers[0].id))
        #expect(first.id == TrayMenu.firstOfferID && first.action == .continueOffer(activity))
        #expect(first.properties.map(\.0) == ["label", "icon-name"])
        #expect(first.iconName == "accessories-text-editor")
        #expect(menu.items[1].iconName == "web-browser")
        #expect(menu.items[2].iconName == nil)  // an Icon= path: dbusmenu's icon-name takes none
        #expect(menu.item(TrayMenu.firstDeviceID)?.label == "Phone — online")
        #expect(menu.item(TrayMenu.nothingID) == nil)
    }

    @Test func recentListsTheHistorysNewestWithStableIdsAndContinuesThem() throws {
        let recent = (0..<7).map { i in
            TrayMenu.Recent(entry: 40 - Int64(i), label: "Doc_\(i) (from Desk)", iconName: i == 0 ? "accessories-text-editor" : nil)
        }
        let menu = TrayMenu(offers: [], offerID: { _ in TrayMenu.firstOfferID }, devices: [], paused: false, recent: recent)
        let labels = Self.labels(menu)
        let header = try #require(labels.firstIndex(of: "Recent (disabled)"))
        #expect(labels[header - 1] == "----")
        #expect(Array(labels[(header + 1)...(header + 5)]) == (0..<5).map { "Doc__\($0) (from Desk)" })
        #expect(!labels.contains("Doc__5 (from Desk)"), "at most \(TrayMenu.maxRecent)")
        let first = try #require(menu.item(TrayMenu.firstRecentID + 40))
        #expect(first.action == .continueHistory(40) && first.iconName == "accessories-text-editor")
        // The same entry keeps its id when newer ones push it down.
        let later = TrayMenu(offers: [], offerID: { _ in TrayMenu.firstOfferID }, devices: [], paused: true,
                             recent: [TrayMenu.Recent(entry: 41, label: "New", iconName: nil)] + recent)
        #expect(later.item(TrayMenu.firstRecentID + 40)?.action == .continueHistory(40))
        #expect(later.item(TrayMenu.firstRecentID + 40)?.enabled == false, "paused: nothing is continued")
        #expect(Self.labels(Self.menu([])).contains("Recent (disabled)") == false, "no history, no section")
    }

    /// The tray shows the snapshot the session-bus API serves: its offers,
    /// devices, Recent (this device's own entries without "from") and
    /// pause, this device's name.
    @Test func theMenuOfASnapshotListsWhatTheAPIServes() throws {
        let offer = Self.offer("Plan")
        let recent = [AgentSnapshot.Recent(id: "7", title: "Notes.txt", appID: "org.example.Notes", appName: "Notes",
                                           icon: "accessories-text-editor", deviceName: "Desk", when: 1),
                      AgentSnapshot.Recent(id: "6", title: "Here", appID: "", appName: "", icon: "/a/b.png",
                                           deviceName: "Laptop", when: 1, fromThisDevice: true)]
        let devices = [AgentSnapshot.Device(id: "d", name: "Desk", role: "desktop", online: false, lastSeen: 1_000_000 - 300_000,
                                            revision: nil, offer: true, accept: true, history: true)]
        let snapshot = AgentSnapshot(state: .paused, thisDevice: .init(id: "t", name: "Laptop", role: "laptop"),
                                     offers: [offer], devices: devices, recent: recent)
        let menu = TrayMenu(snapshot, offerID: { _ in TrayMenu.firstOfferID }, now: 1_000_000)
        #expect(Self.labels(menu) == ["Plan — Notes (from Device A) (disabled)", "----", "Recent (disabled)",
                                      "Notes.txt — Notes (from Desk) (disabled)", "Here (disabled)", "----",
                                      "Devices (disabled)", "This device: Laptop (disabled)",
                                      "Desk — offline, last seen 5 min ago (disabled)", "----", "Resume Handoff",
                                      "Pair a new device…"])
        #expect(menu.item(TrayMenu.firstRecentID + 7)?.action == .continueHistory(7))
        #expect(menu.item(TrayMenu.firstRecentID + 7)?.iconName == "accessories-text-editor")
        #expect(menu.item(TrayMenu.firstRecentID + 6)?.iconName == nil, "an Icon= path: none")
        let activity = try #require(ActivityID(uuidString: offer.id))
        #expect(menu.items[0].action == .continueOffer(activity))
    }

    @Test func pausedItOffersResumeAndTheOffersAreDisabled() throws {
        let menu = Self.menu([Self.offer("A")], paused: true)
        let pause = try #require(menu.item(TrayMenu.pauseID))
        #expect(pause.label == "Resume Handoff" && pause.action == .togglePause)
        #expect(pause.properties.map(\.0) == ["label"])
        #expect(Self.menu([]).item(TrayMenu.pauseID)?.label == "Pause Handoff")
        #expect(menu.items[0].enabled == false)
        #expect(menu.items[0].properties.map(\.0).contains("enabled"))
        // With nothing listed, the first line says why: the pause.
        #expect(Self.menu([], paused: true).items[0].label == "Handoff is paused")
        #expect(Self.menu([]).items[0].label == "Nothing to continue")
    }

    /// Every state the running and the waiting agent's menus take (issue
    /// 34: the Recent header and a separator shared id 11): each id once,
    /// separators never first, last or doubled, every item labelled.
    @Test func everyMenuStateHasUniqueIdsAndValidSeparators() {
        let recent = (0..<7).map { TrayMenu.Recent(entry: Int64($0), label: "R\($0)", iconName: nil) }
        let devices = (0..<20).map { TrayDevice(name: "D\($0)", online: $0 % 2 == 0, lastSeenSecondsAgo: Double($0) * 100) }
        var states: [(String, TrayMenu)] = [
            ("not set up", .notSetUp(nil)), ("pairing", .notSetUp(.looking)), ("comparing", .notSetUp(.comparing("123 456"))),
            ("not set up, named", .notSetUp(nil, thisDevice: "Ada's laptop")),
            ("comparing, named", .notSetUp(.comparing("123 456"), thisDevice: "Ada's laptop")),
        ]
        for paused in [false, true] {
            for offers in [0, 1, 20] {
                for recentCount in [0, 1, 7] {
                    for deviceCount in [0, 1, 20] {
                        for name in [nil, "Desk"] as [String?] {
                            var ids: [String: Int32] = [:]
                            let menu = TrayMenu(offers: (0..<offers).map { Self.offer("T\($0)") }, offerID: { id in
                                if let known = ids[id] { return known }
                                ids[id] = TrayMenu.firstOfferID + Int32(ids.count)
                                return ids[id]!
                            }, devices: Array(devices.prefix(deviceCount)), paused: paused,
                                                recent: Array(recent.prefix(recentCount)), thisDevice: name)
                            states.append(("paused \(paused), \(offers) offers, \(recentCount) recent, \(deviceCount) devices, name \(name ?? "-")", menu))
                        }
                    }
                }
            }
        }
        #expect(states.count == 5 + 2 * 3 * 3 * 3 * 2)
        for (state, menu) in states {
            #expect(menu.layoutProblems == [], "\(state): \(Self.labels(menu))")
        }
        let crowded = states.last!.1
        #expect(Self.labels(crowded).contains("and 4 more (disabled)"), "the devices past 16 are counted")
        #expect(crowded.item(TrayMenu.thisDeviceID)?.label == "This device: Desk")
    }

    @Test func atMostSixteenOffersAreListedThenACount() {
        let menu = Self.menu((0..<20).map { Self.offer("T\($0)") })
        #expect(menu.items.filter { if case .continueOffer = $0.action { true } else { false } }.count == TrayMenu.maxListed)
        #expect(Self.labels(menu).contains("and 4 more (disabled)"))
        #expect(Set(menu.ids).count == menu.ids.count, "ids are unique")
    }

    @Test func devicesSayOnlineOrWhenLastSeen() {
        #expect(TrayDevice(name: "B", online: true, lastSeenSecondsAgo: 1).label == "B — online")
        #expect(TrayDevice(name: "B", online: false, lastSeenSecondsAgo: 30).label == "B — offline, last seen just now")
        #expect(TrayDevice(name: "B", online: false, lastSeenSecondsAgo: 300).label == "B — offline, last seen 5 min ago")
        #expect(TrayDevice(name: "B", online: false, lastSeenSecondsAgo: 7200).label == "B — offline, last seen 2 h ago")
        #expect(TrayDevice(name: "B", online: false, lastSeenSecondsAgo: nil).label == "B — offline")
    }

    @Test func theIconThemePathIsThePrefixsShareIcons() {
        #expect(IconThemePath.installed(executable: "/usr/local/bin/handoff") == "/usr/local/share/icons")
        #expect(IconThemePath.installed(executable: "/home/p/.local/bin/handoff") == "/home/p/.local/share/icons")
        #expect(IconThemePath.installed(executable: "handoff") == "")
        #expect(IconThemePath.installed(executable: nil) == "")
    }
}

/// The waiting agent's menu (docs/agent.md §10): not set up, then where
/// its pairing is; each item's id keeps one meaning.
struct WaitingTrayMenuTests {
    static func labels(_ menu: TrayMenu) -> [String] { TrayMenuTests.labels(menu) }

    @Test func notSetUpOffersPairingOnly() {
        let menu = TrayMenu.notSetUp(nil)
        #expect(Self.labels(menu) == ["Handoff is not set up (disabled)", "----", "Pair this device…"])
        #expect(menu.item(TrayMenu.pairThisID)?.action == .pairThisDevice)
    }

    @Test func lookingShowsProgressAndCancel() {
        let menu = TrayMenu.notSetUp(.looking)
        #expect(Self.labels(menu) == ["Handoff is not set up (disabled)", "----", "Looking for your other device… (disabled)",
                                      "Cancel pairing"])
        #expect(menu.item(TrayMenu.cancelJoinID)?.action == .cancelPairing)
        #expect(menu.item(TrayMenu.pairThisID) == nil)
    }

    @Test func comparingShowsTheCodeAndBothAnswers() {
        let menu = TrayMenu.notSetUp(.comparing("123 456"))
        #expect(Self.labels(menu) == ["Handoff is not set up (disabled)", "----", "Compare: 123 456 (disabled)",
                                      "Pair (the other device shows the same code)", "Cancel pairing"])
        #expect(menu.item(TrayMenu.confirmJoinID)?.action == .confirmPairing)
        // Ids never collide with the running agent's menu items.
        let ids = menu.ids
        #expect(Set(ids).count == ids.count)
    }

    @Test func theContentAnswersOnlyWhatItsStateAllows() {
        var pairs = 0, confirms = 0, cancels = 0
        let content = WaitingTrayContent(onPair: { pairs += 1 }, onConfirm: { confirms += 1 }, onCancel: { cancels += 1 })
        let pair = TrayMenu.notSetUp(nil).item(TrayMenu.pairThisID)!
        let confirm = TrayMenu.notSetUp(.comparing("1")).item(TrayMenu.confirmJoinID)!
        let cancel = TrayMenu.notSetUp(.looking).item(TrayMenu.cancelJoinID)!
        // Idle: only Pair (a stale click on Cancel or Confirm does nothing).
        content.clicked(confirm, activationToken: nil)
        content.clicked(cancel, activationToken: nil)
        content.clicked(pair, activationToken: nil)
        #expect((pairs, confirms, cancels) == (1, 0, 0))
        // Looking: a second Pair starts nothing; Confirm is not there yet.
        content.progress = .looking
        content.clicked(pair, activationToken: nil)
        content.clicked(confirm, activationToken: nil)
        content.clicked(cancel, activationToken: nil)
        #expect((pairs, confirms, cancels) == (1, 0, 1))
        content.progress = .comparing("123 456")
        content.clicked(confirm, activationToken: nil)
        #expect((pairs, confirms, cancels) == (1, 1, 1))
        #expect(content.look.toolTipText == "Compare: 123 456")
    }
}
