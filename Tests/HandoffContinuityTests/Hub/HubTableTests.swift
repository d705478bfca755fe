// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import Testing

/// The per-endpoint gate and the hub's bookkeeping, without sockets.
@Suite struct HubTableTests {
    static let teamA = try! Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
    static let teamB = try! Manifest(bundleIdentifier: "com.b.app", teamIdentifier: "TEAMB", activityTypes: ["com.b.view"])

    static func remote(team: String = "TEAMA", type: String = "com.a.edit", url: String? = nil,
                       id: ActivityID = ActivityID(), device: String = "d1", title: String = "T") -> RemoteActivity {
        RemoteActivity(deviceID: device, deviceName: "dev", activityID: id, activityType: type, title: title,
                       webpageURL: url.flatMap(URLReference.init(string:)), teamIdentifier: team, bundleIdentifier: "com.x")
    }

    static func ad(_ id: ActivityID = ActivityID(), title: String = "T") -> Advertisement {
        Advertisement(activityID: id, activityType: "com.a.edit", title: title, bundleIdentifier: "com.a.app",
                      teamIdentifier: "TEAMA", webpageURL: nil, expirationDate: nil, supportsContinuationStreams: false)
    }

    // MARK: ActivityGate

    @Test func theGateIsTeamAndDeclaredTypeElseTheWebPageElseNothing() {
        let app = ActivityAudience.application(Self.teamA)
        let own = ActivityGate.offer(Self.remote(), to: app)
        #expect(own != nil && own?.isWebOnly == false)
        #expect(ActivityGate.offer(Self.remote(team: "TEAMB"), to: app) == nil)
        #expect(ActivityGate.offer(Self.remote(type: "com.a.other"), to: app) == nil)
        let web = ActivityGate.offer(Self.remote(team: "TEAMB", url: "https://example.com/x"), to: app)
        #expect(web?.isWebOnly == true && web?.webpageURL?.absoluteString == "https://example.com/x")
        #expect(ActivityGate.offer(Self.remote(team: "TEAMB", url: "ftp://example.com/x"), to: app) == nil)
        // A continuable one keeps its web page; a non-http(s) one is dropped.
        #expect(ActivityGate.offer(Self.remote(url: "http://example.com/"), to: app)?.webpageURL != nil)
        #expect(ActivityGate.offer(Self.remote(url: "file:///etc/passwd"), to: app)?.webpageURL == nil)
    }

    @Test func anObserverSeesEveryTeamAndTypeAsContinuable() {
        var web = Self.remote(team: "TEAMB", type: "any.type", url: "https://example.com/")
        web.isWebOnly = true
        let seen = ActivityGate.offer(web, to: .observer)
        #expect(seen?.isWebOnly == false && seen?.teamIdentifier == "TEAMB" && seen?.webpageURL != nil)
        #expect(ActivityGate.offer(Self.remote(team: "Z", type: "z"), to: .observer) != nil)
    }

    // MARK: Fan-out

    @Test func eachEndpointIsToldWhatItMayContinue() {
        var t = HubTable()
        _ = t.register(1, audience: .application(Self.teamA))
        _ = t.register(2, audience: .application(Self.teamB))
        _ = t.register(3, audience: .observer)
        let a = Self.remote()
        let b = Self.remote(team: "TEAMB", type: "com.b.view", url: "https://example.com/b", device: "d2")
        let toldA = t.apply(.available(a))
        #expect(toldA.map(\.port) == [1, 3])
        let toldB = t.apply(.available(b))
        #expect(toldB.map(\.port) == [1, 2, 3])
        #expect(t.reported(b, to: 1)?.isWebOnly == true && t.reported(b, to: 2)?.isWebOnly == false)
        // An update that changes nothing an endpoint sees tells it nothing new.
        var retitled = a
        retitled.title = "T2"
        #expect(t.apply(.updated(retitled)).map(\.port) == [1, 3])
        // An update that changes the type: endpoint 1 loses it, 2 still does not see it.
        var retyped = a
        retyped.activityType = "com.b.view"
        retyped.teamIdentifier = "TEAMB"
        let told = t.apply(.updated(retyped))
        #expect(told.count == 3)
        if case .withdrawn = told[0].change, told[0].port == 1 {} else { Issue.record("\(told)") }
        if case .available = told[1].change, told[1].port == 2 {} else { Issue.record("\(told)") }
        if case .updated = told[2].change, told[2].port == 3 {} else { Issue.record("\(told)") }
        let gone = t.apply(.withdrawn(retyped))
        #expect(gone.map(\.port) == [2, 3])
        #expect(t.available.count == 1)
    }

    @Test func aLateRegistrationIsToldWhatIsOfferedNow() {
        var t = HubTable()
        _ = t.apply(.available(Self.remote()))
        _ = t.apply(.available(Self.remote(team: "TEAMB", type: "com.b.view", device: "d2")))
        let told = t.register(7, audience: .application(Self.teamB))
        #expect(told.count == 1 && told.first?.remote.activityType == "com.b.view")
        #expect(t.register(8, audience: .observer).count == 2)
    }

    // MARK: Advertising

    @Test func theMostRecentAdvertisementIsAdvertisedAndTheNextOneStandsIn() {
        var t = HubTable()
        for p in 1...3 { _ = t.register(p, audience: .observer) }
        let (x, y, z) = (Self.ad(), Self.ad(), Self.ad())
        #expect(t.advertise(x, from: 1) == .some(x))
        #expect(t.advertise(y, from: 2) == .some(y))
        #expect(t.advertise(z, from: 3) == .some(z))
        // A withdrawal by one that is not advertised changes nothing.
        #expect(t.advertise(nil, from: 2) == .none)
        #expect(t.advertised == z)
        // The advertised one withdraws: the most recent still standing (x; y withdrew).
        #expect(t.advertise(nil, from: 3) == .some(x))
        // Endpoint 2 becomes current again: most recent.
        #expect(t.advertise(y, from: 2) == .some(y) && t.advertiser == 2)
        // It unregisters: x again; then x goes too: nothing.
        #expect(t.unregister(2) == .some(x))
        #expect(t.unregister(3) == .none)
        #expect(t.unregister(1) == .some(nil))
        #expect(t.advertised == nil && t.advertiser == nil)
        // An endpoint not registered is ignored.
        #expect(t.advertise(x, from: 9) == .none)
    }

    @Test func theSameAdvertisementAgainMakesItsEndpointTheMostRecent() {
        var t = HubTable()
        _ = t.register(1, audience: .observer)
        _ = t.register(2, audience: .observer)
        let (x, y) = (Self.ad(), Self.ad())
        _ = t.advertise(x, from: 1)
        _ = t.advertise(y, from: 2)
        #expect(t.advertise(x, from: 1) == .some(x))
        #expect(t.advertise(nil, from: 1) == .some(y))
    }

    // MARK: Routing

    @Test func idsRouteToTheEndpointThatAdvertisedThemWithinABoundedMemory() {
        var t = HubTable()
        _ = t.register(1, audience: .observer)
        _ = t.register(2, audience: .observer)
        let first = Self.ad()
        _ = t.advertise(first, from: 1)
        let second = Self.ad()
        _ = t.advertise(second, from: 2)
        #expect(t.route(first.activityID) == 1)     // advertised a moment ago, replaced since
        #expect(t.route(second.activityID) == 2)
        #expect(t.route(ActivityID()) == nil)
        // The same id advertised later by another endpoint goes to the later one.
        _ = t.advertise(first, from: 2)
        #expect(t.route(first.activityID) == 2)
        // Endpoint 1 advertises more than it remembers: the oldest is forgotten.
        let many = (0..<HubTable.recentPerEndpoint).map { _ in Self.ad() }
        let oldest = Self.ad()
        _ = t.advertise(oldest, from: 1)
        for ad in many { _ = t.advertise(ad, from: 1) }
        #expect(t.route(oldest.activityID) == nil)
        #expect(t.ports[1]?.recent.count == HubTable.recentPerEndpoint)
        #expect(many.allSatisfy { t.route($0.activityID) == 1 })
        // Unregistering forgets its ids.
        _ = t.unregister(1)
        #expect(t.route(many[0].activityID) == nil)
    }
}
