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

/// Discovery's bounds, in counts: a table that forgets, a verifier pool
/// that never grows, rate limits, a client pool that reaps, duplicates
/// that are not replays, and one address per family.
@Suite(.serialized) struct DiscoveryBoundsTests {
    static func advert(device: [UInt8], sequence: UInt64 = 1, port: UInt16 = 9) -> Beacon {
        Beacon(kind: .advert, timestamp: wallMilliseconds(), sequence: sequence, deviceID: device, deviceName: "d",
               role: .full, channelPort: port,
               activity: BeaconActivity(activityID: Array(0..<16), activityType: "com.example.app.edit", title: "T",
                                        teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app"))
    }

    static func device(_ n: Int) -> [UInt8] {
        var id = [UInt8](repeating: 0xD0, count: 16)
        for k in 0..<4 { id[12 + k] = UInt8((n >> (8 * (3 - k))) & 0xFF) }
        return id
    }

    // MARK: RemoteTable

    @Test func theTableKeepsAtMostItsCapacityAndAVerifiedDeviceOutlivesAFlood() throws {
        var t = RemoteTable(capacity: 64)
        let m = try manifest()
        let genuine = Self.device(0)
        let first = t.apply(Self.advert(device: genuine), from: "10.0.0.1", manifest: m, ownRole: .full, now: 0)
        _ = t.verified(hex(genuine), at: try #require(first.verify), true)
        var verifications = 0
        for n in 1...5000 {
            let r = t.apply(Self.advert(device: Self.device(n)), from: "10.0.0.2", manifest: m, ownRole: .full,
                            now: Double(n) * 0.001)
            if r.verify != nil { verifications += 1 }
            #expect(r.changes.isEmpty)  // nothing unverified is reported, nothing genuine withdrawn
            #expect(t.entries.count <= 64)
        }
        #expect(t.entries.count == 64)
        #expect(verifications == 5000)  // the table asks; the engine's limits refuse (below)
        #expect(t.channel(offering: ActivityID(bytes: Array(0..<16))) == SocketAddress(host: "10.0.0.1", port: 9))
    }

    @Test func whenEveryDeviceIsVerifiedTheLeastRecentlyHeardIsForgotten() throws {
        var t = RemoteTable(capacity: 2)
        let m = try manifest()
        var withdrawn = 0
        for n in 0..<3 {
            let r = t.apply(Self.advert(device: Self.device(n)), from: "10.0.0.\(n + 1)", manifest: m, ownRole: .full,
                            now: Double(n))
            withdrawn += r.changes.filter { if case .withdrawn = $0 { true } else { false } }.count
            _ = t.verified(hex(Self.device(n)), at: try #require(r.verify), true)
        }
        #expect(t.entries.count == 2 && t.entries[hex(Self.device(0))] == nil && withdrawn == 1)
    }

    @Test func failedVerificationsBackOff() throws {
        var t = RemoteTable()
        let m = try manifest()
        let id = Self.device(1)
        var attempts: [Double] = []
        var now = 0.0
        while now < 100 {
            if let v = t.apply(Self.advert(device: id), from: "10.0.0.1", manifest: m, ownRole: .full, now: now).verify {
                attempts.append(now)
                _ = t.verified(hex(id), at: v, false)
            }
            now += 0.5
        }
        // 0, 2, 6, 14, 30, 62, 94: waits of 2, 4, 8, 16, 32, 32.
        #expect(attempts == [0, 2, 6, 14, 30, 62, 94])
    }

    @Test func aDeferredVerificationIsNoFailure() throws {
        var t = RemoteTable()
        let m = try manifest()
        let id = Self.device(1)
        let v = try #require(t.apply(Self.advert(device: id), from: "10.0.0.1", manifest: m, ownRole: .full, now: 0).verify)
        t.deferred(hex(id), at: v)
        #expect(t.apply(Self.advert(device: id), from: "10.0.0.1", manifest: m, ownRole: .full, now: 1).verify == nil)
        #expect(t.apply(Self.advert(device: id), from: "10.0.0.1", manifest: m, ownRole: .full, now: 2).verify != nil)
        #expect(t.entries[hex(id)]?.failures == 0)
    }

    @Test func eachFamilyKeepsItsAddressAndTheSecondCopyChangesNothing() throws {
        var t = RemoteTable()
        let m = try manifest()
        let id = Self.device(7)
        let v6 = "fe80::1%lo"
        // Heard first over IPv6: verified there.
        let first = t.apply(Self.advert(device: id, sequence: 1), from: "fe80::1%1", manifest: m, ownRole: .full, now: 0)
        let channel = try #require(first.verify)
        #expect(channel.host == "fe80::1%1")  // the scope is kept
        #expect(t.verified(hex(id), at: channel, true).count == 1)
        // Its IPv4 copy (a duplicate) fills in the IPv4 address only.
        t.heardCopy(of: Self.advert(device: id, sequence: 1), from: "10.0.0.1")
        // Later beacons arrive over IPv4 first, then IPv6: no flip, no re-verification.
        for seq in 2...6 {
            let host = seq % 2 == 0 ? "10.0.0.1" : "fe80::1%1"
            let r = t.apply(Self.advert(device: id, sequence: UInt64(seq)), from: host, manifest: m, ownRole: .full, now: Double(seq))
            #expect(r.verify == nil && r.changes.isEmpty)
        }
        let entry = try #require(t.entries[hex(id)])
        #expect(entry.channels[.ipv4] == SocketAddress(host: "10.0.0.1", port: 9))
        #expect(entry.channels[.ipv6] == SocketAddress(host: "fe80::1%1", port: 9))
        #expect(t.channel(offering: ActivityID(bytes: Array(0..<16))) == channel)
        // A copy never replaces an address.
        t.heardCopy(of: Self.advert(device: id), from: "10.0.0.66")
        #expect(t.entries[hex(id)]?.channels[.ipv4] == SocketAddress(host: "10.0.0.1", port: 9))
        // The verified family's address moving does mean checking again.
        let moved = t.apply(Self.advert(device: id, sequence: 9), from: "fe80::2%1", manifest: m, ownRole: .full, now: 10)
        #expect(moved.verify == SocketAddress(host: "fe80::2%1", port: 9))
        _ = v6
    }

    @Test func aNewChannelPortForgetsTheOtherFamily() throws {
        var t = RemoteTable()
        let m = try manifest()
        let id = Self.device(8)
        let r = t.apply(Self.advert(device: id), from: "10.0.0.1", manifest: m, ownRole: .full, now: 0)
        _ = t.verified(hex(id), at: try #require(r.verify), true)
        t.heardCopy(of: Self.advert(device: id), from: "fd00::1")
        let restarted = t.apply(Self.advert(device: id, sequence: 2, port: 10), from: "fd00::1", manifest: m, ownRole: .full, now: 1)
        #expect(restarted.verify == SocketAddress(host: "fd00::1", port: 10))
        #expect(t.entries[hex(id)]?.channels[.ipv4] == nil)
    }

    // MARK: Replay guard

    @Test func theSameBeaconTwiceIsADuplicateNotAReplay() {
        let g = ReplayGuard()
        let now = wallMilliseconds()
        let id = Self.device(1)
        var b = Self.advert(device: id, sequence: 10)
        b.timestamp = now
        #expect(g.check(b, nowMilliseconds: now) == .accepted)
        #expect(g.check(b, nowMilliseconds: now) == .duplicate)   // the other family's copy
        for s in [11, 12, 13, 14, 15, 16, 17, 18, 19, 30] { b.sequence = UInt64(s); #expect(g.check(b, nowMilliseconds: now) == .accepted) }
        b.sequence = 10
        #expect(g.check(b, nowMilliseconds: now) == .replay)       // older than the recent ones
        b.sequence = 19
        #expect(g.check(b, nowMilliseconds: now) == .duplicate)
        b.sequence = 25
        #expect(g.check(b, nowMilliseconds: now) == .replay)       // never accepted
        b.sequence = 31
        b.timestamp = now - 60_000
        #expect(g.check(b, nowMilliseconds: now) == .stale)
    }

    // MARK: Worker pool and rate limits

    @Test func thePoolNeverStartsMoreThanItsThreadsNorQueuesMoreThanItsLimit() {
        let pool = WorkerPool(threads: 2, queueLimit: 8)
        let release = Awaitable(false)
        let ran = Awaitable(0)
        var accepted = 0
        for _ in 0..<5000 {
            if pool.submit({
                release.wait(until: { $0 }, seconds: 30) { _, _ in }
                ran.update { $0 += 1 }
            }) { accepted += 1 }
            #expect(pool.threadsAlive <= 2 && pool.queued <= 8)
        }
        // Two running plus eight queued at most (a thread may not have taken its job yet).
        #expect(accepted <= 10 && accepted >= 8)
        #expect(pool.threadsStarted == 2)
        release.update { $0 = true }
        #expect(ran.wait(until: { $0 == accepted }, seconds: 30) { _, ok in ok })
        pool.stop(waiting: 30)
        #expect(pool.threadsAlive == 0 && !pool.submit({}))
    }

    @Test func rateLimitsCountPerSourceAndOverall() {
        var one = RateLimiter<String>(perSource: 1, perSourceBurst: 3, overall: 100, overallBurst: 100, now: 0)
        #expect((0..<50).filter { _ in one.admit("a", now: 0) }.count == 3)
        let later = one.admit("a", now: 1.0)
        #expect(later)          // one more a second later
        var all = RateLimiter<String>(perSource: 1, perSourceBurst: 3, overall: 4, overallBurst: 8, maxSources: 16, now: 0)
        #expect((0..<5000).filter { all.admit("s\($0)", now: 0) }.count == 8)
        #expect(all.sourceCount <= 16)
        #expect((0..<5000).filter { all.admit("t\($0)", now: 1) }.count == 4)
    }

    // MARK: The engine under a flood

    /// An engine with an application, fed sealed beacons of `count` device
    /// ids directly (as the transport would), each naming a closed port.
    @Test func aFloodOfDeviceIdsStaysWithinTheBounds() throws {
        let delegate = EngineDelegate()
        let engine = try loopbackEngine()
        let app = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        let key = testAccount.derived.beaconKey
        let from = UDPAddress(host: "127.0.0.1", port: 40000)!
        let started = monotonicSeconds()
        for n in 1...5000 {
            let packet = try BeaconCodec.seal(Self.advert(device: Self.device(n), sequence: wallMilliseconds(), port: 1), key: key)
            engine.received(packet, from: from)
            let d = engine.discovery
            #expect(d.remoteDevices <= RemoteTable.defaultCapacity)
            #expect(d.verifierThreadsStarted <= ContinuityEngine.verifyThreads)
            #expect(d.verificationsQueued <= ContinuityEngine.verifyQueue)
        }
        let elapsed = monotonicSeconds() - started
        let d = engine.discovery
        #expect(d.remoteDevices == RemoteTable.defaultCapacity)
        // Attempts admitted: the per-source burst plus its rate over the flood.
        let cap = ContinuityEngine.verifyPerSource.burst + ContinuityEngine.verifyPerSource.rate * (elapsed + 1)
        #expect(Double(5000 - d.verificationsLimited) <= cap)
        #expect(delegate.events.isEmpty)
        try app.dispatch()
        engine.detach()
        #expect(engine.verifier.threadsAlive == 0)
    }

    @Test func answersToSolicitationsAreRateLimited() throws {
        let engine = try loopbackEngine()
        let app = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: engine)
        try app.becomeCurrent(try UserActivity(activityType: "com.example.app.edit"))
        let key = testAccount.derived.beaconKey
        let solicitor = Self.device(1)
        let started = monotonicSeconds()
        for n in 0..<200 {
            let b = Beacon(kind: .solicit, timestamp: wallMilliseconds(), sequence: UInt64(n + 1), deviceID: solicitor,
                           deviceName: "s", role: .full, channelPort: 1, activity: nil)
            engine.received(try BeaconCodec.seal(b, key: key), from: UDPAddress(host: "127.0.0.1", port: 40001)!)
        }
        var elapsed = monotonicSeconds() - started
        var d = engine.discovery
        #expect(d.answers >= 1)
        #expect(Double(d.answers) <= ContinuityEngine.answerPerSource.burst + ContinuityEngine.answerPerSource.rate * (elapsed + 1))
        #expect(d.answers + d.answersRefused == 200)
        // From many sources: the overall limit.
        let before = d.answers
        let again = monotonicSeconds()
        for n in 0..<200 {
            let b = Beacon(kind: .solicit, timestamp: wallMilliseconds(), sequence: UInt64(n + 1), deviceID: Self.device(1000 + n),
                           deviceName: "s", role: .full, channelPort: 1, activity: nil)
            engine.received(try BeaconCodec.seal(b, key: key), from: UDPAddress(host: "127.0.0.2", port: UInt16(41000 + n))!)
        }
        elapsed = monotonicSeconds() - again
        d = engine.discovery
        #expect(Double(d.answers - before) <= ContinuityEngine.answerOverall.burst + ContinuityEngine.answerOverall.rate * (elapsed + 1))
        engine.detach()
    }

    /// Solicitations the answer limits refuse are still answered, once the
    /// limits admit one for their source: one answer for all it sent
    /// meanwhile, and every answer sent reaches the solicitor's address
    /// (a listener started again and again on one port is answered within
    /// the limits' refill, not left to its next solicitation).
    @Test func solicitationsTheLimitsRefuseAreAnsweredOnceTheyAdmit() throws {
        let engine = try loopbackEngine()
        let app = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: engine)
        try app.becomeCurrent(try UserActivity(activityType: "com.example.app.edit"))
        let sink = try UDPSink()
        defer { sink.close() }
        let key = testAccount.derived.beaconKey
        let from = try #require(UDPAddress(host: "127.0.0.1", port: sink.port))
        let started = monotonicSeconds()
        for n in 0..<(Int(ContinuityEngine.answerPerSource.burst) + 20) {
            let b = Beacon(kind: .solicit, timestamp: wallMilliseconds(), sequence: UInt64(n + 1), deviceID: Self.device(7),
                           deviceName: "s", role: .full, channelPort: 1, activity: nil)
            engine.received(try BeaconCodec.seal(b, key: key), from: from)
        }
        let atOnce = engine.discovery.answers
        #expect(engine.discovery.answersRefused >= 1)
        var heard = 0
        // The last solicitation was refused: an answer still comes after it.
        #expect(try pump([app]) {
            while sink.received() { heard += 1 }
            return heard > atOnce
        })
        #expect(try pump([app]) { engine.state.withLock { $0.owedAnswers.isEmpty } })
        let d = engine.discovery
        #expect(d.answersDeferred >= 1)
        #expect(d.answersDeferred <= d.answersRefused)
        // Within the limits: answers at once and later, together.
        let elapsed = monotonicSeconds() - started
        #expect(Double(d.answers + d.answersDeferred)
                <= ContinuityEngine.answerPerSource.burst + ContinuityEngine.answerPerSource.rate * (elapsed + 1))
        engine.detach()
        while sink.received() { heard += 1 }
        #expect(heard == d.answers + d.answersDeferred)
    }

    /// A receiver that starts hears what is offered from the answer to its
    /// solicitation: the sender sent one beacon (before the receiver was
    /// attached) and would send its next only an hour later.
    @Test func aStartingReceiverLearnsWhatIsOfferedFromItsSolicitation() throws {
        let receiverEngine = try loopbackEngine()
        var config = ContinuityConfiguration(
            account: testAccount, device: try DeviceIdentity.generate(name: "sender", role: .full),
            beacons: BeaconTransportConfig(port: 0, multicast: false, peers: [UDPAddress(host: "127.0.0.1", port: receiverEngine.beaconPort)!]))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.burst = [0]
        config.keepaliveInterval = 3600
        let senderEngine = try ContinuityEngine(configuration: config)
        receiverEngine.transport.setPeers([UDPAddress(host: "127.0.0.1", port: senderEngine.beaconPort)!])
        let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: senderEngine)
        try sender.becomeCurrent(try UserActivity(activityType: "com.example.app.edit"))
        // The sender's one beacon reaches the receiver's socket before any app is attached there.
        #expect(try pump([sender]) { senderEngine.transport.stats.packetsSent >= 1 && receiverEngine.transport.stats.packetsReceived >= 1 })
        let delegate = EngineDelegate()
        let receiver = try Application(manifest: try manifest(), delegate: delegate, continuity: receiverEngine)
        #expect(try pump([sender, receiver]) { delegate.events.contains("available") })
        #expect(senderEngine.discovery.answers >= 1)
        #expect(delegate.events.filter { $0 == "available" }.count == 1)  // the answer's unicast copy is a duplicate
        senderEngine.detach()
        receiverEngine.detach()
    }

    // MARK: Client pool

    @Test func pooledConnectionsAreBoundedAndReaped() throws {
        let server = try ChannelServer(listeningOn: SocketAddress(host: "0.0.0.0", port: 0),
                                       psk: testAccount.derived.channelPSK) { c in _ = try? c.receive(timeout: 20) }
        defer { server.stop() }
        let client = ExchangeClient(psk: testAccount.derived.channelPSK, limits: ChannelLimits(), fetchTimeout: 1, idleLifetime: 10)
        for n in 1...20 {
            #expect(try client.verify(SocketAddress(host: "127.0.0.\(n)", port: server.port)).get() == ProtocolRevision.current)
            #expect(client.pooledCount <= ExchangeClient.maxPooled)
        }
        #expect(client.pooledCount == ExchangeClient.maxPooled)
        #expect(client.reap() == 0)
        #expect(client.reap(now: monotonicSeconds() + 11) == ExchangeClient.maxPooled)
        #expect(client.pooledCount == 0)
        client.closeAll()
    }

    @Test func aConnectionThePeerClosedIsReapedNotLeftInCloseWait() throws {
        let server = try ChannelServer(listeningOn: SocketAddress(host: "127.0.0.1", port: 0),
                                       psk: testAccount.derived.channelPSK) { c in c.close() }
        defer { server.stop() }
        let client = ExchangeClient(psk: testAccount.derived.channelPSK, limits: ChannelLimits(), fetchTimeout: 1, idleLifetime: 10)
        #expect(try client.verify(SocketAddress(host: "127.0.0.1", port: server.port)).get() == ProtocolRevision.current)
        var reaped = 0
        for _ in 0..<500 where reaped == 0 {   // until the FIN arrives (at most 5 s)
            reaped += client.reap()
            if client.pooledCount == 0 { break }
            usleep(10_000)
        }
        #expect(client.pooledCount == 0)
        client.closeAll()
    }
}

extension DiscoveryBoundsTests {
    /// A channel reachable over one family only: the other family is tried
    /// at once, and a round counts as one failure only when every family failed.
    @Test func aFailedFamilyIsFollowedByTheOtherAtOnce() throws {
        var t = RemoteTable()
        let m = try manifest()
        let id = Self.device(9)
        let r = t.apply(Self.advert(device: id, sequence: 1), from: "fe80::1%1", manifest: m, ownRole: .full, now: 0)
        t.heardCopy(of: Self.advert(device: id, sequence: 1), from: "10.0.0.1")
        let v6 = try #require(r.verify)
        _ = t.verified(hex(id), at: v6, false)
        #expect(t.entries[hex(id)]?.failures == 0)
        let untried = t.untriedChannel(hex(id), now: 0)
        let v4 = try #require(untried)
        #expect(v4 == SocketAddress(host: "10.0.0.1", port: 9))
        #expect(t.verified(hex(id), at: v4, true).count == 1)
        #expect(t.channel(offering: ActivityID(bytes: Array(0..<16))) == v4)
        // Both failing is one failed round.
        var u = RemoteTable()
        let r2 = u.apply(Self.advert(device: id, sequence: 1), from: "fe80::1%1", manifest: m, ownRole: .full, now: 0)
        u.heardCopy(of: Self.advert(device: id, sequence: 1), from: "10.0.0.1")
        _ = u.verified(hex(id), at: try #require(r2.verify), false)
        let second = u.untriedChannel(hex(id), now: 0)
        _ = u.verified(hex(id), at: try #require(second), false)
        let none = u.untriedChannel(hex(id), now: 0)
        #expect(u.entries[hex(id)]?.failures == 1 && none == nil)
    }
}

extension DiscoveryBoundsTests {
    /// A job that stops its own pool (its end released the pool's owner,
    /// whose teardown stops the pool) does not wait for itself.
    @Test func stoppingThePoolFromItsOwnJobDoesNotWaitForThatJob() {
        let pool = WorkerPool(threads: 2, queueLimit: 4)
        let returned = Awaitable(false)
        #expect(pool.submit {
            pool.stop(waiting: .infinity)   // waiting for itself would never return
            returned.update { $0 = true }
        })
        #expect(returned.wait(until: { $0 }, seconds: 60) { _, ok in ok })
    }
}
