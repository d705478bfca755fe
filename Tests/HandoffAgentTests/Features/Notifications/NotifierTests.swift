// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
@testable import HandoffDBus
import Testing

/// The notifier against the fake notification server on a private bus:
/// what it asks the server to show is recorded by the server; the server's
/// signals (a click on "Continue", a dismissal) reach the callback.
@Suite struct NotifierTests {
    /// A private bus, the fake server on it, the agent's connection and a
    /// notifier whose events are kept in order.
    final class Setup {
        let privateBus: PrivateBus
        let server: FakeDesktop?
        let bus: SessionBus
        var events: [Notifier<String>.Event] = []
        var notifier: Notifier<String>!

        init(server arguments: [String]? = ["--notifications"]) throws {
            let privateBus = try PrivateBus()
            do {
                server = try arguments.map { try FakeDesktop(bus: privateBus, $0) }
                bus = try SessionBus(address: privateBus.address)
            } catch {
                privateBus.stop()
                throw error
            }
            self.privateBus = privateBus
            notifier = try Notifier<String>(bus: bus) { [unowned self] in events.append($0) }
        }

        func stop() {
            bus.close()
            server?.stop()
            privateBus.stop()
        }

        var records: [FakeDesktop.Record] { server?.records ?? [] }
        func calls(_ name: String) -> [FakeDesktop.Record] { records.filter { $0.call == name } }

        /// Shows `key` and returns the server's id for it.
        func shown(_ key: String, _ content: NotificationContent) throws -> UInt32 {
            let before = calls("Notify").count
            notifier.show(content, for: key)
            #expect(pump(bus) { calls("Notify").count > before && bus.pendingCallCount == 0 })
            return try #require(calls("Notify").last?.id)
        }

        /// Makes the fake server act as the person: click an action, or dismiss.
        func invoke(_ id: UInt32, _ action: String, token: String = "") throws {
            var done = false
            try bus.call(destination: "org.freedesktop.Notifications", path: "/org/handoff/Test",
                         interface: "org.handoff.Test", member: "InvokeAction", timeout: 30,
                         build: { (w) throws(DBusError) in try w.uint32(id); try w.string(action); try w.string(token) }) { _ in
                done = true
            }
            #expect(pump(bus) { done })
        }

        /// The server's own timeout runs out (dunst's and xfce4-notifyd's 10 s).
        func expire(_ id: UInt32) throws {
            var done = false
            try bus.call(destination: "org.freedesktop.Notifications", path: "/org/handoff/Test",
                         interface: "org.handoff.Test", member: "Expire", timeout: 30,
                         build: { (w) throws(DBusError) in try w.uint32(id) }) { _ in done = true }
            #expect(pump(bus) { done })
        }

        func dismiss(_ id: UInt32) throws {
            var done = false
            try bus.call(destination: "org.freedesktop.Notifications", path: "/org/handoff/Test",
                         interface: "org.handoff.Test", member: "Dismiss", timeout: 30,
                         build: { (w) throws(DBusError) in try w.uint32(id) }) { _ in done = true }
            #expect(pump(bus) { done })
        }
    }

    static let mapContent = NotificationContent(title: "Route to <Lyon> & back", type: "com.example.map.route",
                                                deviceName: "Kitchen iMac", desktopEntry: "com.example.Map")

    @Test func notifyIsRecordedAsTheSpecAsks() throws {
        let s = try Setup()
        defer { s.stop() }
        let id = try s.shown("a", Self.mapContent)
        let notify = try #require(s.calls("Notify").first)
        #expect(s.calls("Notify").count == 1)
        #expect(notify.id == id)
        #expect(notify.app_name == "Handoff")
        #expect(notify.replaces_id == 0)
        #expect(notify.summary == "Route to <Lyon> & back")  // the summary is never markup
        #expect(notify.body == "Continue here · from Kitchen iMac")
        // "default" (a click on the body) continues too: dunst and
        // notification-daemon show no buttons until asked.
        #expect(notify.actions == ["default", "Continue", "continue", "Continue"])
        #expect(notify.hints?["urgency"] == .int(1))
        #expect(notify.hints?["desktop-entry"] == .string("com.example.Map"))
        #expect(notify.expire_timeout == 0, "an offer stays until withdrawn")
        #expect(notify.hints?["resident"] == nil, "no \"persistence\": no resident hint")
        // The capabilities were asked first, and are known.
        #expect(s.records.firstIndex { $0.call == "GetCapabilities" }! < s.records.firstIndex { $0.call == "Notify" }!)
        #expect(s.notifier.capabilities == ["actions", "body", "body-markup"])
        #expect(s.notifier.count == 1)
    }

    @Test func theTypeStandsInForAMissingTitleAndTheBodyIsEscapedForMarkup() throws {
        let s = try Setup()
        defer { s.stop() }
        _ = try s.shown("a", NotificationContent(title: nil, type: "com.example.edit", deviceName: "Anne & <Bob>"))
        let notify = try #require(s.calls("Notify").last)
        #expect(notify.summary == "com.example.edit")
        #expect(notify.body == "Continue here · from Anne &amp; &lt;Bob&gt;")
        #expect(notify.hints?["desktop-entry"] == nil)
    }

    @Test func aServerWithoutActionsOrBodyGetsNeither() throws {
        let s = try Setup(server: ["--notifications", "--capabilities", "persistence"])
        defer { s.stop() }
        _ = try s.shown("a", Self.mapContent)
        let notify = try #require(s.calls("Notify").last)
        #expect(notify.actions == [])
        #expect(notify.body == "")
        #expect(notify.summary == "Route to <Lyon> & back (Continue here · from Kitchen iMac)")
    }

    @Test func showingAKeyAgainReplacesItsNotification() throws {
        let s = try Setup()
        defer { s.stop() }
        let first = try s.shown("a", Self.mapContent)
        var changed = Self.mapContent
        changed.title = "Route to Nice"
        let second = try s.shown("a", changed)
        #expect(second == first)
        #expect(s.calls("Notify").map(\.replaces_id) == [0, first])
        #expect(s.calls("Notify").last?.summary == "Route to Nice")
        #expect(s.notifier.count == 1)
    }

    @Test func closeIsRecordedAndReportsNothingBack() throws {
        let s = try Setup()
        defer { s.stop() }
        let id = try s.shown("a", Self.mapContent)
        s.notifier.close("a")
        #expect(pump(s.bus) { s.calls("CloseNotification").count == 1 && s.bus.pendingCallCount == 0 })
        #expect(s.calls("CloseNotification").map(\.id) == [id])
        #expect(s.notifier.count == 0)
        // The server's NotificationClosed(id, 3) is for a key already forgotten.
        try s.invoke(id, "continue")
        #expect(s.events.filter { if case .available = $0 { false } else { true } }.isEmpty)
    }

    @Test func aCloseBeforeNotifyWasSentShowsNothing() throws {
        let s = try Setup()
        defer { s.stop() }
        // The capabilities are not known yet: Notify waits for them.
        s.notifier.show(Self.mapContent, for: "a")
        s.notifier.close("a")
        #expect(s.notifier.count == 0)
        #expect(pump(s.bus) { s.notifier.capabilities != nil && s.bus.pendingCallCount == 0 })
        _ = try s.shown("b", Self.mapContent)  // a later call, so any earlier one has been served
        #expect(s.calls("Notify").count == 1)
        #expect(s.calls("CloseNotification").isEmpty)
    }

    @Test func aCloseWhileNotifyIsInFlightClosesWhatItShowed() throws {
        let s = try Setup()
        defer { s.stop() }
        #expect(pump(s.bus) { s.notifier.capabilities != nil })
        s.notifier.show(Self.mapContent, for: "a")
        s.notifier.close("a")
        #expect(s.notifier.count == 0)
        #expect(pump(s.bus) { s.calls("CloseNotification").count == 1 && s.bus.pendingCallCount == 0 })
        #expect(s.calls("Notify").count == 1)
        #expect(s.calls("CloseNotification").map(\.id) == s.calls("Notify").map(\.id))
    }

    @Test func continueReachesTheCallbackWithItsActivationToken() throws {
        let s = try Setup()
        defer { s.stop() }
        let a = try s.shown("a", Self.mapContent)
        let b = try s.shown("b", Self.mapContent)
        try s.invoke(999, "continue", token: "not-ours")  // another app's notification
        try s.invoke(b, "continue", token: "token-b")
        try s.invoke(a, "continue")
        let actions = s.events.compactMap { event -> String? in
            guard case .actionInvoked(let key, let action, let token) = event else { return nil }
            return "\(key) \(action) \(token ?? "-")"
        }
        #expect(actions == ["b continue token-b", "a continue -"])
    }

    @Test func aDismissalIsReportedAsClosed() throws {
        let s = try Setup()
        defer { s.stop() }
        let id = try s.shown("a", Self.mapContent)
        try s.dismiss(id)
        let closed = s.events.compactMap { event -> String? in
            guard case .closed(let key, let reason) = event else { return nil }
            return "\(key) \(reason)"
        }
        #expect(closed == ["a dismissed"])
        #expect(s.notifier.count == 0)
    }

    @Test func withoutANotificationServerTheErrorComesOnceAndNothingBreaks() throws {
        let s = try Setup(server: nil)
        defer { s.stop() }
        #expect(pump(s.bus) { !s.events.isEmpty && s.bus.pendingCallCount == 0 })
        for round in 0..<3 {
            s.notifier.show(Self.mapContent, for: "k\(round)")
            #expect(pump(s.bus) { s.bus.pendingCallCount == 0 })
            s.notifier.close("k\(round)")
        }
        #expect(s.events.count == 1)
        guard case .unavailable(let error) = try #require(s.events.first) else {
            Issue.record("expected .unavailable, got \(s.events)")
            return
        }
        #expect(error.kind == .noService)
        #expect(error.name == "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(s.notifier.count == 0)
        #expect(s.bus.isConnected)
    }

    @Test func atMostMaxNotificationsAreRememberedTheOldestClosed() throws {
        let s = try Setup()
        defer { s.stop() }
        let total = Notifier<String>.maxNotifications + 8
        #expect(pump(s.bus) { s.notifier.capabilities != nil })
        for n in 0..<total { s.notifier.show(Self.mapContent, for: "k\(n)") }
        #expect(s.notifier.count == Notifier<String>.maxNotifications)
        #expect(pump(s.bus) { s.calls("CloseNotification").count == 8 && s.bus.pendingCallCount == 0 })
        let ids = s.calls("Notify").compactMap(\.id)
        #expect(ids.count == total)
        #expect(s.calls("CloseNotification").compactMap(\.id) == Array(ids.prefix(8)))
    }

    @Test func theAppIsNamedAndItsIconSent() throws {
        let s = try Setup()
        defer { s.stop() }
        let content = NotificationContent(title: "Route to Lyon", type: "com.example.map.route", deviceName: "Kitchen iMac",
                                          icon: "/usr/share/pixmaps/map.png", desktopEntry: "com.example.Map",
                                          kind: .app(name: "Maps"))
        _ = try s.shown("a", content)
        let notify = try #require(s.calls("Notify").last)
        // The title whole in the summary, the app first in the body: GNOME
        // Shell cuts each line at its end.
        #expect(notify.summary == "Route to Lyon")
        #expect(notify.body == "Continue in Maps · from Kitchen iMac")
        #expect(notify.app_icon == "/usr/share/pixmaps/map.png")
        #expect(notify.hints?["image-path"] == .string("/usr/share/pixmaps/map.png"))
        #expect(notify.hints?["desktop-entry"] == .string("com.example.Map"))
        #expect(notify.hints?["transient"] == nil)
        // A themed name is app_icon only.
        _ = try s.shown("b", NotificationContent(title: "T", type: "t", deviceName: "D", icon: "accessories-text-editor",
                                                 kind: .app(name: "Editor")))
        #expect(s.calls("Notify").last?.app_icon == "accessories-text-editor")
        #expect(s.calls("Notify").last?.hints?["image-path"] == nil)
    }

    @Test func aWebPageOnlyOfferSaysTheBrowserOpensIt() throws {
        let s = try Setup()
        defer { s.stop() }
        _ = try s.shown("a", NotificationContent(title: "Article", type: "com.example.read", deviceName: "Phone", kind: .webPage))
        let notify = try #require(s.calls("Notify").last)
        #expect(notify.summary == "Article")
        #expect(notify.body == "Open in the browser · from Phone")
        #expect(notify.actions == ["default", "Open in browser", "continue", "Open in browser"])
    }

    @Test func theNoAppNoticeIsQuietAndOffersWhatCanBeDone() throws {
        let s = try Setup()
        defer { s.stop() }
        _ = try s.shown("a", NotificationContent(title: "Song", type: "com.example.play", deviceName: "Phone",
                                                 kind: .noApp(installable: true)))
        let notify = try #require(s.calls("Notify").last)
        #expect(notify.summary == "Song")
        #expect(notify.expire_timeout == -1, "a notice expires as the server likes")
        #expect(notify.body == "No app here continues Play · from Phone")
        #expect(notify.actions == ["install", "Install"])
        #expect(notify.hints?["urgency"] == .int(0))
        #expect(notify.hints?["transient"] == .bool(true))
        _ = try s.shown("b", NotificationContent(title: nil, type: "com.example.x", deviceName: "Phone",
                                                 kind: .noApp(installable: false)))
        #expect(s.calls("Notify").last?.actions == [])
    }

    @Test func showingTheSameContentAgainSendsNothing() throws {
        let s = try Setup()
        defer { s.stop() }
        _ = try s.shown("a", Self.mapContent)
        for _ in 0..<5 { s.notifier.show(Self.mapContent, for: "a") }
        #expect(pump(s.bus) { s.bus.pendingCallCount == 0 })
        #expect(s.calls("Notify").count == 1)
    }

    @Test func closingWhatTheServerClosedAlreadyReportsNothing() throws {
        let s = try Setup()
        defer { s.stop() }
        let id = try s.shown("a", Self.mapContent)
        // The person dismisses it (another connection, so the notifier has
        // not heard yet): the agent's close races the server's, which
        // answers "Invalid notification identifier".
        let person = try SessionBus(address: s.privateBus.address)
        defer { person.close() }
        var done = false
        try person.call(destination: "org.freedesktop.Notifications", path: "/org/handoff/Test",
                        interface: "org.handoff.Test", member: "Dismiss", timeout: 30,
                        build: { (w) throws(DBusError) in try w.uint32(id) }) { _ in done = true }
        #expect(pump(person) { done })
        s.notifier.close("a")
        #expect(pump(s.bus) { s.calls("CloseNotification").count == 1 && s.bus.pendingCallCount == 0 })
        #expect(!s.events.contains { if case .failed = $0 { true } else { false } })
        #expect(s.notifier.count == 0)
    }

    @Test func aClickCarriesItsTokenAndTheServersCloseIsForAForgottenKey() throws {
        let s = try Setup()
        defer { s.stop() }
        let id = try s.shown("a", Self.mapContent)
        try s.invoke(id, "continue", token: "tok-1")
        #expect(pump(s.bus) { s.notifier.count == 0 })
        let invoked = s.events.compactMap { event -> String? in
            guard case .actionInvoked(let key, let action, let token) = event else { return nil }
            return "\(key) \(action) \(token ?? "-")"
        }
        #expect(invoked == ["a continue tok-1"])
        s.notifier.close("a")  // forgotten already: nothing is sent
        #expect(pump(s.bus) { s.bus.pendingCallCount == 0 })
        #expect(s.calls("CloseNotification").isEmpty)
        #expect(!s.events.contains { if case .failed = $0 { true } else { false } })
    }

    @Test func whenTheServerIsReplacedEveryNotificationStillWantedIsShownAgain() throws {
        let s = try Setup()
        defer { s.stop() }
        _ = try s.shown("a", Self.mapContent)
        let dismissed = try s.shown("b", NotificationContent(title: "Gone", type: "t", deviceName: "D"))
        try s.dismiss(dismissed)
        #expect(pump(s.bus) { s.notifier.count == 1 })
        s.server?.stop()
        // A while without a server: what is shown now waits for one.
        #expect(pump(s.bus) { s.events.contains { if case .unavailable = $0 { true } else { false } } })
        s.notifier.show(NotificationContent(title: "Later", type: "t", deviceName: "D"), for: "c")
        #expect(pump(s.bus) { s.bus.pendingCallCount == 0 })
        let next = try FakeDesktop(bus: s.privateBus, ["--notifications"])
        defer { next.stop() }
        #expect(pump(s.bus) { next.records.filter { $0.call == "Notify" }.count == 2 && s.bus.pendingCallCount == 0 })
        let shown = next.records.filter { $0.call == "Notify" }
        #expect(Set(shown.compactMap(\.summary)) == ["Route to <Lyon> & back", "Later"])
        #expect(shown.allSatisfy { $0.replaces_id == 0 })
        // Only the dismissal was reported closed: the server change is not.
        #expect(s.events.filter { if case .closed = $0 { true } else { false } }.count == 1)
        // The new server's ids are the ones a click names now.
        let id = try #require(shown.first { $0.summary == "Later" }?.id)
        try s.invoke(id, "continue")
        #expect(pump(s.bus) { s.events.contains { if case .actionInvoked("c", _, _) = $0 { true } else { false } } })
    }

    /// Issue 34: an offer a server let expire anyway is not shown again to
    /// that server, but to the next one; a notice that expired is gone.
    @Test func anExpiredOfferIsShownAgainToTheNextServerAndANoticeIsNot() throws {
        let s = try Setup()
        defer { s.stop() }
        let offer = try s.shown("offer", Self.mapContent)
        let notice = try s.shown("notice", NotificationContent(title: "N", type: "com.example.n", deviceName: "D",
                                                               kind: .noApp(installable: false)))
        try s.expire(offer)
        try s.expire(notice)
        #expect(pump(s.bus) { s.events.filter { if case .closed(_, .expired) = $0 { true } else { false } }.count == 2 })
        #expect(s.notifier.count == 1, "the offer is still wanted, the notice is not")
        s.notifier.show(Self.mapContent, for: "offer")  // a keep-alive: not shown again to the same server
        #expect(pump(s.bus) { s.bus.pendingCallCount == 0 })
        #expect(s.calls("Notify").count == 2)
        s.server?.stop()
        let next = try FakeDesktop(bus: s.privateBus, ["--notifications"])
        defer { next.stop() }
        #expect(pump(s.bus) { next.records.filter { $0.call == "Notify" }.count == 1 && s.bus.pendingCallCount == 0 })
        #expect(next.records.filter { $0.call == "Notify" }.map(\.summary) == ["Route to <Lyon> & back"])
        // Withdrawn: closed on the server that shows it.
        s.notifier.close("offer")
        #expect(pump(s.bus) { next.records.contains { $0.call == "CloseNotification" } })
        #expect(s.notifier.count == 0)
    }

    /// Offers and questions stay (expire_timeout 0), resident where the
    /// server keeps a history; the agent's own notices carry its icon.
    @Test func lastingNotificationsAreResidentWhereTheServerPersistsAndEveryOneHasAnIcon() throws {
        let s = try Setup(server: ["--notifications", "--capabilities", "actions,body,persistence"])
        defer { s.stop() }
        _ = try s.shown("a", Self.mapContent)
        #expect(s.calls("Notify").last?.hints?["resident"] == .bool(true))
        #expect(s.calls("Notify").last?.expire_timeout == 0)
        _ = try s.shown("q", NotificationContent(summary: "Pair?", body: "Compare", actions: [("pair", "Pair")], urgency: 2))
        #expect(s.calls("Notify").last?.expire_timeout == 0)
        #expect(s.calls("Notify").last?.app_icon == "handoff")
        _ = try s.shown("i", NotificationContent(summary: "Paired", body: "", actions: [], urgency: 1))
        #expect(s.calls("Notify").last?.expire_timeout == -1)
        #expect(s.calls("Notify").last?.hints?["resident"] == nil)
        #expect(s.calls("Notify").last?.app_icon == "handoff")
    }
}
