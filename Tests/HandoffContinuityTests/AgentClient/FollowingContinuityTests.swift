// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// An engine stand-in that records what it is told.
final class RecordingEngine: ContinuityService, @unchecked Sendable {
    let advertised = Locked<[Advertisement?]>([])
    let detached = Locked(false)
    func attach(_ endpoint: any ContinuityEndpoint) {}
    func advertise(_ advertisement: Advertisement?) { advertised.withLock { $0.append(advertisement) } }
    func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        completion(.failure(HandoffError(.handoffFailed, "stub")))
    }
    func confirmContinued(_ remote: RemoteActivity) {}
    func detach() { detached.withLock { $0 = true } }
}

/// AUTO mode following the agent (docs/agent.md §3 "Choosing the mode"):
/// embedded while there is no agent, on the agent once it appears, back
/// on an engine when it goes; the advertisement follows each move.
@Suite struct FollowingContinuityTests {
    static func advertisement() -> Advertisement {
        Advertisement(activityID: ActivityID(bytes: [UInt8](repeating: 9, count: 16)), activityType: "com.example.app.edit",
                      title: "Draft", bundleIdentifier: "com.example.app", teamIdentifier: "TEAM1", webpageURL: nil,
                      expirationDate: nil, supportsContinuationStreams: false)
    }

    @Test func movesToTheAgentWhenItAppearsAndBackWhenItGoes() throws {
        let base = AgentSocketWatchTests.freshBase()
        defer { _ = rmdirTree(base) }
        let path = base + "/handoff/agent.sock"
        var choice = ContinuityModeChoice(mode: .automatic, accountID: testAccount.derived.accountID)
        choice.socketPath = path
        choice.follow = true
        choice.handshakeTimeout = 5
        let engines = Locked<[RecordingEngine]>([])
        let manifest = try manifest()
        let (service, mode) = try choice.start(manifest: manifest) { () throws(HandoffError) in
            let engine = RecordingEngine()
            engines.withLock { $0.append(engine) }
            return engine
        }
        defer { service.detach() }
        let following = try #require(service as? FollowingContinuityService)
        #expect(mode == .embedded && following.mode == .embedded)
        let endpoint = RecordingEndpoint(manifest: manifest)
        service.attach(endpoint)
        let ad = Self.advertisement()
        service.advertise(ad)
        service.offer(ad.activityID, payload: [1, 2, 3])
        service.index(ad.activityID, payload: [4, 5, 6])  // the engine keeps no history

        // The agent appears (its directory too): the app moves there.
        #expect(mkdir(base + "/handoff", 0o700) == 0)
        let agent = try FakeAgent(path: path)
        let advertised = agent.wait(for: .advertise)
        #expect(advertised.count == 1)
        #expect(agent.wait(for: .offer).count == 1)
        // The current activity's INDEX, given while embedded, follows it.
        let indexed = agent.wait(for: .index)
        #expect(indexed.count == 1 && indexed.first?.frame.message == .index(ad.activityID, [4, 5, 6]))
        #expect(waitUntil { following.mode == .agent })
        #expect(engines.withLock { $0.count } == 1 && engines.withLock { $0[0].detached.withLock { $0 } })

        // A fetch waiting on the agent when it goes fails, it does not hang.
        let fetched = Outcome<Result<[UInt8], HandoffError>>()
        service.fetch(agentRemote()) { fetched.set($0) }
        #expect(agent.wait(for: .fetch).count == 1)
        agent.stop(removeDirectory: false)
        let failure = fetched.wait()
        guard case .failure(let error) = failure else { Issue.record("the fetch did not fail: \(String(describing: failure))"); return }
        #expect(error.code == .connectionUnavailable)

        // Embedded again, with the advertisement.
        try #require(waitUntil { following.mode == .embedded && engines.withLock { $0.count } == 2 })
        let second = engines.withLock { $0[1] }
        #expect(second.advertised.withLock { $0 } == [ad])
        #expect(!second.detached.withLock { $0 })

        // The agent comes back: on the agent again, one engine stopped each time.
        let again = try FakeAgent(path: path)
        defer { again.stop(removeDirectory: false) }
        #expect(again.wait(for: .advertise).count == 1)
        #expect(waitUntil { following.mode == .agent })
        #expect(second.detached.withLock { $0 })
        #expect(following.moves == 3)
    }

    @Test func aSocketNobodyAnswersOnLeavesTheAppEmbedded() throws {
        let base = AgentSocketWatchTests.freshBase()
        defer { _ = rmdirTree(base) }
        #expect(mkdir(base + "/handoff", 0o700) == 0)
        let path = base + "/handoff/agent.sock"
        var choice = ContinuityModeChoice(mode: .automatic, accountID: testAccount.derived.accountID)
        choice.socketPath = path
        choice.follow = true
        let manifest = try manifest()
        let (service, _) = try choice.start(manifest: manifest) { () throws(HandoffError) in RecordingEngine() }
        defer { service.detach() }
        let following = try #require(service as? FollowingContinuityService)
        let endpoint = RecordingEndpoint(manifest: manifest)  // services keep their endpoint weakly
        service.attach(endpoint)
        // A socket file with no listener: bound, then closed.
        let stale = try LocalSocket.listen(at: path)
        close(stale)
        // Its tries end (bounded); the app stays embedded and keeps watching.
        #expect(waitUntil { following.connectTries >= FollowingContinuityService.connectAttempts })
        #expect(following.mode == .embedded && following.moves == 0)
        // Each try after the first came from the loop's one-shot timer.
        #expect(following.loopCounts.timerFires == FollowingContinuityService.connectAttempts - 1)
        unlink(path)
        let agent = try FakeAgent(path: path)
        defer { agent.stop(removeDirectory: false) }
        #expect(waitUntil { following.mode == .agent })
    }
}
