// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay
import Testing

/// The pipe's rules (PROTOCOL.md §11 "Pipes"), each on two real
/// `RelayPipe`s whose frames go through the codec, with time explicit.
@Suite struct RelayPipeTests {
    typealias H = RelayPipeHarness

    static func pattern(_ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) } }

    @Test func bothSidesOpenWithAnOpenNumberedZero() {
        var h = H()
        h.pollBoth()
        #expect(h.toAcceptor.map(\.kind) == [.open])
        #expect(h.toAcceptor[0].seq == 0)
        h.settle()
        #expect(h.opener.phase == .open && h.acceptor.phase == .open)
    }

    @Test func bytesArriveInOrderBothWaysThroughManyWindows() {
        var h = H()
        let data = Self.pattern(300_000)
        #expect(h.transfer(data) == data)
        let back = Self.pattern(70_000).reversed().map { $0 }
        var offset = 0, received: [UInt8] = []
        for _ in 0..<1000 where received.count < back.count {
            offset += h.acceptor.write(back[offset...])
            h.pollBoth()
            h.deliver()
            received += h.opener.read(max: 1 << 20)
        }
        #expect(received == back)
        #expect(h.publishedByOpener.allSatisfy { $0.payload.count <= RelayPipeFrame.maxPayload })
    }

    @Test func framesArrivingOutOfOrderAreHeldThenDelivered() {
        var h = H()
        h.settle()
        _ = h.opener.write(Self.pattern(40_000))  // three DATA frames
        h.pollBoth()
        let frames = h.toAcceptor
        h.toAcceptor = []
        #expect(frames.filter { $0.kind == .data }.count == 3)
        let receipts = frames.reversed().map { h.acceptor.receive($0, now: h.now) }
        #expect(receipts == [.held, .held, .delivered])
        #expect(h.acceptor.read(max: 1 << 20) == Self.pattern(40_000))
    }

    @Test func duplicatesAreIgnored() {
        var h = H()
        h.settle()
        _ = h.opener.write(Self.pattern(20_000))
        h.pollBoth()
        let frames = h.toAcceptor
        h.toAcceptor = frames + frames
        let (receipts, _) = h.deliver()
        #expect(receipts.filter { $0 == .duplicate }.count == frames.count)
        #expect(h.acceptor.read(max: 1 << 20) == Self.pattern(20_000))
        #expect(h.acceptor.drops.isEmpty)
    }

    @Test func aFullWindowStopsTheSenderUntilTheReaderReads() {
        var h = H()
        h.settle()
        let data = Self.pattern(200_000)
        var offset = 0
        for _ in 0..<50 {
            offset += h.opener.write(data[offset...])
            h.pollBoth()
            h.deliver()
        }
        // Nobody reads: the acceptor holds at most one window, the opener
        // buffers at most one more, and writes stop being taken.
        #expect(h.acceptor.readable == h.opener.limits.window)
        #expect(h.opener.writable == 0)
        #expect(offset == 2 * h.opener.limits.window)
        // Reading opens the window again (an ACK announces it) and the rest flows.
        var received = h.acceptor.read(max: 1 << 20)
        for _ in 0..<200 where received.count < data.count {
            offset += h.opener.write(data[offset...])
            h.pollBoth()
            h.deliver()
            received += h.acceptor.read(max: 1 << 20)
        }
        #expect(received == data)
    }

    @Test func aLostWindowUpdateIsRecoveredByAProbe() {
        var h = H()
        h.settle()
        let data = Self.pattern(100_000)
        var offset = 0
        for _ in 0..<20 {
            offset += h.opener.write(data[offset...])
            h.pollBoth()
            h.deliver()
        }
        var received = h.acceptor.read(max: 1 << 20)
        h.pollBoth()
        #expect(h.toOpener.contains { $0.kind == .ack && $0.window > 0 })
        h.toOpener = []  // the window update is lost
        // The opener, blocked with nothing in flight, probes on its timer.
        for _ in 0..<40 where received.count < data.count {
            h.now += 0.5
            offset += h.opener.write(data[offset...])
            h.pollBoth()
            h.deliver()
            received += h.acceptor.read(max: 1 << 20)
        }
        #expect(received == data)
        #expect(h.publishedByOpener.contains { $0.kind == .ack && $0.answer })
    }

    @Test func aLostFrameIsSentAgainWithAnswerThenTheGapFills() {
        var h = H()
        h.settle()
        _ = h.opener.write(Self.pattern(30_000))
        h.pollBoth()
        #expect(h.toAcceptor.count == 2)
        h.toAcceptor.removeFirst()  // the first DATA is lost
        h.deliver()
        #expect(h.acceptor.readable == 0)
        h.now = 1.0  // the retransmission timer
        h.pollBoth()
        let retransmitted = h.toAcceptor.filter { $0.kind == .data }
        #expect(!retransmitted.isEmpty && retransmitted.allSatisfy { $0.answer })
        h.deliver()
        h.settle()
        #expect(h.acceptor.read(max: 1 << 20) == Self.pattern(30_000))
    }

    @Test func retransmissionsWithoutProgressResetThePipe() {
        var h = H()
        h.pollBoth()
        h.toAcceptor = []  // the acceptor never hears anything
        var sent = 0, reset: RelayPipeFrame?
        for step in 1...40 {
            h.now = Double(step)
            let frames = h.opener.poll(now: h.now)
            sent += frames.filter { $0.kind == .open }.count
            if let r = frames.first(where: { $0.kind == .reset }) { reset = r; break }
        }
        #expect(sent == h.opener.limits.maxRetransmits)
        #expect(reset?.resetReason == .unreachable || reset?.resetReason == .idle)
        #expect(h.opener.isEnded && h.opener.nextDeadline == nil)
    }

    @Test func anIdlePipeSendsKeepalivesAndEndsWhenNothingAnswers() {
        var h = H()
        h.settle()
        // Both alive: keepalives are answered, the pipe lives on.
        for step in 1...12 {
            h.now = Double(step) * 5
            h.pollBoth()
            h.deliver()
        }
        #expect(h.opener.phase == .open && h.acceptor.phase == .open)
        #expect(h.publishedByOpener.contains { $0.kind == .ack && $0.answer })
        // The acceptor vanishes: within the idle limit the opener resets.
        let gone = h.now
        var reset: RelayPipeFrame?
        var t = gone
        while reset == nil, t < gone + 60 {
            t = h.opener.nextDeadline ?? t + 1
            reset = h.opener.poll(now: t).first { $0.kind == .reset }
        }
        #expect(reset?.resetReason == .idle)
        #expect(t - gone <= h.opener.limits.idle)
        #expect(h.opener.phase == .reset(.idle, byPeer: false))
    }

    @Test func aResetEndsBothSidesAndIsSentOnce() {
        var h = H()
        h.settle()
        h.opener.reset(.closed)
        h.pollBoth()
        #expect(h.toAcceptor.map(\.kind) == [.reset])
        h.deliver()
        #expect(h.acceptor.phase == .reset(.closed, byPeer: true))
        #expect(h.opener.poll(now: 1).isEmpty && h.acceptor.poll(now: 1).isEmpty)
        #expect(h.acceptor.write([1, 2, 3]) == 0)
    }

    @Test func closingBothWaysFinishesBothSides() {
        var h = H()
        h.settle()
        let data = Self.pattern(5000)
        _ = h.opener.write(data)
        h.opener.close()
        h.settle()
        #expect(h.acceptor.read(max: 1 << 20) == data)
        #expect(h.acceptor.atEnd)
        #expect(h.opener.phase == .open)  // the acceptor has not closed yet
        h.acceptor.close()
        h.settle()
        #expect(h.opener.phase == .finished && h.acceptor.phase == .finished)
        #expect(h.opener.atEnd)
    }

    @Test func aSecondTenantsFramesAreDroppedAndChangeNothing() {
        var h = H()
        h.settle()
        let id = H.pipeID
        let forged: [(RelayPipeFrame, RelayDropReason)] = [
            // Another pipe's ID on our topic.
            (RelayPipeFrame(kind: .data, pipe: RelayPipeID(bytes: Array(repeating: 9, count: 16))!, seq: 1, ack: 1, window: 100, payload: [1]), .malformed),
            // Acknowledging frames never sent.
            (RelayPipeFrame(kind: .ack, pipe: id, seq: 1, ack: 1000, window: 100), .outOfWindow),
            // Far ahead of the window.
            (RelayPipeFrame(kind: .data, pipe: id, seq: 5000, ack: 1, window: 100, payload: [1]), .outOfWindow),
            // An OPEN numbered above 0, DATA numbered 0.
            (RelayPipeFrame(kind: .open, pipe: id, seq: 7, ack: 1, window: 100), .malformed),
            (RelayPipeFrame(kind: .data, pipe: id, seq: 0, ack: 1, window: 100, payload: [1]), .malformed),
        ]
        for (frame, reason) in forged {
            #expect(h.acceptor.receive(frame, now: h.now) == .dropped(reason))
        }
        #expect(h.acceptor.drops.values.reduce(0, +) == forged.count)
        #expect(h.acceptor.phase == .open && h.acceptor.readable == 0)
        // The genuine stream still flows.
        #expect(h.transfer(Self.pattern(50_000)) == Self.pattern(50_000))
    }

    @Test func aFloodOfFramesIsCutByTheRate() {
        var h = H()
        h.settle()
        let ack = RelayPipeFrame(kind: .ack, pipe: H.pipeID, seq: 1, ack: 1, window: 65536)
        let receipts = (0..<1000).map { _ in h.acceptor.receive(ack, now: h.now) }
        let dropped = receipts.filter { $0 == .dropped(.overRate) }.count
        #expect(dropped >= 1000 - Int(h.acceptor.limits.frameBurst) - 1)
        #expect(h.acceptor.phase == .open)
    }

    @Test func anOversizedWriteIsCutIntoFramesOfAtMostTheLimit() {
        var h = H()
        h.settle()
        _ = h.opener.write(Self.pattern(65_536))
        h.pollBoth()
        let data = h.toAcceptor.filter { $0.kind == .data }
        #expect(data.count == 4)
        #expect(data.allSatisfy { $0.encoded().count <= RelayPipeFrame.maxMessageSize })
        #expect(data.count <= h.opener.limits.maxFramesInFlight)
    }

    @Test func deadlinesAreRealAndEndWithThePipe() {
        var h = H()
        #expect(h.opener.nextDeadline == 1.0)  // the OPEN's retransmission
        h.settle()
        #expect(h.opener.nextDeadline == h.opener.limits.keepalive)
        h.opener.reset(.closed)
        #expect(h.opener.nextDeadline == nil)
    }
}
