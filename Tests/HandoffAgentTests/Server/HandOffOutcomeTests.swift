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
import Testing

/// What the sending app hears of a handoff, the same in both modes
/// (docs/agent.md §3, "What the sending app hears"): each test runs with
/// the sending app on an engine of its own and through a real agent, and
/// the receiving device is a real engine on loopback either way.
@Suite(.serialized) struct HandOffOutcomeTests {
    enum Mode: String, CaseIterable, CustomTestStringConvertible {
        case embedded, agent
        var testDescription: String { rawValue }
    }

    static let sender = try! Manifest(bundleIdentifier: "com.example.sender", teamIdentifier: "TEAM1",
                                      activityTypes: ["com.example.edit"])

    /// The sending app, embedded or through an agent; `engineFetchTimeout`
    /// is how long its device's engine waits for the app's answer.
    final class SendingApp {
        let app: Application
        let delegate = RemoteDelegate()
        let beaconPort: UInt16
        private let engine: ContinuityEngine?
        let fixture: AgentFixture?

        init(_ mode: Mode, engineFetchTimeout: Double = 5, peers: [UInt16] = [],
             manifest: Manifest = HandOffOutcomeTests.sender) throws {
            switch mode {
            case .embedded:
                var config = ContinuityConfiguration(
                    account: agentTestAccount, device: try DeviceIdentity.generate(name: "sender"),
                    beacons: BeaconTransportConfig(port: 0, multicast: false,
                                                   peers: peers.map { UDPAddress(host: "127.0.0.1", port: $0)! }))
                config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
                config.fetchTimeout = engineFetchTimeout
                let engine = try ContinuityEngine(configuration: config)
                self.engine = engine
                fixture = nil
                beaconPort = engine.beaconPort
                app = try Application(manifest: manifest, delegate: delegate, continuity: engine)
            case .agent:
                let f = try AgentFixture(peers: peers, fetchTimeout: engineFetchTimeout)
                fixture = f
                engine = nil
                beaconPort = f.agent.engine.beaconPort
                var options = AgentClient.Options(socketPath: f.socketPath, accountID: nil)
                // The app's own deadline is far: the agent's engine stops waiting first.
                options.fetchTimeout = 60
                let client = try AgentClient(options: options, manifest: manifest)
                app = try Application(manifest: manifest, delegate: delegate, continuity: client)
            }
        }

        deinit {
            app.stopContinuity()
            engine?.detach()
        }

        /// Dispatches the app until `done` holds (at most 30 s).
        func pump(until done: () -> Bool) throws -> Bool {
            for _ in 0..<15_000 {
                _ = try app.dispatch()
                if done() { return true }
                usleep(2000)
            }
            return done()
        }
    }

    /// A receiving device whose beacons reach `sender` and back.
    static func pair(_ mode: Mode, engineFetchTimeout: Double = 5,
                     receiverFetchTimeout: Double = 30) throws -> (SendingApp, RemoteDevice) {
        let receiver = try RemoteDevice(try Manifest(bundleIdentifier: "com.example.receiver", teamIdentifier: "TEAM1",
                                                     activityTypes: ["com.example.edit"]),
                                        fetchTimeout: receiverFetchTimeout, name: "receiver")
        let sender = try SendingApp(mode, engineFetchTimeout: engineFetchTimeout, peers: [receiver.beaconPort])
        return (sender, receiver)
    }

    /// Makes `activity` current on the sender and waits until the receiver is offered it.
    static func offer(_ activity: UserActivity, _ sender: SendingApp, _ receiver: RemoteDevice) throws {
        try sender.app.becomeCurrent(activity)
        #expect(try receiver.pump {
            _ = try? sender.app.dispatch()
            return receiver.app.availableActivities.contains { $0.activityID == activity.activityID }
        })
    }

    /// The largest manifest (512 types, 24 KiB of them, each written as
    /// UTF-16) starts in both modes, and its last type is offered to it.
    @Test(arguments: Mode.allCases) func theLargestManifestWorksInBothModes(_ mode: Mode) throws {
        var manifest = try Manifest(bundleIdentifier: "com.example.large", teamIdentifier: "TEAM1")
        let per = Manifest.maxActivityTypeBytes / Manifest.maxActivityTypes
        for i in 0..<Manifest.maxActivityTypes {
            let stem = "é\(i)."
            try manifest.declare(stem + String(repeating: "x", count: per - stem.utf8.count))
        }
        let last = try #require(manifest.activityTypes.last)
        #expect(throws: HandoffError.self) { try manifest.declare("one.more") }
        let app = try SendingApp(mode, manifest: manifest)
        let other = try RemoteDevice(try Manifest(bundleIdentifier: "com.example.other", teamIdentifier: "TEAM1"),
                                     peers: [app.beaconPort], name: "other")
        try other.app.becomeCurrent(try UserActivity(activityType: last))
        #expect(try app.pump { _ = try? other.app.dispatch(); return app.delegate.available.contains { $0.activityType == last } })
    }

    /// Served and restored: the sender hears `wasContinued`, no failure.
    @Test(arguments: Mode.allCases) func aServedActivityIsToldContinued(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        let recorder = OutcomeRecorder()
        activity.delegate = recorder
        try Self.offer(activity, sender, receiver)
        try receiver.app.continueActivity(id: activity.activityID)
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains("continue") })
        #expect(try sender.pump { recorder.events.contains("wasContinued") })
        #expect(recorder.events == ["wasContinued"])
    }

    /// The sender's main thread answers after its device's engine stopped
    /// waiting: the receiver heard 4610; the sending app hears
    /// `didFailToHandOff` 4610, and no `wasContinued`.
    @Test(arguments: Mode.allCases) func aLateAnswerIsToldAs4610(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode, engineFetchTimeout: 1)
        let activity = try UserActivity(activityType: "com.example.edit")
        let recorder = OutcomeRecorder()
        activity.delegate = recorder
        try Self.offer(activity, sender, receiver)
        // A save is due, so the main thread is asked (not an offer served
        // without it, in agent mode).
        activity.needsSave = true
        try receiver.app.continueActivity(id: activity.activityID)
        // The sender does not dispatch until the receiver has its answer.
        #expect(try receiver.pump { receiver.delegate.events.contains { $0.hasPrefix("didFail:") } })
        #expect(receiver.delegate.events.contains("didFail:4610"))
        #expect(try sender.pump { recorder.events.contains { $0.hasPrefix("didFailToHandOff") } })
        #expect(recorder.events == ["willSave", "didFailToHandOff:4610"])
    }

    /// A payload over the userInfo budget: the receiver hears 4611 and so
    /// does the sending app.
    @Test(arguments: Mode.allCases) func aUserInfoOverTheBudgetIsToldAs4611(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        try activity.setUserInfo(["blob": .data([UInt8](repeating: 7, count: 4000))])
        let recorder = OutcomeRecorder()
        activity.delegate = recorder
        try Self.offer(activity, sender, receiver)
        try receiver.app.continueActivity(id: activity.activityID)
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains { $0.hasPrefix("didFail:") } })
        #expect(receiver.delegate.events.contains("didFail:4611"))
        #expect(try sender.pump { !recorder.events.isEmpty })
        #expect(recorder.events == ["didFailToHandOff:4611"])
    }

    /// A stream the sending app refuses (its activity's delegate takes
    /// none) fails with 4608 on the receiver; the sending app hears
    /// nothing of it.
    @Test(arguments: Mode.allCases) func aRefusedStreamIsNotToldToTheSender(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        let recorder = OutcomeRecorder(takesStreams: false)
        activity.delegate = recorder
        activity.supportsContinuationStreams = true
        try Self.offer(activity, sender, receiver)
        try receiver.app.continueActivity(id: activity.activityID)
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains("continue") })
        let restored = try #require(receiver.delegate.restored)
        let outcome = Locked<Result<ContinuationStream, HandoffError>?>(nil)
        try restored.getContinuationStreams { result in outcome.withLock { $0 = result } }
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return outcome.withLock { $0 } != nil })
        #expect(outcome.withLock { $0?.failure?.code } == .handoffFailed)
        #expect(try sender.pump { recorder.events.contains("wasContinued") })
        #expect(recorder.events == ["wasContinued"])
    }

    /// A stream to an activity that takes them reaches its delegate.
    @Test(arguments: Mode.allCases) func anAcceptedStreamReachesTheSender(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        let recorder = OutcomeRecorder()
        activity.delegate = recorder
        activity.supportsContinuationStreams = true
        try Self.offer(activity, sender, receiver)
        try receiver.app.continueActivity(id: activity.activityID)
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains("continue") })
        let restored = try #require(receiver.delegate.restored)
        let outcome = Locked<Result<ContinuationStream, HandoffError>?>(nil)
        try restored.getContinuationStreams { result in outcome.withLock { $0 = result } }
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return outcome.withLock { $0 } != nil })
        let mine = try #require(try outcome.withLock { $0 }?.get())
        #expect(try sender.pump { recorder.events.contains("stream") })
        #expect(writeAll(mine.fileDescriptor, Array("hello".utf8)))
        let theirs = try #require(recorder.streams.first)
        #expect(readBytes(theirs.fileDescriptor, count: 5) == Array("hello".utf8))
        #expect(recorder.events.filter { $0.hasPrefix("didFail") }.isEmpty)
    }
}

extension HandOffOutcomeTests {
    /// The agent's PROVIDE and offered-payload counts (agent mode).
    static func provides(_ sender: SendingApp) -> (provides: Int, offered: Int)? {
        sender.fixture.map { f in
            let c = f.agent.server.counters
            return (c.provides, c.servedFromOffers)
        }
    }

    /// Nothing changed since the activity became current: the agent
    /// serves the offered payload without PROVIDE; the sender hears
    /// `wasContinued` as in embedded mode.
    @Test(arguments: Mode.allCases) func anOfferedPayloadIsServedWithoutProvide(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        try activity.setUserInfo(["v": .integer(1)])
        let recorder = OutcomeRecorder()
        activity.delegate = recorder
        try Self.offer(activity, sender, receiver)
        try receiver.app.continueActivity(id: activity.activityID)
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains("continue") })
        #expect(receiver.delegate.restored?.userInfo["v"] == .integer(1))
        #expect(try sender.pump { recorder.events.contains("wasContinued") })
        #expect(recorder.events == ["wasContinued"])
        if mode == .agent { #expect(Self.provides(sender)! == (0, 1)) }
    }

    /// needsSave set: the save runs (`userActivityWillSave`) before the
    /// payload goes, through PROVIDE in agent mode, and its state is sent.
    @Test(arguments: Mode.allCases) func aPendingSaveGoesThroughTheMainThread(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        let recorder = OutcomeRecorder()
        recorder.onWillSave = { try? $0.addUserInfoEntries(["saved": .integer(7)]) }
        activity.delegate = recorder
        try Self.offer(activity, sender, receiver)
        activity.needsSave = true
        try receiver.app.continueActivity(id: activity.activityID)
        if mode == .agent {
            // The sender does not dispatch (so does not save) before the
            // fetch reaches its agent: no offer then, so PROVIDE.
            #expect(try receiver.pump { Self.provides(sender)!.provides == 1 })
        }
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains("continue") })
        #expect(receiver.delegate.restored?.userInfo["saved"] == .integer(7))
        #expect(try sender.pump { recorder.events.contains("wasContinued") })
        #expect(recorder.events == ["willSave", "wasContinued"])
        if mode == .agent { #expect(Self.provides(sender)! == (1, 0)) }
    }

    /// A change after the payload was offered: the new state is served,
    /// never the offered one, though the sender has not dispatched since.
    @Test(arguments: Mode.allCases) func aChangeAfterTheOfferIsServed(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        try activity.setUserInfo(["v": .integer(1)])
        try Self.offer(activity, sender, receiver)
        #expect(try sender.pump { true })
        try activity.setUserInfo(["v": .integer(2)])
        activity.title = "changed"
        try receiver.app.continueActivity(id: activity.activityID)
        #expect(try receiver.pump { _ = try? sender.app.dispatch(); return receiver.delegate.events.contains("continue") })
        #expect(receiver.delegate.restored?.userInfo["v"] == .integer(2))
        #expect(receiver.delegate.restored?.title == "changed")
    }

    /// Two fetches, each restored and confirmed: `wasContinued` twice, in
    /// both modes (each served payload counts once, each CONFIRM takes one).
    @Test(arguments: Mode.allCases) func eachServedPayloadIsToldContinuedOnce(_ mode: Mode) throws {
        let (sender, receiver) = try Self.pair(mode)
        let activity = try UserActivity(activityType: "com.example.edit")
        let recorder = OutcomeRecorder()
        activity.delegate = recorder
        try Self.offer(activity, sender, receiver)
        for round in 1...2 {
            try receiver.app.continueActivity(id: activity.activityID)
            #expect(try receiver.pump {
                _ = try? sender.app.dispatch()
                return receiver.delegate.events.filter { $0 == "continue" }.count == round
            })
            #expect(try sender.pump { recorder.events.filter { $0 == "wasContinued" }.count == round })
        }
        #expect(try sender.pump { true })
        #expect(recorder.events == ["wasContinued", "wasContinued"])
        if mode == .agent { #expect(Self.provides(sender)! == (0, 2)) }
    }
}

/// An activity delegate that records what it hears (any thread).
final class OutcomeRecorder: UserActivityDelegate, @unchecked Sendable {
    let takesContinuationStreams: Bool
    init(takesStreams: Bool = true) { takesContinuationStreams = takesStreams }
    private let state = Locked<(events: [String], streams: [ContinuationStream])>(([], []))
    var events: [String] { state.withLock { $0.events } }
    var streams: [ContinuationStream] { state.withLock { $0.streams } }
    /// Runs in `userActivityWillSave` (main thread).
    nonisolated(unsafe) var onWillSave: ((UserActivity) -> Void)?
    func userActivityWillSave(_ activity: UserActivity) {
        state.withLock { $0.events.append("willSave") }
        onWillSave?(activity)
    }
    func userActivityWasContinued(_ activity: UserActivity) { state.withLock { $0.events.append("wasContinued") } }
    func userActivity(_ activity: UserActivity, didFailToHandOffWith error: HandoffError) {
        state.withLock { $0.events.append("didFailToHandOff:\(error.code.rawValue)") }
    }
    func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        state.withLock { s in
            s.events.append("stream")
            s.streams.append(stream)
        }
    }
}
