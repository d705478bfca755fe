// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// A service that only says it was chosen.
final class StubService: ContinuityService, @unchecked Sendable {
    func attach(_ endpoint: any ContinuityEndpoint) {}
    func advertise(_ advertisement: Advertisement?) {}
    func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {}
    func confirmContinued(_ remote: RemoteActivity) {}
    func detach() {}
}

/// Choosing between the agent and an embedded engine (docs/agent.md §3
/// "Choosing the mode"), and the runtime driven through the agent.
@Suite struct AgentModeTests {
    static let account = testAccount.derived.accountID

    /// The mode `choice` ends in, and how often the embedded engine was built.
    static func outcome(_ choice: ContinuityModeChoice) throws(HandoffError) -> (ContinuityMode, Int) {
        let built = Locked(0)
        let (service, mode) = try choice.start(manifest: try! manifest()) { () throws(HandoffError) in
            built.withLock { $0 += 1 }
            return StubService()
        }
        if mode == .agent { #expect(service is AgentClient) } else { #expect(service is StubService) }
        service.detach()
        return (mode, built.withLock { $0 })
    }

    static func choice(_ mode: ContinuityMode, _ agent: FakeAgent?, account: String = account) -> ContinuityModeChoice {
        var c = ContinuityModeChoice(mode: mode, accountID: account)
        c.socketPath = agent?.path
        c.handshakeTimeout = 2
        return c
    }

    @Test func autoUsesAnAgentOfTheSameAccount() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        #expect(try Self.outcome(Self.choice(.automatic, agent)) == (.agent, 0))
        #expect(agent.connectionCount == 1)
    }

    @Test func autoEmbedsWithAnAgentOfAnotherAccountWhichAgentModeRefuses() throws {
        let agent = try FakeAgent(accountID: "0123456789abcdef")
        defer { agent.stop() }
        #expect(try Self.outcome(Self.choice(.automatic, agent)) == (.embedded, 1))
        let error = #expect(throws: HandoffError.self) { try Self.outcome(Self.choice(.agent, agent)) }
        #expect(error?.code == .invalidState)
        #expect(agent.wait(for: .hello, count: 2).count == 2)
    }

    @Test func withoutAnAgentAutoEmbedsAndAgentModeNamesTheSocket() throws {
        let agent = try FakeAgent()
        let path = agent.path
        agent.stop()  // nothing listens there any more
        var nowhere = Self.choice(.automatic, nil)
        nowhere.socketPath = path
        #expect(try Self.outcome(nowhere) == (.embedded, 1))
        nowhere.mode = .agent
        let error = #expect(throws: HandoffError.self) { try Self.outcome(nowhere) }
        #expect(error?.code == .connectionUnavailable && error?.message.contains(path) == true)
        var noRuntime = Self.choice(.automatic, nil)
        noRuntime.socketPath = nil
        #expect(try Self.outcome(noRuntime) == (.embedded, 1))
        noRuntime.mode = .agent
        #expect(throws: HandoffError.self) { try Self.outcome(noRuntime) }
    }

    @Test func deviceSettingsAskForAnEngine() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        var c = Self.choice(.automatic, agent)
        c.deviceSettings = ["beacon_port"]
        #expect(try Self.outcome(c) == (.embedded, 1))
        c.mode = .agent
        let error = #expect(throws: HandoffError.self) { try Self.outcome(c) }
        #expect(error?.code == .invalidArgument && error?.message.contains("beacon_port") == true)
        #expect(try Self.outcome(Self.choice(.embedded, agent)) == (.embedded, 1))
        #expect(agent.connectionCount == 0)  // none of these even connected
    }

    @Test func anAgentThatNeverWelcomesIsGivenUpOn() throws {
        let agent = try FakeAgent(welcomes: false)
        defer { agent.stop() }
        var c = Self.choice(.automatic, agent)
        c.handshakeTimeout = 0.3
        #expect(try Self.outcome(c) == (.embedded, 1))
        c.mode = .agent
        let error = #expect(throws: HandoffError.self) { try Self.outcome(c) }
        #expect(error?.code == .connectionUnavailable)
    }

    /// The runtime through the agent: a continuation chosen outside the app
    /// (CONTINUE) runs willContinue, FETCH and continue; another device's
    /// fetch (PROVIDE) is answered from the app's main thread.
    @Test func anApplicationContinuesAndServesThroughTheAgent() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let delegate = EngineDelegate()
        var options = AgentClient.Options(socketPath: agent.path, accountID: Self.account)
        options.fetchTimeout = 10
        let client = try AgentClient(options: options, manifest: try manifest())
        let app = try Application(manifest: try manifest(), delegate: delegate, continuity: client)
        defer { app.stopContinuity() }

        let sent = try UserActivity(activityType: "com.example.app.edit")
        try sent.setUserInfo(["doc": .string("d-7")])
        let remote = RemoteActivity(deviceID: "00112233445566778899aabbccddeeff", deviceName: "Laptop",
                                    activityID: sent.activityID, activityType: sent.activityType)
        try agent.send(AgentFrame(.continueActivity(remote)))
        #expect(try pump([app], seconds: 20) { !agent.all(.fetch).isEmpty })  // willContinue runs at dispatch, then the fetch
        let fetch = agent.all(.fetch)
        try #require(fetch.count == 1)
        #expect(fetch[0].frame.message == .fetch(sent.activityID))
        try agent.send(AgentFrame(.payload(try ActivityCoding.encode(sent)), requestID: fetch[0].frame.requestID))
        #expect(try pump([app], seconds: 20) { delegate.events.contains("continue") })
        #expect(delegate.events.prefix(2) == ["willContinue", "continue"])
        #expect(delegate.restoredInfo == ["doc": .string("d-7")])
        #expect(agent.wait(for: .confirm).first?.frame == AgentFrame(.confirm(sent.activityID)))

        let mine = try UserActivity(activityType: "com.example.app.edit")
        try mine.setUserInfo(["page": .integer(3)])
        try app.becomeCurrent(mine)
        #expect(agent.wait(for: .advertise).first.map { if case .advertise(let a?) = $0.frame.message { a.activityID == mine.activityID } else { false } } == true)
        try agent.send(AgentFrame(.provide(mine.activityID), requestID: 5))
        #expect(try pump([app], seconds: 20) { !agent.all(.payload).isEmpty })
        guard case .payload(let bytes)? = agent.all(.payload).first?.frame.message else { Issue.record("no PAYLOAD"); return }
        #expect(try ActivityCoding.decode(bytes).userInfo == ["page": .integer(3)])
    }
}
