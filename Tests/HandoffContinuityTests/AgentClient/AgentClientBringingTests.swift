// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
@testable import HandoffRuntime
import Testing

/// BRINGING through the agent client (docs/agent.md §3): from an agent of
/// revision 4, each report gives the FETCHes of its activity the request
/// timeout again, so a FETCH answered after several of them succeeds; a
/// FETCH of another activity still times out; an agent of revision 3
/// moves nothing.
@Suite struct AgentClientBringingTests {
    /// A request timeout of 1 s (fetch 0.4 + connect 0.3 + margin 0.3).
    static func client(_ agent: FakeAgent) throws -> AgentClient {
        var options = AgentClient.Options(socketPath: agent.path, accountID: testAccount.derived.accountID)
        options.fetchTimeout = 0.4
        options.connectTimeout = 0.3
        options.requestMargin = 0.3
        let client = try AgentClient(options: options, manifest: try manifest(types: ["com.example.app.edit"]))
        client.attach(RecordingEndpoint(manifest: try manifest(types: ["com.example.app.edit"])))
        return client
    }

    @Test(arguments: [ProtocolRevision.current, 3]) func bringingMovesTheDeadlineOfItsActivitysFetches(revision: Int) throws {
        let agent = try FakeAgent(revision: revision)
        defer { agent.stop() }
        let client = try Self.client(agent)
        defer { client.detach() }
        let (brought, other) = (agentRemote(1), agentRemote(2))
        let outcome = Outcome<Result<[UInt8], HandoffError>>()
        let otherOutcome = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(brought) { outcome.set($0) }
        client.fetch(other) { otherOutcome.set($0) }
        let fetches = agent.wait(for: .fetch, count: 2)
        try #require(fetches.count == 2)
        let id = try #require(fetches.first { $0.frame.message == .fetch(brought.activityID) }).frame.requestID
        // Four request timeouts of reports, ten per timeout, for `brought` only.
        let reports = 40
        for i in 0..<reports {
            let progress = AgentBringing(activityID: brought.activityID, name: "plan.txt", received: UInt64(i) << 20, total: 64 << 20)
            try agent.send(AgentFrame(.bringing(progress)))
            usleep(100_000)
        }
        #expect(otherOutcome.value != nil, "the other activity's FETCH waited past four of its timeouts")
        if case .failure(let e)? = otherOutcome.value { #expect(e.code == .remoteApplicationTimedOut) }
        try agent.send(AgentFrame(.payload([7]), requestID: id))
        let result = try #require(outcome.wait())
        let moved = client.state.withLock { $0.bringingReports }
        if revision >= AgentMessage.Kind.bringing.revision {
            #expect((try? result.get()) == [7])
            #expect(moved == reports)
        } else {
            guard case .failure(let e) = result else {
                Issue.record("an agent of revision \(revision) moved a deadline")
                return
            }
            #expect(e.code == .remoteApplicationTimedOut)
            #expect(moved == 0)
        }
        // Nothing was a protocol error: the connection stayed.
        #expect(client.connectionCount == 1 && agent.connectionCount == 1)
    }
}
