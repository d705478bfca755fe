// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// One pipe's state (PROTOCOL.md §11 "Pipes"): a reliable, ordered byte
/// stream each way over broker messages that may arrive twice or out of
/// order. Pure state driven by explicit `now` (seconds, any monotonic
/// clock): no thread, no socket, no broker, so every rule can be tested
/// and fuzzed. The caller feeds it frames (`receive`), the channel's bytes
/// (`write`, `read`, `close`), and publishes what `poll` returns, calling
/// it again at `nextDeadline` and after each batch of arrivals. Not
/// thread-safe: one owner.
public struct RelayPipe {
    public enum Role: Sendable { case opener, acceptor }

    public enum Phase: Sendable, Equatable {
        /// This side's OPEN is out; the other side's not delivered yet.
        case opening
        case open
        /// Both CLOSEs delivered and acknowledged: nothing more to do.
        case finished
        /// Ended by a RESET, sent (`byPeer` false) or received.
        case reset(RelayResetReason, byPeer: Bool)
    }

    /// What `receive` did with a frame.
    public enum Receipt: Sendable, Equatable {
        /// Delivered in order (with any held frames it released).
        case delivered
        /// Ahead of a gap: held until the gap fills.
        case held
        /// Already delivered (QoS 1 delivers at least once): ignored.
        case duplicate
        /// An ACK, a RESET, or a frame after the pipe ended: applied as such.
        case applied
        case dropped(RelayDropReason)
    }

    public let id: RelayPipeID
    public let role: Role
    public let limits: RelayPipeLimits
    public private(set) var phase: Phase = .opening
    /// Frames dropped by this pipe, by reason.
    public private(set) var drops: [RelayDropReason: Int] = [:]

    // Sending.
    private struct Sent { var frame: RelayPipeFrame; var sentAt: Double }
    private var nextSeq: UInt32 = 0
    private var unacked: [Sent] = []
    private var unackedBytes = 0
    /// The last `unsent` frames of `unacked` were never published.
    private var unsent = 0
    private var sendBuffer: [UInt8] = []
    private var closeRequested = false
    private var closeSeq: UInt32?
    private var peerAck: UInt32 = 0
    private var peerWindow: Int
    private var rto: Double
    private var retransmits = 0
    /// When the oldest unacknowledged frame goes again, or the next window probe.
    private var retransmitAt: Double?

    // Receiving.
    private var expected: UInt32 = 0
    private var held: [UInt32: RelayPipeFrame] = [:]
    private var heldBytes = 0
    private var delivered: [UInt8] = []
    private var deliveredStart = 0
    private var peerOpened = false
    private var peerClosed = false
    private var ackDue = false
    private var answerDue = false
    private var advertisedWindow: Int
    private var lastHeard: Double
    private var keepaliveSentAt: Double?
    private var bucket: TokenBucket
    private var outbox: [RelayPipeFrame] = []

    public init(id: RelayPipeID, role: Role, limits: RelayPipeLimits = RelayPipeLimits(), now: Double) {
        self.id = id
        self.role = role
        self.limits = limits
        peerWindow = limits.initialPeerWindow
        advertisedWindow = limits.window
        rto = limits.retransmitInitial
        lastHeard = now
        bucket = TokenBucket(rate: limits.framesPerSecond, burst: limits.frameBurst, now: now)
        queue(.open, payload: [], now: now)
    }

    // MARK: The channel's side

    /// Bytes delivered and not read yet.
    public var readable: Int { delivered.count - deliveredStart }
    /// The other side closed its stream and every byte of it has been read.
    public var atEnd: Bool { peerClosed && readable == 0 }
    public var isEnded: Bool {
        switch phase { case .finished, .reset: true; case .opening, .open: false }
    }
    /// How many more bytes `write` takes now (the send buffer is bounded
    /// by the window: a writer stops reading its source when this is 0).
    public var writable: Int {
        isEnded || closeRequested ? 0 : max(0, limits.window - sendBuffer.count)
    }

    /// Takes up to `writable` bytes from the front of `bytes`; returns how many.
    public mutating func write(_ bytes: some Collection<UInt8>) -> Int {
        let n = min(bytes.count, writable)
        sendBuffer += bytes.prefix(n)
        return n
    }

    /// Up to `max` delivered bytes, in order. Reading opens the window; a
    /// window that had fallen below half and is back to half or more is
    /// announced with an ACK at the next `poll`.
    public mutating func read(max: Int) -> [UInt8] {
        let n = min(max, readable)
        let out = Array(delivered[deliveredStart..<deliveredStart + n])
        deliveredStart += n
        if deliveredStart == delivered.count || deliveredStart >= limits.window {
            delivered.removeFirst(deliveredStart)
            deliveredStart = 0
        }
        if advertisedWindow < limits.window / 2 && freeWindow >= limits.window / 2 { ackDue = true }
        return out
    }

    /// No more bytes from this side: CLOSE follows the buffered ones.
    public mutating func close() { closeRequested = true }

    /// Ends the pipe now; the RESET goes out at the next `poll`.
    public mutating func reset(_ reason: RelayResetReason) {
        guard !isEnded else { return }
        outbox = [RelayPipeFrame.reset(pipe: id, seq: nextSeq, ack: expected, window: 0, reason: reason)]
        end(.reset(reason, byPeer: false))
    }

    // MARK: Frames from the other side

    /// Applies one frame of this pipe (its topic's pipe ID already checked
    /// by the decoder, and checked again here).
    public mutating func receive(_ frame: RelayPipeFrame, now: Double) -> Receipt {
        guard frame.pipe == id else { return drop(.malformed) }
        guard bucket.take(now: now) else { return drop(.overRate) }
        guard !isEnded else { return .applied }
        // An ack of frames never published: not the other side's (never fatal).
        guard frame.ack <= nextSeq - UInt32(unsent) else { return drop(.outOfWindow) }
        if frame.kind.isSequenced {
            // Frames that cannot happen: dropped, not fatal, so a blind
            // injection cannot end the pipe.
            let impossible = (frame.kind == .open) != (frame.seq == 0) || (peerClosed && frame.seq >= expected)
            if impossible { return drop(.malformed) }
            if frame.seq >= expected {
                let ahead = frame.seq - expected
                let fits = heldBytes + readable + frame.payload.count <= limits.window
                if ahead >= UInt32(limits.maxFramesInFlight) || !fits { return drop(.outOfWindow) }
            }
        }
        lastHeard = now
        if frame.answer { answerDue = true }
        applyAck(frame, now: now)
        switch frame.kind {
        case .reset:
            end(.reset(frame.resetReason ?? .protocolError, byPeer: true))
            return .applied
        case .ack:
            finishIfDone()
            return .applied
        case .open, .data, .close:
            if frame.seq < expected { return .duplicate }
            if frame.seq > expected {
                if held[frame.seq] == nil {
                    held[frame.seq] = frame
                    heldBytes += frame.payload.count
                }
                return .held
            }
            deliver(frame)
            while let next = held.removeValue(forKey: expected) {
                heldBytes -= next.payload.count
                deliver(next)
            }
            ackDue = true
            finishIfDone()
            return .delivered
        }
    }

    // MARK: Time and output

    /// The frames to publish now, in order: a RESET when the pipe has just
    /// ended; otherwise retransmissions that are due, new frames within the
    /// window, and an ACK when one is due and no other frame carries it.
    public mutating func poll(now: Double) -> [RelayPipeFrame] {
        var out = outbox
        outbox = []
        guard !isEnded else { return out }
        if now - lastHeard >= limits.idle {
            reset(.idle)
            return out + outbox.drain()
        }
        if let at = retransmitAt, now >= at {
            if !unacked.isEmpty {
                if retransmits >= limits.maxRetransmits {
                    // Only our CLOSE left and theirs delivered: the last ACK was lost; we are done.
                    if peerClosed, unacked.count == 1, unacked[0].frame.kind == .close {
                        end(.finished)
                        return out
                    }
                    reset(.unreachable)
                    return out + outbox.drain()
                }
                retransmits += 1
                for i in unacked.indices {
                    unacked[i].sentAt = now
                    out.append(stamped(unacked[i].frame, answer: true))
                }
                unsent = 0
                ackDue = false
                answerDue = false
            } else {
                out.append(stamped(ackFrame(), answer: true))  // a window probe
            }
            rto = min(rto * 2, limits.retransmitMax)
            retransmitAt = now + rto
        }
        // New frames within the other side's window and the frame limit.
        while unacked.count < limits.maxFramesInFlight {
            let room = min(peerWindow, limits.window) - unackedBytes
            if !sendBuffer.isEmpty {
                guard room > 0 else { break }
                let n = min(room, RelayPipeFrame.maxPayload, sendBuffer.count)
                let payload = Array(sendBuffer.prefix(n))
                sendBuffer.removeFirst(n)
                guard queue(.data, payload: payload, now: now) else { return out + outbox.drain() }
            } else if closeRequested && closeSeq == nil {
                guard queue(.close, payload: [], now: now) else { return out + outbox.drain() }
            } else {
                break
            }
        }
        if unsent > 0 {
            out += unacked.suffix(unsent).map { stamped($0.frame, answer: false) }
            unsent = 0
            ackDue = false
            answerDue = false
        }
        if ackDue || answerDue {
            out.append(stamped(ackFrame(), answer: false))
            ackDue = false
            answerDue = false
        }
        // Blocked by the other side's window with nothing in flight: probe.
        if unacked.isEmpty, !sendBuffer.isEmpty, retransmitAt == nil { retransmitAt = now + rto }
        // Keepalive: nothing heard for a while on an open pipe.
        let keepaliveAt = max(lastHeard, keepaliveSentAt ?? lastHeard) + limits.keepalive
        if now >= keepaliveAt {
            out.append(stamped(ackFrame(), answer: true))
            keepaliveSentAt = now
        }
        if !out.isEmpty { advertisedWindow = freeWindow }
        return out
    }

    /// When `poll` has something to do next without any arrival: a
    /// retransmission or probe, a keepalive, the idle limit. nil once ended.
    public var nextDeadline: Double? {
        guard !isEnded else { return nil }
        let keepaliveAt = max(lastHeard, keepaliveSentAt ?? lastHeard) + limits.keepalive
        return [retransmitAt, keepaliveAt, lastHeard + limits.idle].compactMap { $0 }.min()
    }

    // MARK: Internals

    private var freeWindow: Int { max(0, limits.window - readable - heldBytes) }

    private func ackFrame() -> RelayPipeFrame {
        RelayPipeFrame(kind: .ack, pipe: id, seq: nextSeq, ack: expected, window: UInt32(freeWindow))
    }

    /// A frame as it goes out now: the current ack and window.
    private func stamped(_ frame: RelayPipeFrame, answer: Bool) -> RelayPipeFrame {
        var f = frame
        f.ack = expected
        f.window = UInt32(freeWindow)
        f.answer = answer
        return f
    }

    /// Numbers a frame and keeps it until acknowledged. False (and the pipe
    /// reset) when the numbers would wrap.
    @discardableResult
    private mutating func queue(_ kind: RelayPipeFrame.Kind, payload: [UInt8], now: Double) -> Bool {
        guard nextSeq < UInt32.max else {
            reset(.protocolError)
            return false
        }
        let frame = RelayPipeFrame(kind: kind, pipe: id, seq: nextSeq, ack: expected, window: 0, payload: payload)
        if kind == .close { closeSeq = nextSeq }
        nextSeq += 1
        unacked.append(Sent(frame: frame, sentAt: now))
        unackedBytes += payload.count
        unsent += 1
        if retransmitAt == nil || unacked.count == 1 { retransmitAt = now + rto }
        return true
    }

    private mutating func applyAck(_ frame: RelayPipeFrame, now: Double) {
        guard frame.ack >= peerAck else { return }  // an older frame arriving late
        peerWindow = Int(frame.window)
        guard frame.ack > peerAck else {
            // No progress, but the window may have opened: send at the next poll.
            if unacked.isEmpty && !sendBuffer.isEmpty && peerWindow > 0 { retransmitAt = nil }
            return
        }
        peerAck = frame.ack
        while let first = unacked.first, first.frame.seq < peerAck {
            unackedBytes -= first.frame.payload.count
            unacked.removeFirst()
        }
        rto = limits.retransmitInitial
        retransmits = 0
        retransmitAt = unacked.isEmpty ? nil : now + rto
    }

    private mutating func deliver(_ frame: RelayPipeFrame) {
        expected += 1
        switch frame.kind {
        case .open:
            peerOpened = true
            if phase == .opening { phase = .open }
        case .data:
            delivered += frame.payload
        case .close:
            peerClosed = true
        case .ack, .reset:
            break
        }
    }

    private mutating func finishIfDone() {
        guard peerClosed, let closeSeq, peerAck > closeSeq else { return }
        // Their CLOSE is acknowledged by the ACK the caller's next poll sends.
        if ackDue || answerDue { outbox.append(stamped(ackFrame(), answer: false)) }
        end(.finished)
    }

    private mutating func end(_ final: Phase) {
        phase = final
        unacked = []
        unackedBytes = 0
        unsent = 0
        sendBuffer = []
        held = [:]
        heldBytes = 0
        retransmitAt = nil
    }

    private mutating func drop(_ reason: RelayDropReason) -> Receipt {
        drops[reason, default: 0] += 1
        return .dropped(reason)
    }
}

extension Array {
    /// Empties the array, returning what it held.
    fileprivate mutating func drain() -> [Element] {
        defer { self = [] }
        return self
    }
}
