// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing

/// Who continues a web page (docs/agent.md §13 "Who continues what"): an
/// app claiming the page's domain, before the browser bridge; the browser
/// bridge before the default browser; the person's "web-domains off".
@Suite(.serialized) struct AgentWebDomainTests {
    typealias Fake = AgentChooseTests.FakeDesktop
    static let browser = try! Manifest(bundleIdentifier: "org.libhandoff.browser", teamIdentifier: "LIBHANDOFF",
                                       activityTypes: [ActivityGate.browsingWebType])
    static let docs: Manifest = {
        var m = try! Manifest(bundleIdentifier: "com.d.docs", teamIdentifier: "TEAMD", activityTypes: ["com.d.open"])
        try! m.declare(webDomain: "*.example.com")
        return m
    }()
    static let appA = AgentChooseTests.appA
    static let tool = AgentChooseTests.tool

    func page(_ url: String, type: String = ActivityGate.browsingWebType) throws -> UserActivity {
        let activity = try UserActivity(activityType: type)
        activity.title = "A page"
        try activity.setWebpageURL(URLReference(string: url)!)
        return activity
    }

    func offer(_ activity: UserActivity, from sender: RemoteDevice, to observer: AgentTestClient) throws -> Bool {
        try sender.app.becomeCurrent(activity)
        return observer.waitOffered { $0.keys.contains(activity.activityID) }
    }

    func continued(_ client: AgentTestClient, within seconds: Double = 5) -> RemoteActivity? {
        guard let frame = client.next(within: seconds, where: { if case .continueActivity = $0.message { true } else { false } }),
              case .continueActivity(let remote, _) = frame.frame.message else { return nil }
        return remote
    }

    @Test func aPageOnAClaimedDomainGoesToTheAppNotTheBrowser() throws {
        let f = try AgentFixture()
        let observer = try f.app(Self.tool, observer: true)
        let browser = try f.app(Self.browser)
        let docs = try f.app(Self.docs)
        let sender = try RemoteDevice(Self.browser, peers: [f.agent.engine.beaconPort])
        let activity = try page("https://Guide.Example.com/start?x=1")
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try observer.request(.choose(activity.activityID))?.frame.message == .ok)
        let remote = try #require(continued(docs))
        #expect(remote.activityType == ActivityGate.browsingWebType && !remote.isWebOnly)
        #expect(remote.webpageURL?.absoluteString == "https://Guide.Example.com/start?x=1")
        // The app fetches it like its own team's (the page's payload).
        docs.whileWaiting = { _ = try? sender.app.dispatch() }
        guard case .payload(let bytes)? = try docs.request(.fetch(activity.activityID))?.frame.message else {
            Issue.record("no payload for the claimed page")
            return
        }
        #expect(try ActivityCoding.decode(bytes).webpageURL?.absoluteString == "https://Guide.Example.com/start?x=1")
        _ = try browser.status()
        #expect(continued(browser, within: 0) == nil)
    }

    @Test(arguments: ["https://example.com/", "https://example.com.evil.net/", "https://evilexample.com/",
                      "http://[::1]/", "https://user@evil.net/?h=docs.example.com"])
    func aPageOffTheDomainGoesToTheBrowserBridge(url: String) throws {
        let f = try AgentFixture()
        let observer = try f.app(Self.tool, observer: true)
        let docs = try f.app(Self.docs)
        let browser = try f.app(Self.browser)
        let sender = try RemoteDevice(Self.browser, peers: [f.agent.engine.beaconPort])
        let activity = try page(url)
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try observer.request(.choose(activity.activityID))?.frame.message == .ok)
        let remote = try #require(continued(browser))
        #expect(remote.webpageURL?.absoluteString == url && !remote.isWebOnly)
        _ = try docs.status()
        #expect(continued(docs, within: 0) == nil)
    }

    @Test func webDomainsTurnedOffSendThePageToTheBrowser() throws {
        let f = try AgentFixture()
        var settings = HandoffSettings()
        settings.webDomainsOff = ["com.d.docs"]
        f.agent.engine.apply(settings)
        let observer = try f.app(Self.tool, observer: true)
        let docs = try f.app(Self.docs)
        let browser = try f.app(Self.browser)
        let sender = try RemoteDevice(Self.browser, peers: [f.agent.engine.beaconPort])
        let activity = try page("https://guide.example.com/")
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try observer.request(.choose(activity.activityID))?.frame.message == .ok)
        #expect(continued(browser) != nil)
        _ = try docs.status()
        #expect(continued(docs, within: 0) == nil)
    }

    /// Only a browsing-web activity is routed by domain: another app's
    /// activity with a page there still goes to its own team, else the page.
    @Test func anotherTypeWithAPageOnTheDomainIsNotClaimed() throws {
        let f = try AgentFixture()
        let observer = try f.app(Self.tool, observer: true)
        let docs = try f.app(Self.docs)
        let browser = try f.app(Self.browser)
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort])
        let activity = try page("https://guide.example.com/", type: "com.a.edit")
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try observer.request(.choose(activity.activityID))?.frame.message == .ok)
        // The browser bridge opens the page: offered for its web page only.
        let remote = try #require(continued(browser))
        #expect(remote.isWebOnly && remote.webpageURL?.absoluteString == "https://guide.example.com/")
        #expect(f.log.wait { $0.name == "web" && $0.field("bundle") == .string("org.libhandoff.browser") })
        _ = try docs.status()
        #expect(continued(docs, within: 0) == nil)
    }

    @Test func anInstalledClaimerIsLaunchedBeforeARunningBrowser() throws {
        let fake = Fake()
        fake.tree.write("bin/start-docs", "#!/bin/sh\ntouch \"\(fake.tree.path("launched-docs"))\"\n", mode: 0o755)
        fake.tree.write("data/applications/com.d.docs.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Docs
            Exec=start-docs %U
            X-Handoff-TeamIdentifier=TEAMD
            X-Handoff-WebDomains=*.example.com;

            """)
        let f = try AgentFixture(desktop: fake.desktop)
        let observer = try f.app(Self.tool, observer: true)
        let browser = try f.app(Self.browser)
        let sender = try RemoteDevice(Self.browser, peers: [f.agent.engine.beaconPort])
        let activity = try page("https://guide.example.com/")
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try observer.request(.choose(activity.activityID))?.frame.message == .ok)
        #expect(eventually { fake.tree.exists("launched-docs") })
        let docs = try f.app(Self.docs)
        let remote = try #require(continued(docs))
        #expect(remote.activityID == activity.activityID && !remote.isWebOnly)
        _ = try browser.status()
        #expect(continued(browser, within: 0) == nil)
    }

    @Test func withoutABrowserBridgeTheDefaultBrowserOpensThePage() throws {
        let fake = Fake()
        let f = try AgentFixture(desktop: fake.desktop)
        let observer = try f.app(Self.tool, observer: true)
        let sender = try RemoteDevice(Self.browser, peers: [f.agent.engine.beaconPort])
        let activity = try page("https://guide.example.com/")
        #expect(try offer(activity, from: sender, to: observer))
        #expect(try observer.request(.choose(activity.activityID))?.frame.message == .ok)
        #expect(eventually { fake.opened == "https://guide.example.com/\n" })
    }
}
