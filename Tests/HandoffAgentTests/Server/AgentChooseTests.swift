// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing

/// CHOOSE (docs/agent.md §3, §5): continuing an activity as the person
/// would from a notification. The running app that may continue it gets
/// CONTINUE; else an installed app is launched and gets CONTINUE when it
/// says HELLO; else the web page opens; else ERROR 4608.
@Suite(.serialized) struct AgentChooseTests {
    static let appA = try! Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
    static let appB = try! Manifest(bundleIdentifier: "com.b.app", teamIdentifier: "TEAMB", activityTypes: ["com.b.view"])
    static let tool = try! Manifest(bundleIdentifier: "org.libhandoff.handoff", teamIdentifier: "HANDOFFCLI")

    /// A desktop in a temporary folder: `data/applications` for entries,
    /// `bin` for programs (a fake xdg-open that records its URL).
    final class FakeDesktop {
        let tree = TemporaryTree("handoff-agent-choose")
        var desktop: AgentDesktop {
            let directories = XDGDataDirectories(directories: [tree.path("data")], searchPath: [tree.path("bin")])
            return AgentDesktop(installed: InstalledApps(directories: directories),
                                launcher: Launcher(dbus: nil, searchPath: directories.searchPath),
                                web: WebOpener(searchPath: directories.searchPath))
        }

        /// Launching through the session bus at `address` (D-Bus activation, scopes).
        func desktop(busAddress address: String) -> AgentDesktop {
            let directories = XDGDataDirectories(directories: [tree.path("data")], searchPath: [tree.path("bin")])
            let bus = LaunchBus(address: address)
            return AgentDesktop(installed: InstalledApps(directories: directories),
                                launcher: Launcher(dbus: bus, scopes: bus, searchPath: directories.searchPath),
                                web: WebOpener(searchPath: directories.searchPath), bus: bus)
        }

        init() {
            tree.write("bin/xdg-open", "#!/bin/sh\nprintf '%s\\n' \"$1\" > \"\(tree.path("opened")).tmp\" && mv \"\(tree.path("opened")).tmp\" \"\(tree.path("opened"))\"\n",
                       mode: 0o755)
            tree.makeFolders(tree.path("data/applications"))
        }

        /// An installed app of `manifest` whose Exec records that it ran.
        func install(_ manifest: Manifest) {
            let marker = tree.path("launched-\(manifest.bundleIdentifier)")
            tree.write("bin/start-\(manifest.bundleIdentifier)", "#!/bin/sh\ntouch \"\(marker)\"\n", mode: 0o755)
            tree.write("data/applications/\(manifest.bundleIdentifier).desktop", """
                [Desktop Entry]
                Type=Application
                Name=Test app
                Exec=start-\(manifest.bundleIdentifier) %U
                X-Handoff-ActivityTypes=\(manifest.activityTypes.joined(separator: ";"));
                X-Handoff-TeamIdentifier=\(manifest.teamIdentifier)

                """)
        }

        func launched(_ manifest: Manifest) -> Bool { tree.exists("launched-\(manifest.bundleIdentifier)") }
        var opened: String? { tree.read("opened") }
    }

    /// The other device offers `activity`; the agent's observer client is
    /// told of it.
    func offer(_ activity: UserActivity, from sender: RemoteDevice, to observer: AgentTestClient) throws -> Bool {
        try sender.app.becomeCurrent(activity)
        return observer.waitOffered { $0.keys.contains(activity.activityID) }
    }

    func choose(_ id: ActivityID, by client: AgentTestClient) throws -> AgentMessage? {
        try client.request(.choose(id))?.frame.message
    }

    @Test func aRunningAppThatDeclaresItGetsContinue() throws {
        let f = try AgentFixture()
        let observer = try f.app(Self.tool, observer: true)
        let b = try f.app(Self.appB)
        let a = try f.app(Self.appA)
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort])
        let activity = try UserActivity(activityType: "com.a.edit")
        try activity.setUserInfo(["chosen": .boolean(true)])
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try choose(activity.activityID, by: observer) == .ok)
        let continued = try #require(a.next { if case .continueActivity = $0.message { true } else { false } })
        guard case .continueActivity(let remote, _) = continued.frame.message else { return }
        #expect(remote.activityID == activity.activityID && !remote.isWebOnly && remote.activityType == "com.a.edit")
        // Then it fetches as usual.
        a.whileWaiting = { _ = try? sender.app.dispatch() }
        guard case .payload(let bytes)? = try a.request(.fetch(activity.activityID))?.frame.message else {
            Issue.record("no payload after CONTINUE")
            return
        }
        #expect(try ActivityCoding.decode(bytes).userInfo == ["chosen": .boolean(true)])
        // B, of another team, was not asked.
        _ = try b.status()
        #expect(b.next(within: 0) { if case .continueActivity = $0.message { true } else { false } } == nil)
    }

    @Test func anInstalledAppIsLaunchedAndGetsContinueWhenItConnects() throws {
        let fake = FakeDesktop()
        fake.install(Self.appA)
        let f = try AgentFixture(desktop: fake.desktop)
        let observer = try f.app(Self.tool, observer: true)
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort])
        let activity = try UserActivity(activityType: "com.a.edit")
        try activity.setUserInfo(["launched": .boolean(true)])
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try choose(activity.activityID, by: observer) == .ok)
        #expect(eventually { fake.launched(Self.appA) })
        #expect(f.counters.launches == 1 && f.log.wait { $0.name == "launch" && $0.field("bundle") == .string("com.a.app") })
        // The app starts and says HELLO: CONTINUE, then its fetch.
        let a = try f.app(Self.appA)
        let continued = try #require(a.next { if case .continueActivity = $0.message { true } else { false } })
        guard case .continueActivity(let remote, _) = continued.frame.message else { return }
        #expect(remote.activityID == activity.activityID)
        a.whileWaiting = { _ = try? sender.app.dispatch() }
        guard case .payload(let bytes)? = try a.request(.fetch(activity.activityID))?.frame.message else {
            Issue.record("no payload after a launch")
            return
        }
        #expect(try ActivityCoding.decode(bytes).userInfo == ["launched": .boolean(true)])
        // Handed over once: the next app of that bundle gets no CONTINUE.
        let again = try f.app(Self.appA)
        _ = try again.status()
        #expect(again.next(within: 0) { if case .continueActivity = $0.message { true } else { false } } == nil)
    }

    /// A D-Bus-only app the bus cannot start (no service file) gives way,
    /// once the error comes back on the agent's loop, to the next app that
    /// declares the type; CHOOSE answered OK when the call went out.
    @Test func aDBusOnlyAppThatCannotBeActivatedGivesWayToTheNext() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let fake = FakeDesktop()
        fake.tree.write("data/applications/com.a.app.desktop", """
            [Desktop Entry]
            Type=Application
            DBusActivatable=true
            X-Handoff-ActivityTypes=com.a.edit;
            X-Handoff-TeamIdentifier=TEAMA

            """)
        let other = try Manifest(bundleIdentifier: "com.a.other", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
        fake.install(other)
        let f = try AgentFixture(desktop: fake.desktop(busAddress: privateBus.address))
        let observer = try f.app(Self.tool, observer: true)
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort])
        let activity = try UserActivity(activityType: "com.a.edit")
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try choose(activity.activityID, by: observer) == .ok)
        #expect(f.log.wait { $0.name == "launch" && $0.field("bundle") == .string("com.a.app") && $0.field("how") == .string("dbus") })
        #expect(f.log.wait { $0.name == "launch-failed" && $0.field("bundle") == .string("com.a.app") })
        #expect(eventually { fake.launched(other) })
        #expect(f.log.wait { $0.name == "launch" && $0.field("bundle") == .string("com.a.other") && $0.field("how") == .string("exec") })
        #expect(f.counters.launches == 2)
        // The choice waits for the app that was started.
        let started = try f.app(other)
        let continued = try #require(started.next { if case .continueActivity = $0.message { true } else { false } })
        guard case .continueActivity(let remote, _) = continued.frame.message else { return }
        #expect(remote.activityID == activity.activityID)
    }

    @Test func withNoAppTheWebPageOpensElseItFails() throws {
        let fake = FakeDesktop()
        let f = try AgentFixture(desktop: fake.desktop)
        let observer = try f.app(Self.tool, observer: true)
        let sender = try RemoteDevice(Self.appB, peers: [f.agent.engine.beaconPort])
        let page = try UserActivity(activityType: "com.b.view")
        try page.setWebpageURL(URLReference(string: "https://example.com/page?x=1")!)
        #expect(try offer(page, from: sender, to: observer))
        #expect(try choose(page.activityID, by: observer) == .ok)
        #expect(eventually { fake.opened == "https://example.com/page?x=1\n" })
        #expect(f.counters.webPagesOpened == 1)

        // No app, no page: 4608. An id nobody offers: 4609.
        let plain = try UserActivity(activityType: "com.b.view")
        #expect(try offer(plain, from: sender, to: observer))
        guard case .error(let nothing)? = try choose(plain.activityID, by: observer),
              case .error(let unknown)? = try choose(ActivityID(), by: observer) else {
            Issue.record("CHOOSE did not fail")
            return
        }
        #expect(nothing.code == .handoffFailed && unknown.code == .connectionUnavailable)
    }

    /// Without a desktop (`--no-launch`): only running apps.
    @Test func withoutADesktopOnlyRunningAppsAreChosen() throws {
        let f = try AgentFixture()
        let observer = try f.app(Self.tool, observer: true)
        let sender = try RemoteDevice(Self.appB, peers: [f.agent.engine.beaconPort])
        let page = try UserActivity(activityType: "com.b.view")
        try page.setWebpageURL(URLReference(string: "https://example.com/")!)
        #expect(try offer(page, from: sender, to: observer))
        guard case .error(let error)? = try choose(page.activityID, by: observer) else {
            Issue.record("CHOOSE did not fail")
            return
        }
        #expect(error.code == .handoffFailed && f.counters.webPagesOpened == 0)
    }
}
