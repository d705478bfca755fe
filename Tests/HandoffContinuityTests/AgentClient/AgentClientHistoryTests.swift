// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import Testing

/// INDEX and FORGET through the agent client (docs/agent.md §3, "The
/// app's side"): only to an agent of revision 3 or later; INDEX after
/// ADVERTISE and again after a reconnection; FORGET answered OK or ERROR.
@Suite struct AgentClientHistoryTests {
    static let advert = Advertisement(activityID: ActivityID(bytes: [UInt8](repeating: 5, count: 16)),
                                      activityType: "com.example.app.edit", title: "Notes",
                                      bundleIdentifier: "com.example.app", teamIdentifier: "TEAM1", webpageURL: nil,
                                      expirationDate: nil, supportsContinuationStreams: false)

    @Test func indexFollowsTheAdvertisementAndIsSentAgainAfterAReconnection() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent, maxBackoff: 0.2)
        defer { client.detach() }
        #expect(client.takesIndex)
        client.advertise(Self.advert)
        client.index(Self.advert.activityID, payload: [1, 2, 3])
        let indexed = agent.wait(for: .index)
        try #require(indexed.count == 1)
        #expect(indexed[0].frame.message == .index(Self.advert.activityID, [1, 2, 3]))
        // The agent restarts: the new connection hears ADVERTISE, then the INDEX.
        agent.dropConnections()
        let again = agent.wait(for: .index, count: 2)
        #expect(again.count == 2 && again[1].frame.message == .index(Self.advert.activityID, [1, 2, 3]))
        #expect(again[1].connection != indexed[0].connection)
        // Another activity (not eligible for search) is current: the next
        // connection hears its advertisement and no INDEX.
        var other = Self.advert
        other.activityID = ActivityID(bytes: [UInt8](repeating: 6, count: 16))
        client.advertise(other)
        #expect(agent.wait(for: .advertise, count: 3).count == 3)
        agent.dropConnections()
        let last = agent.wait(for: .advertise, count: 4)
        try #require(last.count == 4)
        #expect(last[3].frame.message == .advertise(other))
        client.advertise(other)  // read past where a kept INDEX would be
        #expect(agent.wait(for: .advertise, count: 5).count == 5)
        #expect(agent.all(.index).count == 2)
    }

    @Test func forgetIsAnsweredByTheAgent() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        defer { client.detach() }
        let answers: [(AgentMessage, HandoffError.Code?)] = [
            (.ok, nil),
            (.error(HandoffError(.connectionUnavailable, "history off")), .connectionUnavailable),
        ]
        for (i, (answer, code)) in answers.enumerated() {
            let outcome = Outcome<Result<Void, HandoffError>>()
            let selection: SavedActivitySelection = i == 0 ? .identifiers(["doc-1"]) : .all
            client.forgetSaved(selection) { outcome.set($0) }
            let forgets = agent.wait(for: .forget, count: i + 1)
            try #require(forgets.count == i + 1)
            #expect(forgets[i].frame.message == .forget(selection))
            try agent.send(AgentFrame(answer, requestID: forgets[i].frame.requestID))
            switch try #require(outcome.wait()) {
            case .success: #expect(code == nil, "case \(i)")
            case .failure(let error): #expect(error.code == code, "case \(i): \(error)")
            }
        }
    }

    @Test func anAgentOlderThanRevision3HearsNeitherAndTheDeletionSaysWhy() throws {
        let agent = try FakeAgent(revision: 2)
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        defer { client.detach() }
        client.advertise(Self.advert)
        client.index(Self.advert.activityID, payload: [1])
        let outcome = Outcome<Result<Void, HandoffError>>()
        client.forgetSaved(.all) { outcome.set($0) }
        guard case .failure(let error) = try #require(outcome.wait()) else {
            Issue.record("an agent of revision 2 deleted something")
            return
        }
        #expect(error.code == .connectionUnavailable && error.message.contains("revision 2"))
        // ADVERTISE went, INDEX and FORGET did not: the second
        // advertisement, sent after them, proves the socket was read past them.
        client.advertise(nil)
        #expect(agent.wait(for: .advertise, count: 2).count == 2)
        #expect(agent.all(.index).isEmpty && agent.all(.forget).isEmpty)
    }
}
