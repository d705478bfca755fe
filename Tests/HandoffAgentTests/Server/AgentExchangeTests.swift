// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import HandoffTestSupport
import Testing

/// A real agent between apps speaking the local protocol and real engines
/// of other devices on loopback: what each app is told, where fetches and
/// streams go, and what an app that goes away mid-exchange leaves behind.
@Suite(.serialized) struct AgentExchangeTests: TeamApps {
    static let tool = try! Manifest(bundleIdentifier: "org.libhandoff.handoff", teamIdentifier: "HANDOFFCLI")

    @Test func helloIsAnsweredWithWelcome() throws {
        let f = try AgentFixture()
        let client = try f.connect()
        let welcome = try #require(try client.hello(Self.appA))
        let device = f.agent.server.identity.device
        #expect(welcome.deviceID == device.idBytes && welcome.deviceName == "agent device" && welcome.role == .full)
        #expect(welcome.accountID == agentTestAccount.derived.accountID && welcome.agentVersion == "test")
        #expect(f.log.wait { $0.name == "hello" && $0.field("bundle") == .string("com.a.app") })
        #expect(f.counters.hellos == 1 && f.counters.accepted == 1)
    }

    /// Two apps of different teams and an observer on one agent each hear
    /// what they may continue; each fetches only that.
    @Test func eachAppReceivesItsOwnRemoteActivities() throws {
        let f = try AgentFixture()
        let a = try f.app(Self.appA)
        let b = try f.app(Self.appB)
        let observer = try f.app(Self.tool, observer: true)
        let senderA = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort], name: "device A")
        let senderB = try RemoteDevice(Self.appB, peers: [f.agent.engine.beaconPort], name: "device B")
        let activityA = try UserActivity(activityType: "com.a.edit")
        try activityA.setUserInfo(["app": .string("A")])
        let activityB = try UserActivity(activityType: "com.b.view")
        try activityB.setWebpageURL(URLReference(string: "https://example.com/b")!)
        try senderA.app.becomeCurrent(activityA)
        try senderB.app.becomeCurrent(activityB)
        let (idA, idB) = (activityA.activityID, activityB.activityID)

        #expect(a.waitOffered { Set($0.keys) == [idA, idB] })
        #expect(b.waitOffered { $0.keys.contains(idB) })
        #expect(observer.waitOffered { Set($0.keys) == [idA, idB] })
        // A: its own, B's for the web page only. B: its own only (A's has no page).
        #expect(a.offered[idA]?.isWebOnly == false && a.offered[idB]?.isWebOnly == true)
        #expect(a.offered[idA]?.teamIdentifier == "TEAMA" && a.offered[idA]?.bundleIdentifier == "com.a.app")
        #expect(a.offered[idA]?.deviceName == "device A" && a.offered[idB]?.webpageURL?.absoluteString == "https://example.com/b")
        #expect(Set(b.offered.keys) == [idB] && b.offered[idB]?.isWebOnly == false)
        #expect(observer.offered[idA]?.isWebOnly == false && observer.offered[idB]?.isWebOnly == false)

        // A fetches its own; B may not fetch A's (never told of it); A not B's payload (web only).
        a.whileWaiting = { _ = try? senderA.app.dispatch() }
        let payload = try #require(try a.request(.fetch(idA)))
        guard case .payload(let bytes) = payload.frame.message else {
            Issue.record("FETCH got \(payload.frame.message)")
            return
        }
        #expect(try ActivityCoding.decode(bytes).userInfo == ["app": .string("A")])
        guard case .error(let refused)? = try b.request(.fetch(idA))?.frame.message,
              case .error(let webOnly)? = try a.request(.fetch(idB))?.frame.message else {
            Issue.record("a fetch that may not be made was not refused")
            return
        }
        #expect(refused.code == .connectionUnavailable && webOnly.code == .handoffFailed)

        // Withdrawn: told to every app that was told.
        senderB.app.resignCurrent(activityB)
        #expect(a.waitOffered { Set($0.keys) == [idA] } && b.waitOffered { $0.isEmpty })
    }

    /// Two apps advertise; the most recent is offered, the other device's
    /// fetch reaches the app that advertised it (PROVIDE → PAYLOAD), and so
    /// does its confirmation (CONTINUED); the other app hears neither.
    @Test func aFetchReachesTheAppThatAdvertised() throws {
        let receiver = try RemoteDevice(Self.appXY, name: "receiver")
        let f = try AgentFixture(peers: [receiver.beaconPort])
        let x = try f.app(Self.appX)
        let y = try f.app(Self.appY)
        let one = try UserActivity(activityType: "com.example.x.edit")
        let two = try UserActivity(activityType: "com.example.y.edit")
        try two.setUserInfo(["from": .string("y")])
        try x.send(.advertise(Self.advertisement(one, Self.appX)))
        _ = try x.status()  // X's ADVERTISE is in before Y's
        try y.send(.advertise(Self.advertisement(two, Self.appY)))
        #expect(try receiver.pump { receiver.app.availableActivities.map(\.activityID) == [two.activityID] })

        try receiver.app.continueActivity(id: two.activityID)
        y.whileWaiting = { _ = try? receiver.app.dispatch() }
        let provide = try #require(y.next { if case .provide = $0.message { true } else { false } })
        #expect(provide.frame.message == .provide(two.activityID) && provide.frame.requestID != 0)
        try y.send(.payload(ActivityCoding.encode(two)), requestID: provide.frame.requestID)
        #expect(try receiver.pump { receiver.delegate.events.contains("continue") })
        #expect(receiver.delegate.restored?.userInfo == ["from": .string("y")])
        #expect(y.next { $0.message == .continued(two.activityID) } != nil)
        // X heard nothing of it (a STATUS round trip: whatever came before is in).
        _ = try x.status()
        #expect(x.next(within: 0) { if case .provide = $0.message { true } else if case .continued = $0.message { true } else { false } } == nil)
    }

    /// An app that goes away while the other device waits for its payload:
    /// that device hears 4609 at once (not after its timeout), the app's
    /// advertisement is withdrawn (the other app's stands in), and the
    /// agent goes on serving.
    @Test func anAppGoneMidProvideFailsTheFetchAndTheAgentLivesOn() throws {
        let receiver = try RemoteDevice(Self.appXY, fetchTimeout: 60, name: "receiver")
        let f = try AgentFixture(peers: [receiver.beaconPort], fetchTimeout: 60)
        let x = try f.app(Self.appX)
        var y: AgentTestClient? = try f.app(Self.appY)
        let one = try UserActivity(activityType: "com.example.x.edit")
        let two = try UserActivity(activityType: "com.example.y.edit")
        try x.send(.advertise(Self.advertisement(one, Self.appX)))
        _ = try x.status()  // X's ADVERTISE is in before Y's
        try y!.send(.advertise(Self.advertisement(two, Self.appY)))
        #expect(try receiver.pump { receiver.app.availableActivities.map(\.activityID) == [two.activityID] })

        try receiver.app.continueActivity(id: two.activityID)
        y!.whileWaiting = { _ = try? receiver.app.dispatch() }
        #expect(y!.next { if case .provide = $0.message { true } else { false } } != nil)
        y = nil  // closes the connection without answering
        #expect(try receiver.pump { receiver.delegate.events.contains { $0.hasPrefix("didFail:") } })
        #expect(receiver.delegate.events.contains("didFail:4609"))
        #expect(f.log.waitClosed("peer"))
        // X's advertisement stands in; X and a newcomer are served.
        #expect(try receiver.pump { receiver.app.availableActivities.map(\.activityID) == [one.activityID] })
        #expect(try x.status()?.clients == 1)
        let newcomer = try f.app(Self.appY)
        #expect(try newcomer.status()?.clients == 2)
    }

    /// A continuation stream from an app to the device it continued from:
    /// OPEN_STREAM → STREAM with the socket; bytes go both ways.
    @Test func aStreamGoesOutFromAnAppThroughTheAgent() throws {
        let f = try AgentFixture()
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort], name: "sender")
        let recorder = StreamRecorder()
        let activity = try UserActivity(activityType: "com.a.edit")
        activity.supportsContinuationStreams = true
        activity.delegate = recorder
        try sender.app.becomeCurrent(activity)
        let a = try f.app(Self.appA)
        #expect(a.waitOffered { $0[activity.activityID]?.supportsContinuationStreams == true })
        a.whileWaiting = { _ = try? sender.app.dispatch() }
        guard case .payload? = try a.request(.fetch(activity.activityID))?.frame.message else {
            Issue.record("no payload")
            return
        }
        let opened = try #require(try a.request(.openStream(activity.activityID)))
        #expect(opened.frame.message == .stream && opened.descriptors.count == 1)
        let mine = try #require(opened.descriptors.first)
        defer { close(mine) }
        #expect(try sender.pump { recorder.streams.count == 1 })
        let theirs = try #require(recorder.streams.first)
        #expect(writeAll(mine, Array("ping from the app".utf8)))
        #expect(readBytes(theirs.fileDescriptor, count: 17) == Array("ping from the app".utf8))
        #expect(writeAll(theirs.fileDescriptor, Array("pong".utf8)))
        #expect(readBytes(mine, count: 4) == Array("pong".utf8))
    }

    /// A stream another device opens to the app that sent the activity:
    /// ACCEPT_STREAM with the socket → OK; bytes go both ways.
    @Test func aStreamComesInToTheAppThatSentTheActivity() throws {
        let receiver = try RemoteDevice(Self.appXY, name: "receiver")
        let f = try AgentFixture(peers: [receiver.beaconPort])
        let y = try f.app(Self.appY)
        let two = try UserActivity(activityType: "com.example.y.edit")
        two.supportsContinuationStreams = true
        try y.send(.advertise(Self.advertisement(two, Self.appY)))
        #expect(try receiver.pump { receiver.app.availableActivities.map(\.activityID) == [two.activityID] })
        try receiver.app.continueActivity(id: two.activityID)
        y.whileWaiting = { _ = try? receiver.app.dispatch() }
        let provide = try #require(y.next { if case .provide = $0.message { true } else { false } })
        try y.send(.payload(ActivityCoding.encode(two)), requestID: provide.frame.requestID)
        #expect(try receiver.pump { receiver.delegate.events.contains("continue") })
        let restored = try #require(receiver.delegate.restored)
        let outcome = Locked<Result<ContinuationStream, HandoffError>?>(nil)
        try restored.getContinuationStreams { result in outcome.withLock { $0 = result } }
        let accept = try #require(y.next { if case .acceptStream = $0.message { true } else { false } })
        #expect(accept.frame.message == .acceptStream(two.activityID) && accept.descriptors.count == 1)
        let appEnd = try #require(accept.descriptors.first)
        defer { close(appEnd) }
        try y.send(.ok, requestID: accept.frame.requestID)
        #expect(try receiver.pump { outcome.withLock { $0 } != nil })
        let remoteEnd = try #require(try outcome.withLock { $0 }?.get())
        #expect(writeAll(remoteEnd.fileDescriptor, Array("to the app".utf8)))
        #expect(readBytes(appEnd, count: 10) == Array("to the app".utf8))
        #expect(writeAll(appEnd, Array("back".utf8)))
        #expect(readBytes(remoteEnd.fileDescriptor, count: 4) == Array("back".utf8))
    }

    /// STATUS: this device, its ports, its clients, the other devices it
    /// verified, and counters.
    @Test func statusTellsTheDeviceItsPeersAndCounters() throws {
        let f = try AgentFixture()
        let a = try f.app(Self.appA)
        let b = try f.app(Self.appB)
        let sender = try RemoteDevice(Self.appA, peers: [f.agent.engine.beaconPort], name: "the other one")
        try sender.app.becomeCurrent(try UserActivity(activityType: "com.a.edit"))
        #expect(a.waitOffered { $0.count == 1 })
        let status = try #require(try a.status())
        #expect(status.deviceID == f.agent.server.identity.device.idBytes && status.deviceName == "agent device")
        #expect(status.role == .full && status.clients == 2)
        #expect(status.channelPort == f.agent.engine.channelPort && status.beaconPort == f.agent.engine.beaconPort)
        let remote = try #require(status.remotes.first)
        #expect(status.remotes.count == 1 && remote.deviceName == "the other one" && remote.verified)
        #expect(remote.deviceID == sender.engine.configuration.device.idBytes)
        #expect(remote.addresses == ["127.0.0.1:\(sender.engine.channelPort)"])
        #expect(status.counters["agent.hellos"] == 2 && status.counters["agent.accepted"] == 2)
        #expect((status.counters["verifications"] ?? 0) >= 1 && status.counters["remoteDevices"] == 1)
        withExtendedLifetime(b) {}
    }

    static func advertisement(_ activity: UserActivity, _ manifest: Manifest) -> Advertisement {
        Advertisement(activityID: activity.activityID, activityType: activity.activityType, title: activity.title,
                      bundleIdentifier: manifest.bundleIdentifier, teamIdentifier: manifest.teamIdentifier,
                      webpageURL: nil, expirationDate: nil,
                      supportsContinuationStreams: activity.supportsContinuationStreams)
    }
}

/// What the engine asks of an app that answers late, or not at all.
@Suite(.serialized) struct AgentProvideTests {
    static let appY = AgentExchangeTests.appY

    /// The app answers PROVIDE after the engine stopped waiting: the other
    /// device heard 4610; the late answer is counted, the app is told it
    /// was not delivered (UNDELIVERED 4610), the connection stays.
    @Test func aLateAnswerIsCountedAndTheOtherDeviceHeard4610() throws {
        let receiver = try RemoteDevice(AgentExchangeTests.appXY, fetchTimeout: 30, name: "receiver")
        let f = try AgentFixture(peers: [receiver.beaconPort], fetchTimeout: 1)
        let y = try f.app(Self.appY)
        let two = try UserActivity(activityType: "com.example.y.edit")
        try y.send(.advertise(AgentExchangeTests.advertisement(two, Self.appY)))
        #expect(try receiver.pump { receiver.app.availableActivities.map(\.activityID) == [two.activityID] })
        try receiver.app.continueActivity(id: two.activityID)
        y.whileWaiting = { _ = try? receiver.app.dispatch() }
        let provide = try #require(y.next { if case .provide = $0.message { true } else { false } })
        #expect(try receiver.pump { receiver.delegate.events.contains { $0.hasPrefix("didFail:") } })
        #expect(receiver.delegate.events.contains("didFail:4610"))
        try y.send(.payload(ActivityCoding.encode(two)), requestID: provide.frame.requestID)
        #expect(f.log.wait { $0.name == "late" })
        #expect(f.counters.lateReplies == 1 && f.counters.closedMalformed == 0)
        let undelivered = try #require(y.next { if case .undelivered = $0.message { true } else { false } })
        guard case .undelivered(let id, let error) = undelivered.frame.message else { return }
        #expect(id == two.activityID && error.code == .remoteApplicationTimedOut && undelivered.frame.requestID == 0)
        #expect(try y.status() != nil)
    }

    /// Sixteen PROVIDEs wait for an app; the engine's 17th request is
    /// answered 4610 at once, and the app's answers still reach the engine.
    @Test func atMostSixteenRequestsWaitForOneApp() throws {
        let f = try AgentFixture()
        let y = try f.app(Self.appY)
        let two = try UserActivity(activityType: "com.example.y.edit")
        try y.send(.advertise(AgentExchangeTests.advertisement(two, Self.appY)))
        _ = try y.status()  // the advertisement is in
        let answers = Awaitable<[Int: Result<[UInt8], HandoffError>]>([:])
        for i in 0..<17 {
            f.agent.hub.provideActivity(two.activityID) { result in
                answers.update { $0[i] = result }
                return true
            }
        }
        var provides: [UInt32] = []
        while provides.count < 16, let p = y.next(within: 30, where: { if case .provide = $0.message { true } else { false } }) {
            provides.append(p.frame.requestID)
        }
        #expect(provides.count == 16 && Set(provides).count == 16)
        #expect(answers.wait(until: { $0.count == 1 }, seconds: 30) { a, _ in a.values.first?.failure?.code } == .remoteApplicationTimedOut)
        #expect(f.counters.refusedAgentRequests == 1)
        // The app is told of the one it was never asked (as if it answered late).
        let undelivered = try #require(y.next { if case .undelivered = $0.message { true } else { false } })
        #expect(undelivered.frame.message == .undelivered(two.activityID, HandoffError(.remoteApplicationTimedOut,
            "the application has 16 requests of the agent unanswered")))
        let payload = try ActivityCoding.encode(two)
        for id in provides { try y.send(.payload(payload), requestID: id) }
        #expect(answers.wait(until: { $0.count == 17 }, seconds: 30) { a, _ in
            a.values.filter { (try? $0.get()) == payload }.count } == 16)
        // An answer to a request already answered closes the connection.
        try y.send(.payload(payload), requestID: provides[0])
        #expect(y.waitUntilClosed() && f.counters.closedMalformed == 1)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
