// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffContinuity
@testable import HandoffDBus
import HandoffModel
import HandoffRuntime
import Testing

/// The agent's notifications (docs/agent.md §6) on a private bus with the
/// fake notification server of Tests/agent/fake_notifications.c: one comes
/// with an activity something here can continue and goes with it; its
/// "Continue" continues it in the running app.
@Suite(.serialized) struct AgentNotificationTests {
    static let appA = try! Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
    static let appB = try! Manifest(bundleIdentifier: "com.b.app", teamIdentifier: "TEAMB", activityTypes: ["com.b.view"])

    @Test func aNotificationComesAndGoesWithItsActivityAndContinueChoosesIt() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let fake = try FakeDesktop(bus: privateBus, ["--notifications"])
        defer { fake.stop() }
        let f = try AgentFixture(notifications: .sessionBus(privateBus.address))
        let a = try f.app(Self.appA)
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort], name: "Laptop")
        func notified(_ summary: String) -> FakeDesktop.Record? {
            fake.records.last { $0.call == "Notify" && $0.summary == summary }
        }

        let first = try UserActivity(activityType: "com.a.edit")
        first.title = "Draft 7"
        try sender.app.becomeCurrent(first)
        #expect(eventually { notified("Draft 7") != nil })
        let shown = try #require(notified("Draft 7"))
        #expect(shown.body == "Continue here · from Laptop" && shown.actions?.contains("continue") == true && shown.app_name == "Handoff")
        // It goes with the activity.
        sender.app.resignCurrent(first)
        #expect(eventually { fake.records.contains { $0.call == "CloseNotification" && $0.id == shown.id } })

        // Another comes; the person clicks "Continue": the running app continues it.
        let second = try UserActivity(activityType: "com.a.edit")
        second.title = "Draft 8"
        try sender.app.becomeCurrent(second)
        #expect(eventually { notified("Draft 8") != nil })
        let id = try #require(notified("Draft 8")?.id)
        let person = try SessionBus(address: privateBus.address)
        defer { person.close() }
        var invoked = false
        try person.call(destination: "org.freedesktop.Notifications", path: "/org/handoff/Test",
                         interface: "org.handoff.Test", member: "InvokeAction", timeout: 30,
                         build: { (w) throws(DBusError) in try w.uint32(id); try w.string("continue"); try w.string("") }) { _ in
            invoked = true
        }
        #expect(pump(person) { invoked })
        let continued = try #require(a.next { if case .continueActivity = $0.message { true } else { false } })
        guard case .continueActivity(let remote, _) = continued.frame.message else { return }
        #expect(remote.activityID == second.activityID && remote.title == "Draft 8" && !remote.isWebOnly)
        #expect(f.log.wait { $0.name == "continue" })
    }

    /// An activity nothing here continues (another team, no web page) is
    /// told once, as such, with nothing to choose.
    @Test func whatNothingHereContinuesIsToldOnceAsSuch() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let fake = try FakeDesktop(bus: privateBus, ["--notifications"])
        defer { fake.stop() }
        let f = try AgentFixture(notifications: .sessionBus(privateBus.address))
        let observer = try f.app(try Manifest(bundleIdentifier: "org.libhandoff.handoff", teamIdentifier: "HANDOFFCLI"),
                                 observer: true)
        let a = try f.app(Self.appA)
        let other = try RemoteDevice(Self.appB, peers: [f.agent.engine.beaconPort], name: "B's device")
        let mine = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort], name: "A's device")
        let theirs = try UserActivity(activityType: "com.b.view")
        theirs.title = "Not for here"
        try other.app.becomeCurrent(theirs)
        #expect(observer.waitOffered { $0[theirs.activityID] != nil })
        // One that is for here comes after it, and is shown: the first one had its chance.
        let ours = try UserActivity(activityType: "com.a.edit")
        ours.title = "For here"
        try mine.app.becomeCurrent(ours)
        #expect(eventually { fake.records.contains { $0.call == "Notify" && $0.summary == "For here" } })
        let notices = fake.records.filter { $0.call == "Notify" && $0.summary == "Not for here" }
        #expect(notices.count == 1)
        // The sending app named (its bundle id made readable), never the raw type.
        #expect(notices.first?.body == "No app here continues App · from B's device")
        #expect(notices.first?.app_icon == "handoff")
        #expect(notices.first?.actions == [])
        #expect(notices.first?.hints?["transient"] == .bool(true))
        #expect(f.log.all.filter { $0.name == "no-app" }.count == 1)
        withExtendedLifetime(a) {}
    }

    /// No session bus: said once, and the agent serves as before.
    @Test func withoutABusTheAgentSaysSoAndWorks() throws {
        let f = try AgentFixture(notifications: .sessionBus("unix:path=/nonexistent/handoff-test-bus"))
        #expect(f.log.wait { $0.name == "notifications" && $0.field("available") == .bool(false) })
        let a = try f.app(Self.appA)
        #expect(try a.status() != nil)
    }
}
