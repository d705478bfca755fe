// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// The app side of agent mode (docs/agent.md §3) against a fake agent on
/// a real SEQPACKET socket.
@Suite struct AgentClientTests {
    static let advert = Advertisement(activityID: ActivityID(bytes: [UInt8](repeating: 9, count: 16)), activityType: "com.example.app.edit",
                                      title: "Draft", bundleIdentifier: "com.example.app", teamIdentifier: "TEAM1",
                                      webpageURL: URLReference(string: "https://example.com/d"), expirationDate: nil,
                                      supportsContinuationStreams: true)

    /// The request id the agent saw on the one message of `kind`.
    static func onlyRequest(_ agent: FakeAgent, _ kind: AgentMessage.Kind) throws -> FakeAgent.Received {
        let got = agent.wait(for: kind)
        try #require(got.count == 1, "expected one \(kind), got \(got.count)")
        return got[0]
    }

    @Test func helloCarriesTheManifestAndWelcomeTheDevice() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        defer { client.detach() }
        let hello = try Self.onlyRequest(agent, .hello)
        guard case .hello(let h) = hello.frame.message else { Issue.record("not HELLO"); return }
        #expect(hello.frame.requestID == 1)
        #expect(h.manifest.bundleIdentifier == "com.example.app" && h.manifest.teamIdentifier == "TEAM1")
        #expect(h.manifest.activityTypes == ["com.example.app.edit", "com.example.app.view"])
        #expect(h.pid == getpid() && !h.observer && h.revisions == ProtocolRevision.spoken)
        #expect(client.welcome?.deviceName == "Fake agent" && client.welcome?.accountID == testAccount.derived.accountID)

        client.advertise(Self.advert)
        let ad = try Self.onlyRequest(agent, .advertise)
        #expect(ad.frame == AgentFrame(.advertise(Self.advert)))
        client.advertise(nil)
        #expect(agent.wait(for: .advertise, count: 2).last?.frame == AgentFrame(.advertise(nil)))
    }

    @Test func remoteEventsReachTheEndpointInOrder() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, endpoint) = try agentClient(agent)
        defer { client.detach() }
        let (a, b) = (agentRemote(1), agentRemote(2))
        try agent.send(AgentFrame(.remote(.withdrawn(agentRemote(3)))))  // never reported: dropped
        try agent.send(AgentFrame(.remote(.available(a))))
        try agent.send(AgentFrame(.remote(.updated(b))))  // never reported: arrives as available
        try agent.send(AgentFrame(.remote(.updated(a))))
        try agent.send(AgentFrame(.remote(.withdrawn(a))))
        try agent.send(AgentFrame(.continued(Self.advert.activityID)))
        try agent.send(AgentFrame(.continueActivity(b)))
        let events = endpoint.wait(count: 6)
        #expect(events == [.available(a.activityID), .available(b.activityID), .updated(a.activityID), .withdrawn(a.activityID),
                           .continued(Self.advert.activityID), .chosen(b.activityID)])
        #expect(client.connectionCount == 1)
    }

    @Test func fetchRoundTripsAndMapsErrorsAsTheEngineDoes() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        defer { client.detach() }
        // The agent's answer, and what the app gets: bytes, or an error code.
        let cases: [(AgentMessage, [UInt8]?, HandoffError.Code?)] = [
            (.payload([7, 8, 9]), [7, 8, 9], nil),
            (.error(HandoffError(.remoteApplicationTimedOut, "slow")), nil, .remoteApplicationTimedOut),
            (.error(HandoffError(.connectionUnavailable, "gone")), nil, .connectionUnavailable),
            (.error(HandoffError(.userInfoTooLarge, "big")), nil, .userInfoTooLarge),
            (.error(HandoffError(.timedOut, "library timeout")), nil, .remoteApplicationTimedOut),
            (.error(HandoffError(.invalidState, "anything else")), nil, .handoffFailed),
        ]
        for (i, (answer, bytes, code)) in cases.enumerated() {
            let outcome = Outcome<Result<[UInt8], HandoffError>>()
            let remote = agentRemote(UInt8(i + 1))
            client.fetch(remote) { outcome.set($0) }
            let fetches = agent.wait(for: .fetch, count: i + 1)
            try #require(fetches.count == i + 1)
            #expect(fetches[i].frame.message == .fetch(remote.activityID))
            try agent.send(AgentFrame(answer, requestID: fetches[i].frame.requestID))
            switch try #require(outcome.wait()) {
            case .success(let got): #expect(got == bytes, "case \(i)")
            case .failure(let error): #expect(error.code == code, "case \(i): \(error)")
            }
        }
        #expect(Set(agent.all(.fetch).map(\.frame.requestID)).count == cases.count)  // ids are not reused
        #expect(client.connectionCount == 1)
    }

    @Test func aFetchTheAgentDoesNotAnswerTimesOutAndItsLateAnswerIsDropped() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent, fetchTimeout: 0.1, requestMargin: 0.1)  // waits 3.2 s
        defer { client.detach() }
        let outcome = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(agentRemote()) { outcome.set($0) }
        let fetch = try Self.onlyRequest(agent, .fetch)
        let result = try #require(outcome.wait())
        #expect(throws: HandoffError.self) { try result.get() }
        if case .failure(let e) = result { #expect(e.code == .remoteApplicationTimedOut) }
        // The agent answers after the app gave up: dropped, the connection stays.
        try agent.send(AgentFrame(.payload([1]), requestID: fetch.frame.requestID))
        let second = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(agentRemote(2)) { second.set($0) }
        let fetches = agent.wait(for: .fetch, count: 2)
        try #require(fetches.count == 2)
        try agent.send(AgentFrame(.payload([2]), requestID: fetches[1].frame.requestID))
        #expect((try second.wait()?.get()) == [2])
        #expect(client.connectionCount == 1 && agent.connectionCount == 1)
    }

    @Test func provideIsAnsweredByTheAppOrWith4610WhenItIsTooSlow() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, endpoint) = try agentClient(agent, fetchTimeout: 0.5)
        defer { client.detach() }
        let id = Self.advert.activityID
        endpoint.provideAnswer.withLock { $0 = .success([4, 5, 6]) }
        try agent.send(AgentFrame(.provide(id), requestID: 41))
        var replies = agent.wait(for: .payload)
        #expect(replies.first?.frame == AgentFrame(.payload([4, 5, 6]), requestID: 41))
        endpoint.provideAnswer.withLock { $0 = .failure(HandoffError(.userInfoTooLarge, "too big")) }
        try agent.send(AgentFrame(.provide(id), requestID: 42))
        replies = agent.wait(for: .error)
        guard case .error(let e)? = replies.first?.frame.message else { Issue.record("no ERROR"); return }
        #expect(replies.first?.frame.requestID == 42 && e.code == .userInfoTooLarge)
        // The app's main thread does not answer in time: the client does.
        endpoint.provideAnswer.withLock { $0 = nil }
        try agent.send(AgentFrame(.provide(id), requestID: 43))
        replies = agent.wait(for: .error, count: 2)
        try #require(replies.count == 2)
        guard case .error(let late) = replies[1].frame.message else { return }
        #expect(replies[1].frame.requestID == 43 && late.code == .remoteApplicationTimedOut)
        let pending = endpoint.pendingProvide.withLock { $0 }
        try #require(pending.count == 1)
        #expect(pending[0](.success([9])) == false)  // the app hears it was too late
        #expect(waitUntil { endpoint.provideReplies.withLock { $0.count } == 2 })
        #expect(endpoint.provideReplies.withLock { $0 } == [true, true])
        #expect(agent.all(.payload).count == 1 && client.connectionCount == 1)
    }

    /// Writes `bytes` to `fd` and reads as many back from `other`.
    static func relay(_ bytes: [UInt8], from fd: Int32, to other: Int32) -> [UInt8] {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var out = [UInt8](repeating: 0, count: bytes.count)
        var got = 0
        for _ in 0..<100 where got < out.count {
            var p = pollfd(fd: other, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 10_000) == 1 else { break }
            let n = out.withUnsafeMutableBytes { read(other, $0.baseAddress! + got, $0.count - got) }
            guard n > 0 else { break }
            got += n
        }
        return Array(out.prefix(got))
    }

    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    @Test func openStreamPassesAUsableSocket() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        defer { client.detach() }
        let outcome = Outcome<Result<ContinuationStream, HandoffError>>()
        client.openStream(agentRemote()) { outcome.set($0) }
        let open = try Self.onlyRequest(agent, .openStream)
        #expect(open.frame.message == .openStream(agentRemote().activityID))
        let (agentEnd, appEnd) = try Self.socketPair()
        defer { close(agentEnd) }
        _ = fcntl(appEnd, F_SETFL, O_NONBLOCK)  // the client makes it blocking again
        try agent.send(AgentFrame(.stream, requestID: open.frame.requestID), passing: appEnd)
        close(appEnd)
        let stream = try #require(try outcome.wait()?.get())
        let fd = stream.fileDescriptor
        #expect(fd >= 0 && fcntl(fd, F_GETFL) & O_NONBLOCK == 0 && fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(Self.relay(Array("to the app".utf8), from: agentEnd, to: fd) == Array("to the app".utf8))
        #expect(Self.relay(Array("to the agent".utf8), from: fd, to: agentEnd) == Array("to the agent".utf8))
        stream.close()
        var byte: UInt8 = 0
        #expect(read(agentEnd, &byte, 1) == 0)  // the app's close is the agent's EOF
    }

    @Test func acceptStreamHandsTheSocketToTheAppOrClosesItWhenRefused() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, endpoint) = try agentClient(agent)
        defer { client.detach() }
        let (agentEnd, appEnd) = try Self.socketPair()
        defer { close(agentEnd) }
        try agent.send(AgentFrame(.acceptStream(Self.advert.activityID), requestID: 61), passing: appEnd)
        close(appEnd)
        let oks = agent.wait(for: .ok)
        #expect(oks.first?.frame.requestID == 61)
        let stream = try #require(endpoint.streams.withLock { $0.first })
        #expect(Self.relay(Array("ping".utf8), from: agentEnd, to: stream.fileDescriptor) == Array("ping".utf8))
        #expect(Self.relay(Array("pong".utf8), from: stream.fileDescriptor, to: agentEnd) == Array("pong".utf8))

        endpoint.acceptAnswer.withLock { $0 = .failure(HandoffError(.handoffFailed, "no delegate")) }
        let (refusedEnd, refusedApp) = try Self.socketPair()
        defer { close(refusedEnd) }
        try agent.send(AgentFrame(.acceptStream(Self.advert.activityID), requestID: 62), passing: refusedApp)
        close(refusedApp)
        let errors = agent.wait(for: .error)
        guard case .error(let e)? = errors.first?.frame.message else { Issue.record("no ERROR"); return }
        #expect(errors.first?.frame.requestID == 62 && e.code == .handoffFailed)
        var p = pollfd(fd: refusedEnd, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        #expect(poll(&p, 1, 10_000) == 1 && read(refusedEnd, &byte, 1) == 0)  // closed: EOF
        #expect(waitUntil { endpoint.acceptReplies.withLock { $0.count } == 2 })
        #expect(endpoint.acceptReplies.withLock { $0 } == [true, true])
    }

    @Test func aSeventeenthRequestFailsAtOnceWith4609() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        let outcomes = (0..<AgentRequests.limit).map { _ in Outcome<Result<[UInt8], HandoffError>>() }
        for (i, o) in outcomes.enumerated() { client.fetch(agentRemote(UInt8(i + 1))) { o.set($0) } }
        let extra = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(agentRemote(99)) { extra.set($0) }
        // Synchronously, before anything was answered.
        guard case .failure(let e)? = extra.value else { Issue.record("the 17th was not refused at once"); return }
        #expect(e.code == .connectionUnavailable)
        #expect(agent.wait(for: .fetch, count: AgentRequests.limit).count == AgentRequests.limit)
        #expect(outcomes.allSatisfy { $0.value == nil })
        client.detach()  // what is in flight fails with 4609
        for o in outcomes {
            guard case .failure(let e)? = o.wait() else { Issue.record("not failed"); continue }
            #expect(e.code == .connectionUnavailable)
        }
        #expect(agent.all(.fetch).count == AgentRequests.limit)
    }

    @Test func anAgentRestartIsSurvived() throws {
        var agent = try FakeAgent()
        let path = agent.path
        let (client, endpoint) = try agentClient(agent)
        defer { client.detach() }
        client.advertise(Self.advert)
        agent.wait(for: .advertise)
        let remote = agentRemote()
        try agent.send(AgentFrame(.remote(.available(remote))))
        endpoint.wait(count: 1)
        let inFlight = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(remote) { inFlight.set($0) }
        agent.wait(for: .fetch)

        agent.stop(removeDirectory: false)  // the agent goes away...
        guard case .failure(let e)? = inFlight.wait() else { Issue.record("the fetch in flight did not fail"); return }
        #expect(e.code == .connectionUnavailable)
        #expect(endpoint.wait(count: 2) == [.available(remote.activityID), .withdrawn(remote.activityID)])
        let meanwhile = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(remote) { meanwhile.set($0) }  // no agent now: at once
        if case .failure(let e)? = meanwhile.value { #expect(e.code == .connectionUnavailable) } else { Issue.record("not refused") }

        agent = try FakeAgent(path: path)  // ...and comes back
        defer { agent.stop() }
        let hello = agent.wait(for: .hello)
        #expect(hello.count == 1)
        let ads = agent.wait(for: .advertise)
        #expect(ads.first?.frame == AgentFrame(.advertise(Self.advert)))
        #expect(hello.first?.connection == 0 && ads.first?.connection == 0)
        try agent.send(AgentFrame(.remote(.available(remote))))
        #expect(endpoint.wait(count: 3).last == .available(remote.activityID))
        #expect(client.connectionCount == 2 && client.isConnected)
    }

    @Test func garbageFromTheAgentMakesTheClientReconnect() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, endpoint) = try agentClient(agent, maxBackoff: 0.4)
        defer { client.detach() }
        let remote = agentRemote()
        let (extraEnd, extraApp) = try Self.socketPair()
        defer { close(extraEnd); close(extraApp) }
        var unknown = try AgentFrame(.ok, requestID: 5).encoded()
        unknown[1] = 200
        let breakers: [(String, () throws -> Void)] = [
            ("random bytes", { try agent.sendRaw([0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6]) }),
            ("a bad version", { var b = try AgentFrame(.ok, requestID: 5).encoded(); b[0] = 9; try agent.sendRaw(b) }),
            ("a reply to no request", { try agent.send(AgentFrame(.payload([1]), requestID: 777)) }),
            ("a second WELCOME", { try agent.send(AgentFrame(.welcome(AgentWelcome(agentVersion: "x", deviceID: Array(repeating: 1, count: 16),
                                                                                   deviceName: "x", role: .full, accountID: "x")), requestID: 1)) }),
            ("a descriptor on REMOTE", { try agent.send(AgentFrame(.remote(.available(remote))), passing: extraApp) }),
            ("STREAM without a descriptor", { try agent.send(AgentFrame(.stream, requestID: 9)) }),
            ("an app's message", { try agent.sendRaw(try AgentFrame(.fetch(remote.activityID), requestID: 3).encoded()) }),
            ("a body that is no plist", { try agent.sendRaw([1, 4, 0, 0, 0, 0, 0, 0] + Array("bplist00garbage".utf8)) }),
        ]
        try agent.send(AgentFrame(.remote(.available(remote))))
        endpoint.wait(count: 1)
        for (i, (name, breakIt)) in breakers.enumerated() {
            try breakIt()
            #expect(agent.waitForConnections(i + 2), "no reconnection after \(name)")
            #expect(agent.wait(for: .hello, count: i + 2).count == i + 2, "no HELLO after \(name)")
            #expect(waitUntil { client.connectionCount == i + 2 && client.isConnected }, "no WELCOME taken after \(name)")
        }
        // What the first connection reported was withdrawn once, then nothing more.
        #expect(endpoint.events == [.available(remote.activityID), .withdrawn(remote.activityID)])
        // An unknown type is answered, and the connection stays.
        try agent.sendRaw(unknown)
        let answer = agent.wait(for: .error)
        #expect(answer.first?.frame.requestID == 5)
        let fine = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(remote) { fine.set($0) }
        let fetch = agent.wait(for: .fetch)
        try #require(fetch.count == 1)
        try agent.send(AgentFrame(.payload([3]), requestID: fetch[0].frame.requestID))
        #expect((try fine.wait()?.get()) == [3])
        #expect(client.connectionCount == breakers.count + 1)
        #expect(agent.undecodable == 0)
    }

    @Test func anIdleClientDoesNotWakeUp() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        defer { client.detach() }
        client.advertise(Self.advert)
        agent.wait(for: .advertise)
        let outcome = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(agentRemote()) { outcome.set($0) }
        let fetch = try Self.onlyRequest(agent, .fetch)
        try agent.send(AgentFrame(.payload([1]), requestID: fetch.frame.requestID))
        #expect(outcome.wait() != nil)
        // The reader thread may still be on its way back into poll (one
        // more count); a periodic wake-up of a second or less would add two.
        let before = client.pollCount
        usleep(2_500_000)  // an observation window, not a synchronisation
        #expect(client.pollCount <= before + 1)
    }

    /// A FETCH is written by the caller's thread and its deadline armed on
    /// a timer: the reader thread is not woken for it (on a handoff's path
    /// it would take the CPU the agent needs), only for the answer.
    @Test func aFetchDoesNotWakeTheReaderThread() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, endpoint) = try agentClient(agent)
        defer { client.detach() }
        // Asleep once it has handled an event (a wait is counted when it
        // ends; nothing else can wake it: no message, no job, no deadline).
        try agent.send(AgentFrame(.continued(Self.advert.activityID)))
        endpoint.wait(count: 1)
        let before = client.pollCount
        try #require(before >= 1)
        let outcome = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(agentRemote()) { outcome.set($0) }
        let fetch = try Self.onlyRequest(agent, .fetch)
        #expect(client.pollCount == before)
        try agent.send(AgentFrame(.payload([7]), requestID: fetch.frame.requestID))
        #expect((try outcome.wait()?.get()) == [7])
        // The answer wakes it once (it may not be back in poll yet).
        #expect(client.pollCount <= before + 1)
    }

    @Test func detachWithdrawsClosesAndFailsWhatWaits() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        let (client, _) = try agentClient(agent)
        client.advertise(Self.advert)
        let waiting = Outcome<Result<ContinuationStream, HandoffError>>()
        client.openStream(agentRemote()) { waiting.set($0) }
        agent.wait(for: .openStream)
        client.detach()
        guard case .failure(let e)? = waiting.value else { Issue.record("not failed by detach"); return }
        #expect(e.code == .connectionUnavailable)
        #expect(agent.waitForClose(of: 0))
        #expect(agent.all(.advertise).map(\.frame) == [AgentFrame(.advertise(Self.advert)), AgentFrame(.advertise(nil))])
        client.detach()  // idempotent
        let after = Outcome<Result<[UInt8], HandoffError>>()
        client.fetch(agentRemote()) { after.set($0) }
        if case .failure(let e)? = after.value { #expect(e.code == .connectionUnavailable) } else { Issue.record("not refused") }
    }
}
