// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffTestSupport
import Testing

/// A device's pipes (PROTOCOL.md §11 "Pipes", "Limits"): routing by topic,
/// the limits on pipes, refusals at a bounded rate, and nothing published
/// for what another tenant writes under our topics.
@Suite struct RelayPipeTableTests {
    static let key = AccountFixtures.sequentialKey
    static let a: [UInt8] = Array(0xA0...0xAF)
    static let b: [UInt8] = Array(0xB0...0xBF)
    static let topics = RelayTopics(accountKey: key)

    /// Two tables joined by a broker in memory: each published frame goes
    /// through its topic's name and the codec.
    struct Pair {
        var a = RelayPipeTable(account: key, ownDeviceID: RelayPipeTableTests.a, now: 0)
        var b = RelayPipeTable(account: key, ownDeviceID: RelayPipeTableTests.b, now: 0)
        var now = 0.0
        var arrivalsAtB: [RelayPipeTable.Arrival] = []

        mutating func exchange(rounds: Int = 50) {
            for _ in 0..<rounds {
                let fromA = a.poll(now: now).map { (a.topic(for: $0.0), $0.1.encoded()) }
                let fromB = b.poll(now: now).map { (b.topic(for: $0.0), $0.1.encoded()) }
                if fromA.isEmpty && fromB.isEmpty { return }
                for (topic, bytes) in fromA { arrivalsAtB.append(b.receive(bytes, topic: topics.parse(topic)!, now: now)) }
                for (topic, bytes) in fromB { _ = a.receive(bytes, topic: topics.parse(topic)!, now: now) }
            }
        }
    }

    static func open(_ pipe: RelayPipeID, from: [UInt8]) -> (RelayTopic, [UInt8]) {
        let topic = topics.parse(topics.pipeTopic(to: topics.deviceTag(b), from: topics.deviceTag(from), pipe: pipe))!
        return (topic, RelayPipeFrame(kind: .open, pipe: pipe, seq: 0, ack: 0, window: 65536).encoded())
    }

    @Test func aPipeCarriesBytesBetweenTwoDevicesAndIsForgottenWhenDone() throws {
        var p = Pair()
        let key = try p.a.open(to: Self.topics.deviceTag(Self.b), now: 0)
        _ = p.a.withPipe(key) { $0.write(Array("hello through the broker".utf8)) }
        p.a.withPipe(key) { $0.close() }
        p.exchange()
        guard case .accepted(let accepted) = p.arrivalsAtB.first else {
            Issue.record("b did not accept the pipe: \(p.arrivalsAtB)")
            return
        }
        #expect(accepted.peer == Self.topics.deviceTag(Self.a) && accepted.pipe == key.pipe)
        #expect(p.b.withPipe(accepted) { $0.read(max: 100) } == Array("hello through the broker".utf8))
        p.b.withPipe(accepted) { $0.close() }
        p.exchange()
        #expect(p.a.pipes.isEmpty && p.b.pipes.isEmpty)
        // A late duplicate of the OPEN does not start the pipe again.
        let (topic, open) = Self.open(key.pipe, from: Self.a)
        #expect(p.b.receive(open, topic: topic, now: 1) == .dropped(.unknownPipe))
        #expect(p.b.poll(now: 1).isEmpty)
    }

    @Test func pipesBeyondTheLimitsAreRefusedAtABoundedRate() {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.b, now: 0)
        let perPeer = table.limits.maxPerPeer
        var arrivals: [RelayPipeTable.Arrival] = []
        for _ in 0..<(perPeer + 1) {
            let (topic, open) = Self.open(.random(), from: Self.a)
            arrivals.append(table.receive(open, topic: topic, now: 0))
        }
        #expect(arrivals.prefix(perPeer).allSatisfy { if case .accepted = $0 { true } else { false } })
        guard case .refused(let refused) = arrivals.last else {
            Issue.record("the pipe over the per-device limit was not refused")
            return
        }
        let out = table.poll(now: 0)
        #expect(out.filter { $0.1.kind == .reset }.map(\.0) == [refused])
        #expect(out.first { $0.1.kind == .reset }?.1.resetReason == .refused)
        // Other devices fill the table to its total.
        var device: UInt8 = 0
        while table.pipes.count < table.limits.maxPipes {
            device += 1
            let (topic, open) = Self.open(.random(), from: Array(repeating: device, count: 16))
            _ = table.receive(open, topic: topic, now: 0)
        }
        // A flood of OPENs: refused, but at most the refusal burst answered.
        for i in 0..<100 {
            let (topic, open) = Self.open(.random(), from: Array(repeating: 0x80 | UInt8(i % 64), count: 16))
            _ = table.receive(open, topic: topic, now: 0)
        }
        let resets = table.poll(now: 0).filter { $0.1.kind == .reset }
        #expect(resets.count <= Int(table.limits.refusalBurst))
        #expect(table.pipes.count == table.limits.maxPipes)
        #expect(table.drops[.overRate, default: 0] >= 100 - Int(table.limits.refusalBurst))
    }

    @Test func anotherTenantsMessagesAreDroppedCountedAndAnsweredAtMostAtTheRefusalRate() {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.b, now: 0)
        let pipe = RelayPipeID.random()
        let toB = Self.topics.parse(Self.topics.pipeTopic(to: Self.topics.deviceTag(Self.b), from: Self.topics.deviceTag(Self.a), pipe: pipe))!
        let toA = Self.topics.parse(Self.topics.pipeTopic(to: Self.topics.deviceTag(Self.a), from: Self.topics.deviceTag(Self.b), pipe: pipe))!
        let data = RelayPipeFrame(kind: .data, pipe: pipe, seq: 1, ack: 0, window: 10, payload: [1, 2, 3]).encoded()
        #expect(table.receive(data, topic: toB, now: 0) == .dropped(.unknownPipe))
        #expect(table.receive(data, topic: toA, now: 0) == .dropped(.topicMismatch))
        #expect(table.receive(data, topic: .device(tag: Self.topics.deviceTag(Self.a)), now: 0) == .dropped(.topicMismatch))
        #expect(table.receive(Array(repeating: 1, count: RelayPipeFrame.maxMessageSize + 1), topic: toB, now: 0) == .dropped(.oversized))
        #expect(table.receive([1, 2, 3], topic: toB, now: 0) == .dropped(.malformed))
        let otherPipe = RelayPipeFrame(kind: .open, pipe: .random(), seq: 0, ack: 0, window: 10).encoded()
        #expect(table.receive(otherPipe, topic: toB, now: 0) == .dropped(.malformed))
        #expect(table.pipes.isEmpty)
        // The frame of an unknown pipe is answered with a RESET (a forgotten
        // pipe's other side learns it); nothing else is answered.
        let answers = table.poll(now: 0)
        #expect(answers.count == 1 && answers[0].1.kind == .reset && answers[0].0.pipe == pipe && answers[0].1.ack == 1)
        #expect(table.drops.values.reduce(0, +) == 6)
        // A flood of them: answered at the refusals' rate at most; a RESET never.
        for _ in 0..<100 { _ = table.receive(data, topic: toB, now: 1) }
        let reset = RelayPipeFrame.reset(pipe: pipe, seq: 2, ack: 0, window: 0, reason: .closed).encoded()
        _ = table.receive(reset, topic: toB, now: 5)
        let flood = table.poll(now: 5)
        #expect(flood.count <= Int(table.limits.refusalBurst) + 1)
    }

    /// A pipe "from" this device to itself (a tenant naming our own tag)
    /// would answer itself for ever: dropped, and none can be opened.
    @Test func aPipeFromThisDeviceToItselfIsNeverKept() {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.b, now: 0)
        let own = Self.topics.deviceTag(Self.b)
        let pipe = RelayPipeID.random()
        let toSelf = Self.topics.parse(Self.topics.pipeTopic(to: own, from: own, pipe: pipe))!
        let frame = RelayPipeFrame(kind: .open, pipe: pipe, seq: 0, ack: 0, window: 10).encoded()
        #expect(table.receive(frame, topic: toSelf, now: 0) == .dropped(.topicMismatch))
        #expect(table.pipes.isEmpty && table.poll(now: 0).isEmpty)
        #expect(throws: HandoffError.self) { try table.open(to: own, now: 0) }
    }

    @Test func anEndedPipeLeftUnreadIsForgottenWithinTheIdleLimit() throws {
        var p = Pair()
        let key = try p.a.open(to: Self.topics.deviceTag(Self.b), now: 0)
        _ = p.a.withPipe(key) { $0.write(Array("never read".utf8)) }
        p.a.withPipe(key) { $0.close() }
        p.exchange()
        guard case .accepted(let accepted) = p.arrivalsAtB.first else {
            Issue.record("b did not accept the pipe")
            return
        }
        p.b.withPipe(accepted) { $0.close() }
        p.exchange()
        // Finished both ways, but b's channel never read the bytes.
        #expect(p.b.pipes[accepted]?.phase == .finished)
        #expect(p.a.takeForgotten() == [key])
        let deadline = try #require(p.b.nextDeadline)
        #expect(deadline <= p.now + p.b.limits.pipe.idle)
        _ = p.b.poll(now: deadline)
        #expect(p.b.pipes.isEmpty)
        #expect(p.b.takeForgotten() == [accepted])
        #expect(p.b.nextDeadline == nil)
    }

    @Test func aGenuinePeerIsDelayedNeverRefused_unprovenPipesAreShed() {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.b, now: 0)
        // A tenant fills the table with OPENs from made-up device tags.
        var fakes: [RelayPipeTable.Key] = []
        for i in 0..<table.limits.maxPipes {
            let (topic, open) = Self.open(.random(), from: Array(repeating: UInt8(i), count: 16))
            if case .accepted(let key) = table.receive(open, topic: topic, now: 0) { fakes.append(key) }
        }
        #expect(fakes.count == table.limits.maxPipes)
        // One of them proves the key (its TLS handshake completed): kept.
        table.markAuthenticated(fakes[0])
        // Within the grace period a newcomer is refused; after it, the
        // oldest unproven pipe is reset and the newcomer takes its place.
        let (early, earlyOpen) = Self.open(.random(), from: Self.a)
        guard case .refused = table.receive(earlyOpen, topic: early, now: 0.1) else {
            Issue.record("a pipe within its grace period was shed")
            return
        }
        _ = table.poll(now: 0.1)
        var shed: [RelayPipeTable.Key] = []
        for _ in 0..<(table.limits.maxPipes + 3) {
            let (topic, open) = Self.open(.random(), from: Self.a)
            switch table.receive(open, topic: topic, now: 1) {
            case .acceptedShedding(_, let victim): shed.append(victim)
            case .refused: break
            default: Issue.record("an OPEN over the limits was neither shed for nor refused")
            }
        }
        // The genuine peer may hold its share (4): it shed 4 unproven pipes,
        // then its own unproven ones; the proven pipe was never shed.
        #expect(!shed.contains(fakes[0]))
        #expect(table.pipes[fakes[0]] != nil)
        #expect(Set(shed.prefix(table.limits.maxPerPeer)).isSubset(of: Set(fakes)))
        #expect(table.pipes.keys.filter { $0.peer == Self.topics.deviceTag(Self.a) }.count == table.limits.maxPerPeer)
        #expect(table.pipes.count == table.limits.maxPipes)
        let resets = table.poll(now: 1).filter { $0.1.kind == .reset }
        #expect(Set(resets.map(\.0)).isSuperset(of: Set(shed)))
        #expect(resets.allSatisfy { $0.1.resetReason == .refused })
        #expect(Set(table.takeForgotten()).isSuperset(of: Set(shed)))
    }

    /// Made-up OPENs fill every slot: this device still opens its own
    /// pipe, in the place of the oldest unproven one (reset, forgotten).
    @Test func openingShedsAnUnprovenAcceptedPipe() throws {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.b, now: 0)
        var accepted: [RelayPipeTable.Key] = []
        for i in 0..<table.limits.maxPipes {
            let (topic, open) = Self.open(.random(), from: Array(repeating: UInt8(0x40 + i), count: 16))
            if case .accepted(let key) = table.receive(open, topic: topic, now: 0) { accepted.append(key) }
        }
        #expect(accepted.count == table.limits.maxPipes)
        // Within the grace period nothing is shed: a clear error.
        #expect(throws: HandoffError.self) { try table.open(to: Self.topics.deviceTag(Self.a), now: 0.1) }
        let mine = try table.open(to: Self.topics.deviceTag(Self.a), now: 1)
        #expect(table.pipes[mine] != nil && table.pipes.count == table.limits.maxPipes)
        let shed = table.takeForgotten()
        #expect(shed.count == 1 && accepted.contains(shed[0]))
        #expect(table.poll(now: 1).contains { $0.0 == shed[0] && $0.1.resetReason == .refused })
        // A proven pipe is never shed.
        for key in accepted where key != shed[0] { table.markAuthenticated(key) }
        #expect(throws: HandoffError.self) { try table.open(to: Self.topics.deviceTag(Array(repeating: 9, count: 16)), now: 2) }
    }

    /// A device that went away (its Will): its pipes are reset at once and
    /// forgotten, so a restarted device is reachable at once; others stay.
    @Test func theGoneDevicesPipesAreResetAndFreeItsShare() throws {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.a, now: 0)
        let gone = Self.topics.deviceTag(Self.b), other = Self.topics.deviceTag(Array(repeating: 9, count: 16))
        for _ in 0..<table.limits.maxPerPeer { _ = try table.open(to: gone, now: 0) }
        let kept = try table.open(to: other, now: 0)
        #expect(throws: HandoffError.self) { try table.open(to: gone, now: 0) }
        #expect(table.resetAll(peer: gone) == table.limits.maxPerPeer)
        let frames = table.poll(now: 0.1)
        #expect(frames.filter { $0.1.kind == .reset }.count == table.limits.maxPerPeer)
        #expect(table.takeForgotten().count == table.limits.maxPerPeer)
        #expect(Array(table.pipes.keys) == [kept])
        _ = try table.open(to: gone, now: 0.2)
    }

    @Test func openingBeyondTheLimitsIsAClearError() throws {
        var table = RelayPipeTable(account: Self.key, ownDeviceID: Self.a, now: 0)
        let peer = Self.topics.deviceTag(Self.b)
        for _ in 0..<table.limits.maxPerPeer { _ = try table.open(to: peer, now: 0) }
        #expect(throws: HandoffError.self) { try table.open(to: peer, now: 0) }
        #expect(table.pipes.count == table.limits.maxPerPeer)
    }
}
