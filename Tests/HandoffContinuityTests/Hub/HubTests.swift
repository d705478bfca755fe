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

/// One engine serving several endpoints through an `EndpointHub`: real
/// engines on loopback, real applications on the hub's ports.
@Suite(.serialized) struct HubTests: TeamApps {
    /// Two apps of different teams on one hub (and an observer) each hear
    /// their own team's activity from two other devices, the other team's
    /// only for its web page or not at all; an endpoint registered last is
    /// told at once of all it may continue.
    @Test func eachEndpointReceivesItsOwnActivities() throws {
        let receiverEngine = try loopbackEngine(fetchTimeout: 5)
        let hub = EndpointHub(service: receiverEngine)
        defer { hub.stop() }
        let observer = HubRecorder(audience: .observer)
        let observerPort = hub.register(observer)
        let aDelegate = EngineDelegate(), bDelegate = EngineDelegate()
        let aPort = hub.makePort(), bPort = hub.makePort()
        let a = try Application(manifest: Self.appA, delegate: aDelegate, continuity: aPort)
        let b = try Application(manifest: Self.appB, delegate: bDelegate, continuity: bPort)

        let senderA = try Application(manifest: Self.appA, delegate: EngineDelegate(),
                                      continuity: try loopbackEngine(peers: [receiverEngine.beaconPort], fetchTimeout: 5))
        let senderB = try Application(manifest: Self.appB, delegate: EngineDelegate(),
                                      continuity: try loopbackEngine(peers: [receiverEngine.beaconPort], fetchTimeout: 5))
        let activityA = try UserActivity(activityType: "com.a.edit")
        try activityA.setUserInfo(["app": .string("A")])
        activityA.supportsContinuationStreams = true
        let recorderA = ActivityRecorder()
        activityA.delegate = recorderA
        let activityB = try UserActivity(activityType: "com.b.view")
        try activityB.setWebpageURL(URLReference(string: "https://example.com/b")!)
        try senderA.becomeCurrent(activityA)
        try senderB.becomeCurrent(activityB)
        let (idA, idB) = (activityA.activityID, activityB.activityID)

        let apps = [a, b, senderA, senderB]
        #expect(try pump(apps, seconds: 30) {
            observer.offered.keys.contains(idA) && observer.offered.keys.contains(idB)
                && Set(a.availableActivities.map(\.activityID)) == [idA, idB] && b.availableActivities.count == 1
        })
        // Every delivery made so far has been made once a later registration
        // was told its first list (one ordered queue).
        let late = HubRecorder(audience: .application(Self.appB))
        let latePort = hub.register(late)
        #expect(late.wait(seconds: 30) { $0.keys.contains(idB) })
        for app in apps { try app.dispatch() }

        // A: its own activity, B's for its web page only.
        let seenByA = Dictionary(uniqueKeysWithValues: a.availableActivities.map { ($0.activityID, $0) })
        #expect(seenByA[idA]?.isWebOnly == false && seenByA[idB]?.isWebOnly == true)
        #expect(seenByA[idA]?.teamIdentifier == "TEAMA" && seenByA[idA]?.bundleIdentifier == "com.a.app")
        // B: its own only (A's has no web page).
        #expect(b.availableActivities.map(\.activityID) == [idB] && b.availableActivities[0].isWebOnly == false)
        #expect(!bDelegate.available.contains { $0.activityID == idA })
        // The observer: both, as continuable, with their teams.
        #expect(observer.offered[idA]?.isWebOnly == false && observer.offered[idB]?.isWebOnly == false)
        #expect(observer.offered[idB]?.teamIdentifier == "TEAMB")
        // The late registration: what B may continue, at once.
        #expect(Set(late.offered.keys) == [idB] && late.changes.count == 1)

        // A continues its own; B may not fetch A's, nor A fetch B's payload.
        try a.continueActivity(id: idA)
        #expect(try pump(apps, seconds: 30) { aDelegate.events.contains("continue") })
        #expect(aDelegate.restoredInfo == ["app": .string("A")])
        // Its continuation stream goes out through A's port.
        try checkStream(from: try #require(aDelegate.restored), to: recorderA, pumping: apps)
        let refused = OneShot<Result<[UInt8], HandoffError>>()
        bPort.fetch(try #require(observer.offered[idA])) { refused.fulfil($0) }
        #expect(refused.wait(seconds: 0)?.failure?.code == .connectionUnavailable)
        let webOnly = OneShot<Result<[UInt8], HandoffError>>()
        aPort.fetch(try #require(seenByA[idB])) { webOnly.fulfil($0) }
        #expect(webOnly.wait(seconds: 0)?.failure?.code == .handoffFailed)

        // Withdrawn: every endpoint that was told hears it.
        senderB.resignCurrent(activityB)
        #expect(try pump(apps, seconds: 30) {
            !observer.offered.keys.contains(idB) && !late.offered.keys.contains(idB) && b.availableActivities.isEmpty
                && a.availableActivities.map(\.activityID) == [idA]
        })
        withExtendedLifetime((observerPort, latePort)) {}
    }

    /// One device, two apps on its hub: the engine advertises the most
    /// recent advertisement; FETCH and CONFIRM reach the app that
    /// advertised the id; when that app resigns or goes, the next most
    /// recent one is advertised; when none is left, nothing. A continuation
    /// stream reaches the app that advertised too.
    @Test func theMostRecentIsAdvertisedAndFetchesReachItsApp() throws {
        let receiverEngine = try loopbackEngine(fetchTimeout: 5)
        let receiverDelegate = EngineDelegate()
        let receiver = try Application(manifest: Self.appXY, delegate: receiverDelegate, continuity: receiverEngine)
        let hub = EndpointHub(service: try loopbackEngine(peers: [receiverEngine.beaconPort], fetchTimeout: 5))
        defer { hub.stop() }
        let x = try Application(manifest: Self.appX, delegate: EngineDelegate(), continuity: hub.makePort())
        let y = try Application(manifest: Self.appY, delegate: EngineDelegate(), continuity: hub.makePort())
        #expect(hub.endpointCount == 2)
        let recorder = ActivityRecorder()
        let one = try UserActivity(activityType: "com.example.x.edit")
        try one.setUserInfo(["from": .string("x")])
        let two = try UserActivity(activityType: "com.example.y.edit")
        try two.setUserInfo(["from": .string("y")])
        two.supportsContinuationStreams = true
        two.delegate = recorder
        let apps = [receiver, x, y]
        func offered() -> [ActivityID] { receiver.availableActivities.map(\.activityID) }

        try x.becomeCurrent(one)
        #expect(hub.advertised?.activityID == one.activityID)
        #expect(try pump(apps, seconds: 30) { offered() == [one.activityID] })
        try y.becomeCurrent(two)
        #expect(hub.advertised?.activityID == two.activityID)
        #expect(try pump(apps, seconds: 30) { offered() == [two.activityID] })

        // The receiver continues it: the fetch reaches Y, and so does the CONFIRM.
        try receiver.continueActivity(id: two.activityID)
        #expect(try pump(apps, seconds: 30) { receiverDelegate.events.contains("continue") && recorder.continued == 1 })
        #expect(receiverDelegate.restoredInfo == ["from": .string("y")])
        // Its continuation stream reaches Y through the hub.
        try checkStream(from: try #require(receiverDelegate.restored), to: recorder, pumping: apps)

        // A fetch for X's activity, advertised a moment ago, still reaches X.
        let fetched = OneShot<Result<[UInt8], HandoffError>>()
        hub.provideActivity(one.activityID) { fetched.fulfil($0) }
        #expect(try pump(apps, seconds: 30) { fetched.wait(seconds: 0) != nil })
        let payload = try #require(try fetched.wait(seconds: 0)?.get())
        let decoded = try ActivityCoding.decode(payload)
        #expect(decoded.activityID == one.activityID && decoded.userInfo == ["from": .string("x")])
        // An id no endpoint advertised: what an app answers for one it does not offer.
        let unknown = OneShot<Result<[UInt8], HandoffError>>()
        hub.provideActivity(ActivityID()) { unknown.fulfil($0) }
        #expect(unknown.wait(seconds: 0)?.failure?.code == .handoffFailed)

        // Y resigns: X's activity stands in.
        y.resignCurrent(two)
        #expect(hub.advertised?.activityID == one.activityID)
        #expect(try pump(apps, seconds: 30) { offered() == [one.activityID] })
        // Y is current again, then goes away: X's again.
        try y.becomeCurrent(two)
        #expect(hub.advertised?.activityID == two.activityID)
        #expect(try pump(apps, seconds: 30) { offered() == [two.activityID] })
        y.stopContinuity()
        #expect(hub.endpointCount == 1 && hub.advertised?.activityID == one.activityID)
        #expect(try pump(apps, seconds: 30) { offered() == [one.activityID] })
        // X goes too: nothing is offered.
        x.stopContinuity()
        #expect(hub.endpointCount == 0 && hub.advertised == nil)
        #expect(try pump(apps, seconds: 30) { offered().isEmpty && receiverDelegate.events.last == "withdrawn" })
    }

    /// An app that registers after the other device went quiet is told
    /// what it offers from the hub's memory (no beacon comes any more),
    /// and continues it.
    @Test func aLateRegistrationIsToldWhatIsAvailable() throws {
        var config = ContinuityConfiguration(account: testAccount, device: try DeviceIdentity.generate(name: "receiver", role: .full),
                                             beacons: BeaconTransportConfig(port: 0, multicast: false, peers: []))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.fetchTimeout = 5
        config.remoteLifetime = 300  // the sender falls silent below; its channel stays
        let receiverEngine = try ContinuityEngine(configuration: config)
        let hub = EndpointHub(service: receiverEngine)
        defer { hub.stop() }
        let observer = HubRecorder(audience: .observer)
        let observerPort = hub.register(observer)
        let senderEngine = try loopbackEngine(peers: [receiverEngine.beaconPort], fetchTimeout: 5)
        let sender = try Application(manifest: Self.appX, delegate: EngineDelegate(), continuity: senderEngine)
        let activity = try UserActivity(activityType: "com.example.x.edit")
        try activity.setUserInfo(["late": .string("yes")])
        try sender.becomeCurrent(activity)
        #expect(try pump([sender], seconds: 30) { hub.availableNow.map(\.activityID) == [activity.activityID] })
        senderEngine.transport.stop()

        let delegate = EngineDelegate()
        let app = try Application(manifest: Self.appX, delegate: delegate, continuity: hub.makePort())
        #expect(try pump([sender, app], seconds: 30) { delegate.events.contains("available") })
        // The engine reported nothing since the first time (a beacon still
        // in flight repeats it, which changes nothing): the app's news came
        // from the hub's memory.
        #expect(observer.changes.count == 1)
        try app.continueActivity(id: activity.activityID)
        #expect(try pump([sender, app], seconds: 30) { delegate.events.contains("continue") })
        #expect(delegate.restoredInfo == ["late": .string("yes")])
        senderEngine.detach()
        withExtendedLifetime(observerPort) {}
    }
}

/// A continuity endpoint that records what it is told (an observer, or an
/// app's manifest), from any thread.
final class HubRecorder: ContinuityEndpoint, @unchecked Sendable {
    let audience: ActivityAudience
    let manifest = EndpointHub.identity
    private let log = Awaitable<[RemoteActivityChange]>([])

    init(audience: ActivityAudience) { self.audience = audience }

    var changes: [RemoteActivityChange] { log.update { $0 } }

    /// What is offered now, by activity id, as told.
    var offered: [ActivityID: RemoteActivity] { Self.offered(changes) }

    /// Waits until what is offered satisfies `ready`.
    func wait(seconds: Double, until ready: @escaping ([ActivityID: RemoteActivity]) -> Bool) -> Bool {
        log.wait(until: { ready(Self.offered($0)) }, seconds: seconds) { _, ok in ok }
    }

    static func offered(_ changes: [RemoteActivityChange]) -> [ActivityID: RemoteActivity] {
        var now: [ActivityID: RemoteActivity] = [:]
        for c in changes {
            switch c {
            case .available(let r), .updated(let r): now[r.activityID] = r
            case .withdrawn(let r): now[r.activityID] = nil
            }
        }
        return now
    }

    func remoteActivityChanged(_ change: RemoteActivityChange) { log.update { $0.append(change) } }
    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        _ = reply(.failure(HandoffError(.handoffFailed, "a recorder offers nothing")))
    }
    func activityWasContinued(_ activityID: ActivityID) {}
    func continueChosen(_ remote: RemoteActivity) {}
}

/// Counts an activity's `wasContinued` and keeps the streams it receives.
final class ActivityRecorder: UserActivityDelegate, @unchecked Sendable {
    private let count = Locked(0)
    private let received = Locked<[ContinuationStream]>([])
    var continued: Int { count.withLock { $0 } }
    var streams: [ContinuationStream] { received.withLock { $0 } }
    func userActivityWasContinued(_ activity: UserActivity) { count.withLock { $0 += 1 } }
    func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        received.withLock { $0.append(stream) }
    }
}

/// Opens a continuation stream on `restored` (continued in `receiver`),
/// writes to it, and checks the sending app's `recorder` got the stream
/// and reads what was written.
func checkStream(from restored: UserActivity, to recorder: ActivityRecorder,
                 pumping apps: [Application]) throws {
    let opened = Locked<Result<ContinuationStream, HandoffError>?>(nil)
    try restored.getContinuationStreams { result in opened.withLock { $0 = result } }
    #expect(try pump(apps, seconds: 30) { opened.withLock { $0 } != nil && recorder.streams.count == 1 })
    let mine = try #require(try opened.withLock { $0 }?.get())
    let message = Array("over the hub".utf8)
    #expect(write(mine.fileDescriptor, message, message.count) == message.count)
    let theirs = try #require(recorder.streams.first)
    var got: [UInt8] = []
    for _ in 0..<300 where got.count < message.count {  // at most 30 s
        var p = pollfd(fd: theirs.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 100) > 0 else { continue }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(theirs.fileDescriptor, &buffer, buffer.count)
        guard n > 0 else { break }
        got += buffer[0..<n]
    }
    #expect(got == message)
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
