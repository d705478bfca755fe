// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// The pipes one device takes part in (PROTOCOL.md §11 "Pipes",
/// "Limits"): routes each message of its pipe topics to its pipe, accepts
/// new pipes within the limits, refuses the others (with a rate-limited
/// RESET), and drops and counts everything else. Pure state driven by
/// explicit `now`, like `RelayPipe`; the caller owns the broker and
/// publishes what `poll` returns on `topic(for:)`. Not thread-safe.
public struct RelayPipeTable {
    /// A pipe: the other device's tag and the pipe ID.
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public let peer: String
        public let pipe: RelayPipeID
        public var description: String { "\(peer.prefix(8))…/\(pipe.hex.prefix(8))…" }
    }

    public struct Limits: Sendable, Equatable {
        /// Pipes at once, opened and accepted.
        public var maxPipes = 32
        /// Pipes at once with one other device tag (both directions: each
        /// side's pooled connection, streams).
        public var maxPerPeer = 8
        /// RESET `refused` answers a second (burst), beyond which refusals are silent.
        public var refusalsPerSecond = 4.0
        public var refusalBurst = 4.0
        /// Ended pipes remembered, so a late duplicate OPEN does not start one again.
        public var rememberedEnded = 64
        /// An accepted pipe younger than this is never shed for a newcomer
        /// (time for a genuine TLS handshake to begin, as the channel's 0.2 s).
        public var shedGrace = 0.2
        public var pipe = RelayPipeLimits()
        public init() {}
    }

    /// What `receive` did with a message.
    public enum Arrival: Sendable, Equatable {
        /// A frame of a known pipe.
        case frame(Key, RelayPipe.Receipt)
        /// A new pipe from another device: hand it to the channel's server side.
        case accepted(Key)
        /// An OPEN over the limits: refused (a RESET is due, unless over its rate).
        case refused(Key)
        /// An OPEN over the limits, accepted in the place of an accepted pipe
        /// not authenticated yet (`shed`), which was reset.
        case acceptedShedding(Key, shed: Key)
        case dropped(RelayDropReason)
    }

    public let topics: RelayTopics
    public let ownTag: String
    public let limits: Limits
    public private(set) var pipes: [Key: RelayPipe] = [:]
    /// Messages dropped, by reason (the pipes' own drops included).
    public private(set) var drops: [RelayDropReason: Int] = [:]
    private var refusals: [(Key, RelayPipeFrame)] = []
    private var refusalBucket: TokenBucket
    /// RESET answers to frames of unknown pipes: a bucket of their own, so
    /// a flood of those cannot stop refusals, nor the other way round.
    private var forgottenBucket: TokenBucket
    private var ended: [Key] = []
    /// When each ended pipe ended, while the channel may still read it.
    private var endedAt: [Key: Double] = [:]
    private var forgotten: [Key] = []
    /// Accepted pipes, when they were accepted, until authenticated.
    private var unproven: [Key: Double] = [:]

    public init(account: AccountKey, ownDeviceID: [UInt8], limits: Limits = Limits(), now: Double) {
        topics = RelayTopics(accountKey: account)
        ownTag = topics.deviceTag(ownDeviceID)
        self.limits = limits
        refusalBucket = TokenBucket(rate: limits.refusalsPerSecond, burst: limits.refusalBurst, now: now)
        forgottenBucket = TokenBucket(rate: limits.refusalsPerSecond, burst: limits.refusalBurst, now: now)
    }

    /// The topic `key`'s frames from this device go to.
    public func topic(for key: Key) -> String { topics.pipeTopic(to: key.peer, from: ownTag, pipe: key.pipe) }

    /// Opens a pipe to the device of `peer` (its tag); its OPEN goes out at
    /// the next `poll`. At the limits it takes the place of an accepted
    /// pipe nobody has proven the key on, as an OPEN from another device
    /// would (made-up OPENs cannot stop this device from reaching its
    /// own); throws `.connectionUnavailable` when there is none,
    /// `.invalidArgument` for this device's own tag (a pipe to itself).
    public mutating func open(to peer: String, now: Double) throws(HandoffError) -> Key {
        guard peer != ownTag else { throw HandoffError(.invalidArgument, "a relay pipe goes to another device, not this one") }
        do {
            try checkRoom(peer)
        } catch {
            guard let victim = shedCandidate(for: peer, now: now) else { throw error }
            self.shed(victim, now: now)
        }
        let key = Key(peer: peer, pipe: .random())
        pipes[key] = RelayPipe(id: key.pipe, role: .opener, limits: limits.pipe, now: now)
        return key
    }

    /// Runs `body` on a pipe (to write, read or close it); nil when unknown.
    public mutating func withPipe<R>(_ key: Key, _ body: (inout RelayPipe) -> R) -> R? {
        guard var pipe = pipes[key] else { return nil }
        defer { pipes[key] = pipe }
        return body(&pipe)
    }

    /// A message that arrived on one of this account's pipe topics.
    public mutating func receive(_ message: [UInt8], topic: RelayTopic, now: Double) -> Arrival {
        // A pipe "from" this device to itself would answer itself for ever.
        guard case .pipe(let to, let from, let pipeID) = topic, to == ownTag, from != ownTag else { return drop(.topicMismatch) }
        let frame: RelayPipeFrame
        switch RelayPipeFrame.decode(message, expectedPipe: pipeID) {
        case .success(let f): frame = f
        case .failure(let reason): return drop(reason)
        }
        let key = Key(peer: from, pipe: pipeID)
        if var pipe = pipes[key] {
            let receipt = pipe.receive(frame, now: now)
            pipes[key] = pipe
            if case .dropped(let reason) = receipt { drops[reason, default: 0] += 1 }
            return .frame(key, receipt)
        }
        guard frame.kind == .open, frame.seq == 0, !ended.contains(key) else {
            // A pipe this side forgot (reset while its RESET was lost, e.g.
            // across a broker outage) is told so, or the other side would
            // wait on it until its retransmissions run out; within the
            // refusals' rate; never for a RESET (no answer loops) nor a
            // late duplicate OPEN of a pipe that ended.
            if frame.kind != .reset, frame.kind != .open, forgottenBucket.take(now: now) {
                refusals.append((key, .reset(pipe: pipeID, seq: 0, ack: frame.seq, window: 0, reason: .closed)))
            }
            return drop(.unknownPipe)
        }
        var shed: Key?
        do {
            try checkRoom(from)
        } catch {
            // Full: make room by shedding an accepted pipe nobody has proven
            // the key on (PROTOCOL §11 "Limits": a genuine peer is delayed, never refused).
            shed = shedCandidate(for: from, now: now)
            guard let victim = shed else {
                if refusalBucket.take(now: now) {
                    refusals.append((key, .reset(pipe: pipeID, seq: 0, ack: 1, window: 0, reason: .refused)))
                } else {
                    drops[.overRate, default: 0] += 1
                }
                remember(key)
                return .refused(key)
            }
            self.shed(victim, now: now)
        }
        var pipe = RelayPipe(id: pipeID, role: .acceptor, limits: limits.pipe, now: now)
        _ = pipe.receive(frame, now: now)
        pipes[key] = pipe
        unproven[key] = now
        return shed.map { .acceptedShedding(key, shed: $0) } ?? .accepted(key)
    }

    /// Resets every pipe with the device of `peer` (it went away: a gone
    /// message, a leaving presence): they are dead, and would hold its
    /// share of pipes until their own limits end them. Returns how many.
    @discardableResult
    public mutating func resetAll(peer: String) -> Int {
        let keys = pipes.keys.filter { $0.peer == peer && !pipes[$0]!.isEnded }
        for key in keys { pipes[key]!.reset(.closed) }
        return keys.count
    }

    /// Resets an unproven pipe to make room, and forgets it.
    private mutating func shed(_ victim: Key, now: Double) {
        var pipe = pipes.removeValue(forKey: victim)!
        pipe.reset(.refused)
        refusals += pipe.poll(now: now).map { (victim, $0) }
        unproven[victim] = nil
        endedAt[victim] = nil
        forgotten.append(victim)
        remember(victim)
    }

    /// The channel proved the account key over this pipe (its TLS handshake
    /// completed): it is never shed.
    public mutating func markAuthenticated(_ key: Key) {
        unproven[key] = nil
    }

    /// Which accepted, unproven pipe to shed for an OPEN from `peer`: one
    /// of that peer's own when it holds its share, else one of the peer
    /// holding the most; the oldest; never one within the grace period.
    private func shedCandidate(for peer: String, now: Double) -> Key? {
        let atPeerLimit = pipes.keys.filter { $0.peer == peer }.count >= limits.maxPerPeer
        let counts = Dictionary(grouping: pipes.keys, by: \.peer).mapValues(\.count)
        return unproven
            .filter { key, since in
                now - since >= limits.shedGrace && (!atPeerLimit || key.peer == peer) && pipes[key].map { !$0.isEnded } == true
            }
            .min { a, b in
                let (ca, cb) = (counts[a.key.peer] ?? 0, counts[b.key.peer] ?? 0)
                return ca != cb ? ca > cb : a.value < b.value
            }?.key
    }

    /// Every frame due now, with the pipe it belongs to; publish each on
    /// `topic(for:)`. A pipe that has ended is forgotten once its last
    /// frames are returned and the channel has read what it delivered (at
    /// once when it was reset; at most the idle limit later otherwise, so
    /// an unread pipe cannot hold a slot): see `takeForgotten`.
    public mutating func poll(now: Double) -> [(Key, RelayPipeFrame)] {
        var out = refusals
        refusals = []
        for key in pipes.keys.sorted(by: { $0.pipe.hex < $1.pipe.hex }) {
            out += pipes[key]!.poll(now: now).map { (key, $0) }
            guard pipes[key]!.isEnded else { continue }
            let since = endedAt[key] ?? now
            endedAt[key] = since
            var wasReset = false
            if case .reset = pipes[key]!.phase { wasReset = true }
            if wasReset || pipes[key]!.readable == 0 || now - since >= limits.pipe.idle {
                pipes[key] = nil
                endedAt[key] = nil
                unproven[key] = nil
                forgotten.append(key)
                remember(key)
            }
        }
        return out
    }

    /// The pipes forgotten since the last call: their owner closes what it
    /// kept for them (a `RelayStreamBridge`).
    public mutating func takeForgotten() -> [Key] {
        defer { forgotten = [] }
        return forgotten
    }

    /// The earliest deadline of any pipe (an ended one: when it is
    /// forgotten unread); nil with none.
    public var nextDeadline: Double? {
        (pipes.values.compactMap(\.nextDeadline) + endedAt.values.map { $0 + limits.pipe.idle }).min()
    }

    private func checkRoom(_ peer: String) throws(HandoffError) {
        guard pipes.count < limits.maxPipes else {
            throw HandoffError(.connectionUnavailable, "\(limits.maxPipes) relay pipes are open: wait for one to end")
        }
        guard pipes.keys.filter({ $0.peer == peer }).count < limits.maxPerPeer else {
            throw HandoffError(.connectionUnavailable, "\(limits.maxPerPeer) relay pipes with this device are open: wait for one to end")
        }
    }

    private mutating func remember(_ key: Key) {
        ended.append(key)
        if ended.count > limits.rememberedEnded { ended.removeFirst() }
    }

    private mutating func drop(_ reason: RelayDropReason) -> Arrival {
        drops[reason, default: 0] += 1
        return .dropped(reason)
    }
}
