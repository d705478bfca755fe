// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// Two senders claiming one device ID (issue #28: `handoff publish` beside
/// the agent, a copied configuration): the receiver shows the activity that
/// changed last and does not alternate at each keep-alive (PROTOCOL §5
/// "Receiving", step 7; `AdvertSuccession`).
@Suite(.serialized) struct SharedDeviceIDTests {
    func advert(_ id: UInt8, sequence: UInt64 = 1, port: UInt16 = 9, kind: Beacon.Kind = .advert) -> Beacon {
        Beacon(kind: kind, timestamp: 1, sequence: sequence, deviceID: Array(repeating: 1, count: 16), deviceName: "d",
               role: .full, channelPort: port,
               activity: BeaconActivity(activityID: Array(repeating: id, count: 16), activityType: "com.example.app.edit",
                                        title: "T\(id)", teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app",
                                        webpageURL: nil, expiration: nil, supportsContinuationStreams: false))
    }

    /// Applies `b` at `now`, verifying the channel when asked; returns what
    /// the app would be told, as "+id" and "-id".
    func apply(_ b: Beacon, _ t: inout RemoteTable, now: Double) throws -> [String] {
        let (changes, verify) = t.apply(b, from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: now)
        let all = changes + (verify.map { t.verified(hex(b.deviceID), at: $0, failure: nil, now: now) } ?? [])
        return all.map { change in
            switch change {
            case .available(let r): "+\(r.title ?? "")"
            case .withdrawn(let r): "-\(r.title ?? "")"
            case .updated(let r): "~\(r.title ?? "")"
            }
        }
    }

    @Test func keepAlivesOfAReplacedActivityDoNotTakeItBack() throws {
        var t = RemoteTable()
        #expect(try apply(advert(1, port: 9), &t, now: 0) == ["+T1"])
        #expect(try apply(advert(2, port: 10), &t, now: 1) == ["-T1", "+T2"])
        // Both senders' keep-alives, interleaved, for a minute.
        var seen: [String] = []
        for step in 0..<30 {
            let now = 2 + Double(step) * 2
            seen += try apply(step % 2 == 0 ? advert(1, port: 9) : advert(2, port: 10), &t, now: now)
        }
        #expect(seen.isEmpty)
        // The held-back sender's address did not replace the current one's.
        #expect(t.channel(offering: ActivityID(bytes: Array(repeating: 2, count: 16)))?.port == 10)
    }

    @Test func aNewActivityFromEitherSenderIsShownAtOnce() throws {
        var t = RemoteTable()
        _ = try apply(advert(1, port: 9), &t, now: 0)
        _ = try apply(advert(2, port: 10), &t, now: 1)
        #expect(try apply(advert(3, port: 9), &t, now: 2) == ["-T2", "+T3"])
        #expect(try apply(advert(2, port: 10), &t, now: 3).isEmpty)
    }

    @Test func withdrawingTheCurrentActivityBringsBackTheOneItReplaced() throws {
        var t = RemoteTable()
        _ = try apply(advert(1, port: 9), &t, now: 0)
        _ = try apply(advert(2, port: 10), &t, now: 1)
        // The replaced sender's withdrawal of its own activity changes nothing now.
        #expect(try apply(advert(2, port: 10, kind: .withdraw), &t, now: 2) == ["-T2"])
        #expect(try apply(advert(1, port: 9), &t, now: 3) == ["+T1"])
    }

    /// One sender going back to an activity it offered before withdraws the
    /// current one first (PROTOCOL §5 "Sending"), so it is shown at once.
    @Test func oneSenderReturningToAnEarlierActivityIsShown() throws {
        var t = RemoteTable()
        _ = try apply(advert(1), &t, now: 0)
        _ = try apply(advert(2), &t, now: 1)
        #expect(try apply(advert(2, kind: .withdraw), &t, now: 1.1) == ["-T2"])
        #expect(try apply(advert(1), &t, now: 1.2) == ["+T1"])
    }

    /// The current sender crashed (no withdrawal): once its advert has not
    /// been heard for `AdvertSuccession.hold`, the other sender's is shown.
    @Test func theReplacedActivityComesBackWhenTheReplacementIsNoLongerHeard() throws {
        var t = RemoteTable()
        _ = try apply(advert(1, port: 9), &t, now: 0)
        _ = try apply(advert(2, port: 10), &t, now: 1)
        #expect(try apply(advert(1, port: 9), &t, now: 1 + AdvertSuccession.hold).isEmpty)
        let back = try apply(advert(1, port: 9), &t, now: 1.5 + AdvertSuccession.hold)
        #expect(back == ["-T2", "+T1"])
    }

    @Test func replacedActivitiesRememberedAreBounded() {
        var s = AdvertSuccession()
        for id in UInt8(0)..<20 { s.advertised(advert(id), now: Double(id)) }
        #expect(s.replaced.count == AdvertSuccession.capacity && s.current == Array(repeating: 19, count: 16))
    }

    /// Real engines: two senders with one device identity, each advertising
    /// its own activity with fast keep-alives, and a receiver. The receiver
    /// is told of the first, then of the second once, and nothing more for
    /// the 16 keep-alives that follow (a count, not a timing).
    @Test func twoEnginesWithOneDeviceIdentityDoNotMakeTheReceiverAlternate() throws {
        let receiverDelegate = EngineDelegate()
        let receiverEngine = try loopbackEngine()
        let receiver = try Application(manifest: try manifest(), delegate: receiverDelegate, continuity: receiverEngine)
        let identity = try DeviceIdentity.generate(name: "one device", role: .full)
        func sender() throws -> Application {
            var config = ContinuityConfiguration(
                account: testAccount, device: identity,
                beacons: BeaconTransportConfig(port: 0, multicast: false,
                                               peers: [UDPAddress(host: "127.0.0.1", port: receiverEngine.beaconPort)!]))
            config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
            config.keepaliveInterval = 0.25
            return try Application(manifest: try manifest(), delegate: EngineDelegate(),
                                   continuity: try ContinuityEngine(configuration: config))
        }
        let first = try sender(), second = try sender()
        let apps = [first, second, receiver]
        let one = try UserActivity(activityType: "com.example.app.edit")
        one.title = "One"
        try first.becomeCurrent(one)
        #expect(try pump(apps, seconds: 10) { receiverDelegate.events == ["available"] })
        let two = try UserActivity(activityType: "com.example.app.edit")
        two.title = "Two"
        try second.becomeCurrent(two)
        #expect(try pump(apps, seconds: 10) { receiverDelegate.events.count >= 3 })
        #expect(receiverDelegate.events == ["available", "withdrawn", "available"])
        #expect(receiverDelegate.available.last?.activityID == two.activityID)

        // Both keep alive; the first sender's must not take the offer back.
        let before = receiverEngine.status.beacons.accepted
        _ = try pump(apps, seconds: 30) { receiverEngine.status.beacons.accepted >= before + 16 }
        #expect(receiverEngine.status.beacons.accepted >= before + 16)
        #expect(receiverDelegate.events == ["available", "withdrawn", "available"])

        // The second withdraws: the first's keep-alive shows its activity again.
        second.resignCurrent(two)
        #expect(try pump(apps, seconds: 10) { receiverDelegate.events.count >= 5 })
        #expect(receiverDelegate.events == ["available", "withdrawn", "available", "withdrawn", "available"])
        #expect(receiverDelegate.available.last?.activityID == one.activityID)
    }
}
