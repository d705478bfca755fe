// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffBase
@testable import HandoffContinuity
import HandoffModel
import HandoffRuntime
import HandoffTestSupport
import Testing

/// A document that takes several of the app's request timeouts to come,
/// continued through a real agent (docs/agent.md §3, BRINGING): an app of
/// revision 4 hears BRINGING while the agent brings it along and gets the
/// activity with the brought copy's URL; an app of revision 3 hears none,
/// and its FETCH fails with 4610, as every such FETCH did before BRINGING.
/// The sending device is a real engine with a home of its own; both
/// engines talk over a loopback throttled to 5 MB/s, so the document takes
/// about 10 s, four times the app's request timeout.
@Suite(.serialized, .enabled(if: ThrottledLoopback.available, "needs root, ip and tc"))
struct AgentBringingTests {
    static let manifest = try! Manifest(bundleIdentifier: "com.example.notes", teamIdentifier: "TEAM1",
                                        activityTypes: ["com.example.notes.edit"])
    static let key = "NSUserActivityDocumentURLKey"
    static let size: UInt64 = 48 << 20
    static let rate = "40mbit"
    /// The app's request timeout, 2.5 s: fetch + connect timeouts + margin.
    static let parts = (fetch: 1.5, connect: 0.5, margin: 0.5)

    /// What the receiving app saw.
    struct Seen: Sendable {
        var events: [String] = []
        var url: String?
        var home = ""
        var copySize: Int64?
        var bringingReports = 0
        var loggedWhole = false
    }

    /// Continues, through an agent, an activity naming a file of `size`
    /// bytes in the sender's home, which the receiver lacks.
    static func continueDocument(revisions: ClosedRange<Int>) throws -> Seen {
        // Not under /tmp, whose files are never described.
        let tree = TemporaryTree("handoff-agent-bringing", under: RepositoryFiles.documentsScratch)
        let (homeA, homeB) = (tree.path("a"), tree.path("b"))
        for dir in [homeA, homeB, homeA + "/notes"] { mkdir(dir, 0o700) }
        let path = homeA + "/notes/atlas.bin"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0, ftruncate(fd, off_t(size)) == 0 else { throw TestFailure("cannot make \(path)") }
        close(fd)

        let f = try AgentFixture(documentEnvironment: ["HOME": homeB])
        var settings = f.agent.engine.settings
        settings.documents.maxSize = size
        f.agent.engine.apply(settings)
        var options = AgentClient.Options(socketPath: f.socketPath, accountID: nil)
        (options.fetchTimeout, options.connectTimeout, options.requestMargin) = parts
        options.revisions = revisions
        let client = try AgentClient(options: options, manifest: manifest)
        let delegate = RemoteDelegate()
        let receiver = try Application(manifest: manifest, delegate: delegate, continuity: client)
        defer { receiver.stopContinuity() }
        let sender = try RemoteDevice(manifest, peers: [f.agent.engine.beaconPort], name: "Desk",
                                      documentEnvironment: ["HOME": homeA])
        let activity = try UserActivity(activityType: "com.example.notes.edit")
        try activity.setUserInfo([key: .url(URLReference(string: FileURL.url(forPath: path))!)])
        try sender.app.becomeCurrent(activity)
        guard try pump([sender.app, receiver], seconds: 30, until: {
            delegate.available.contains { $0.activityID == activity.activityID }
        }) else { throw TestFailure("the activity was never offered to the app") }
        try receiver.continueActivity(id: activity.activityID)
        _ = try pump([sender.app, receiver], seconds: 120) {
            delegate.events.contains("continue") || delegate.events.contains { $0.hasPrefix("didFail") }
        }
        var seen = Seen(events: delegate.events, home: homeB)
        if case .url(let url)? = delegate.restored?.userInfo[key] { seen.url = url.absoluteString }
        if let url = seen.url, url.hasPrefix("file://") {
            var st = stat()
            if stat(FileURL.path(of: url) ?? "", &st) == 0 { seen.copySize = Int64(st.st_size) }
        }
        seen.bringingReports = client.state.withLock { $0.bringingReports }
        // The last report is posted to the agent's loop before the FETCH is
        // answered: waited for when the app got the document, else looked at now.
        let whole: (AgentLogEvent) -> Bool = { $0.name == "document-progress" && $0.field("received") == .int(Int64(size)) }
        seen.loggedWhole = delegate.events.last == "continue" ? f.log.wait(within: 10, whole) : f.log.all.contains(where: whole)
        return seen
    }

    @Test func aRevision4AppGetsTheDocumentWhileTheAgentBringsIt() throws {
        let seen = try ThrottledLoopback.run(rate: Self.rate) { try Self.continueDocument(revisions: ProtocolRevision.spoken) }
        #expect(seen.events.last == "continue", "\(seen.events)")
        #expect(seen.url == FileURL.url(forPath: seen.home + "/Downloads/Handoff/atlas (from Desk).bin"))
        #expect(seen.copySize == Int64(Self.size))
        // The deadline moved (at least once per request timeout of the
        // transfer), and the agent's log followed it to the last byte.
        #expect(seen.bringingReports >= 3, "\(seen.bringingReports)")
        #expect(seen.loggedWhole)
    }

    @Test func aRevision3AppHearsNoBringingAndItsFetchTimesOut() throws {
        let seen = try ThrottledLoopback.run(rate: Self.rate) { try Self.continueDocument(revisions: ProtocolRevision.oldest...3) }
        #expect(seen.events.last == "didFail:4610", "\(seen.events)")
        #expect(seen.bringingReports == 0)
        #expect(!seen.loggedWhole, "the app's FETCH outlasted the document: the test's loopback is too fast")
    }
}
