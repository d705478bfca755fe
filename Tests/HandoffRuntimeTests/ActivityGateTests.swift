// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime
import Testing

/// PROTOCOL.md §7 "Gating", rules 3–5, per application: the team and a
/// declared type; a browsing-web page on a claimed domain; else the page.
struct ActivityGateTests {
    static func remote(_ type: String, team: String = "TEAMA", url: String?) -> RemoteActivity {
        RemoteActivity(deviceID: "d", deviceName: "Laptop", activityID: ActivityID(), activityType: type,
                       webpageURL: url.flatMap { URLReference(string: $0) }, teamIdentifier: team, bundleIdentifier: "com.a.app")
    }

    static let docs: Manifest = {
        var m = try! Manifest(bundleIdentifier: "com.d.docs", teamIdentifier: "TEAMD", activityTypes: ["com.d.open"])
        try! m.declare(webDomain: "*.example.com")
        try! m.declare(webDomain: "example.org")
        return m
    }()

    @Test(arguments: [
        ("NSUserActivityTypeBrowsingWeb", "https://a.example.com/x", ActivityGate.Match.webDomain),
        ("NSUserActivityTypeBrowsingWeb", "HTTP://A.EXAMPLE.COM:8080/x", .webDomain),
        ("NSUserActivityTypeBrowsingWeb", "https://example.org/", .webDomain),
        ("com.d.open", "https://a.example.com/x", nil),  // another team's type
    ] as [(String, String, ActivityGate.Match?)])
    func claims(type: String, url: String, expected: ActivityGate.Match?) {
        #expect(ActivityGate.match(Self.remote(type, url: url), Self.docs) == expected)
    }

    @Test(arguments: ["https://example.com/", "https://www.example.org/", "ftp://a.example.com/", "https://a.example.com.evil.net/",
                      "https://a.example.com@evil.net/"])
    func aPageOffTheClaimsIsForItsWebPageOnly(url: String) throws {
        let offered = ActivityGate.offer(Self.remote(ActivityGate.browsingWebType, url: url), to: .application(Self.docs))
        if url.hasPrefix("ftp:") {
            #expect(offered == nil)  // no page a browser opens: nothing
        } else {
            #expect(offered?.isWebOnly == true)
        }
    }

    @Test func aClaimedPageIsContinuableAndItsOwnTeamStillIs() throws {
        let claimed = ActivityGate.offer(Self.remote(ActivityGate.browsingWebType, url: "https://a.example.com/"), to: .application(Self.docs))
        #expect(claimed?.isWebOnly == false)
        let own = ActivityGate.offer(Self.remote("com.d.open", team: "TEAMD", url: nil), to: .application(Self.docs))
        #expect(own?.isWebOnly == false)
        #expect(ActivityGate.match(Self.remote("com.d.open", team: "TEAMD", url: nil), Self.docs) == .declared)
        // Without claims, a browsing-web page of another team is the page only.
        let plain = try Manifest(bundleIdentifier: "com.d.docs", teamIdentifier: "TEAMD", activityTypes: ["com.d.open"])
        #expect(ActivityGate.offer(Self.remote(ActivityGate.browsingWebType, url: "https://a.example.com/"), to: .application(plain))?.isWebOnly == true)
    }
}
