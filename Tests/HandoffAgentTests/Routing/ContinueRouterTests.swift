// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing

/// Continue routing as a policy (docs/agent.md §13 "Who continues what"),
/// without a socket: which connected app gets CONTINUE, in which order,
/// and what happens when none can and there is no desktop.
struct ContinueRouterTests {
    /// A connected app as the router sees it; records its CONTINUEs.
    final class App: ContinuingApp {
        let manifest: Manifest
        let connectionOrder: UInt64
        let isObserver: Bool
        var isRegistered = true
        private(set) var continued: [(ActivityID, String?)] = []

        init(_ manifest: Manifest, order: UInt64, observer: Bool = false) {
            self.manifest = manifest
            connectionOrder = order
            isObserver = observer
        }

        var audience: ActivityAudience { isObserver ? .observer : .application(manifest) }
        var describe: String { "app \(manifest.bundleIdentifier)" }
        func continueActivity(_ remote: RemoteActivity, activationToken: String?) {
            continued.append((remote.activityID, activationToken))
        }
    }

    static let editor = try! Manifest(bundleIdentifier: "com.a.editor", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
    static let viewer = try! Manifest(bundleIdentifier: "com.a.viewer", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
    static let browser = try! Manifest(bundleIdentifier: "org.libhandoff.browser", teamIdentifier: "LIBHANDOFF",
                                       activityTypes: [ActivityGate.browsingWebType])

    static func remote(bundle: String = "com.a.viewer", url: String? = nil) -> RemoteActivity {
        RemoteActivity(deviceID: "aa", deviceName: "Desk", activityID: ActivityID(), activityType: "com.a.edit",
                       webpageURL: url.flatMap { URLReference(string: $0) }, teamIdentifier: "TEAMA", bundleIdentifier: bundle)
    }

    static func router(offered: [RemoteActivity], apps: [App], events: Recorder = Recorder()) -> ContinueRouter {
        ContinueRouter(desktop: nil, offered: { offered }, running: { apps }, settings: { HandoffSettings.defaults },
                       count: { body in var c = AgentCounters(); body(&c); events.counters.append(c) },
                       log: { events.names.append($0.name) })
    }

    final class Recorder: @unchecked Sendable {
        var names: [String] = []
        var counters: [AgentCounters] = []
    }

    @Test func theSendersOwnBundleIsChosenBeforeTheOneConnectedLongest() throws {
        let remote = Self.remote(bundle: "com.a.viewer")
        let editor = App(Self.editor, order: 1)
        let viewer = App(Self.viewer, order: 2)
        let router = Self.router(offered: [remote], apps: [editor, viewer])
        #expect(try router.choose(remote.activityID, activationToken: "t1").get() == .running("com.a.viewer"))
        #expect(viewer.continued.map(\.0) == [remote.activityID])
        #expect(viewer.continued.first?.1 == "t1")
        #expect(editor.continued.isEmpty)
    }

    @Test func otherwiseTheAppConnectedLongestIsChosen() throws {
        let remote = Self.remote(bundle: "com.a.gone")
        let later = App(Self.viewer, order: 9)
        let earlier = App(Self.editor, order: 3)
        let router = Self.router(offered: [remote], apps: [later, earlier])
        #expect(try router.choose(remote.activityID).get() == .running("com.a.editor"))
        #expect(earlier.continued.count == 1 && later.continued.isEmpty)
    }

    @Test func observersAndClosedAppsAreNeverChosen() {
        let remote = Self.remote(bundle: "com.a.editor")
        let observer = App(Self.editor, order: 1, observer: true)
        let closed = App(Self.editor, order: 2)
        closed.isRegistered = false
        let router = Self.router(offered: [remote], apps: [observer, closed])
        guard case .failure(let error) = router.choose(remote.activityID) else {
            Issue.record("chose an observer or a closed app")
            return
        }
        #expect(error.code == .handoffFailed)
        #expect(observer.continued.isEmpty && closed.continued.isEmpty)
    }

    @Test func withoutADesktopABrowserBridgeOpensTheWebPage() throws {
        let remote = Self.remote(url: "https://example.org/doc")
        let bridge = App(Self.browser, order: 4)
        let events = Recorder()
        let router = Self.router(offered: [remote], apps: [bridge], events: events)
        #expect(try router.choose(remote.activityID).get() == .webPage(URLReference(string: "https://example.org/doc")!))
        #expect(bridge.continued.map(\.0) == [remote.activityID])
        #expect(events.names == ["web"])
        #expect(events.counters.map(\.webPagesOpened) == [1])
        // What a notification would say: the page opens, no app.
        #expect(router.continuer(of: remote, rescanning: false)?.webPageOnly == true)
    }

    @Test func anActivityNoLongerOfferedIsRefused() {
        let router = Self.router(offered: [], apps: [App(Self.editor, order: 1)])
        guard case .failure(let error) = router.choose(ActivityID()) else {
            Issue.record("chose an activity nobody offers")
            return
        }
        #expect(error.code == .connectionUnavailable)
    }
}
