// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// POLLRDHUP (Linux; Glibc's module map hides it behind _GNU_SOURCE).
let pollReadHangUp: Int32 = 0x2000

/// The receiving side of the exchange: FETCH an activity from the device
/// that offers it, later CONFIRM it was continued. Keeps one warm
/// connection per peer so a second handoff skips the handshake: at most
/// `maxPooled` of them, each closed once idle for `idleLifetime` or once
/// its peer has closed its end (`reap`, from the engine's scheduler, which
/// sleeps until `poolWatch`'s deadline or a pooled connection's hang-up),
/// so none sits in CLOSE-WAIT.
final class ExchangeClient: Sendable {
    /// Warm connections kept at most; a new one replaces the least recently used.
    static let maxPooled = 16
    /// Bytes a second below which a document brought along is given up
    /// (its transfer's deadline: the reply time plus its size at this rate).
    static let slowestDocumentRate: Double = 65_536

    private let psk: [UInt8]
    private let limits: ChannelLimits
    private let fetchTimeout: Double
    private let idleLifetime: Double
    private let pool = Locked<[SocketAddress: (ChannelConnection, Double)]>([:])
    /// Handshakes in progress at once from this device: a server pends at
    /// most 8 per source address (PROTOCOL §6) and queues the rest.
    private let handshakes = CountingGate(limit: 4)
    /// Called when a connection joins the pool: the scheduler then watches
    /// it and its deadline.
    private let pooled: @Sendable () -> Void
    /// Makes a new authenticated connection to a channel: TCP, or a stream
    /// its `PeerPath` dials for a channel on another path (the engine's).
    typealias Dial = @Sendable (_ peer: SocketAddress, _ psk: [UInt8], _ limits: ChannelLimits) throws(HandoffError) -> ChannelConnection
    private let dial: Dial
    /// Connections waiting on a peer now (a request's reply, a document's
    /// bytes), and whether the engine stopped: `cancel` closes them, so no
    /// thread stays blocked on a peer past the stop, and nothing starts after.
    private let waiting = Locked<(stopped: Bool, connections: [ObjectIdentifier: ChannelConnection])>((false, [:]))

    init(psk: [UInt8], limits: ChannelLimits, fetchTimeout: Double, idleLifetime: Double,
         pooled: @escaping @Sendable () -> Void = {},
         dial: @escaping Dial = { peer, psk, limits throws(HandoffError) in
             try ChannelConnection.connect(to: peer, psk: psk, limits: limits)
         }) {
        self.dial = dial
        self.psk = psk
        self.limits = limits
        self.fetchTimeout = fetchTimeout
        self.idleLifetime = idleLifetime
        self.pooled = pooled
    }

    /// A payload as fetched, with the protocol revision its connection
    /// agreed on: what the sender had to put in it (PROTOCOL.md §12: from
    /// revision 4, a description of every `file:` URL).
    struct Fetched: Sendable {
        let bytes: [UInt8]
        let revision: Int
    }

    /// Fetches the payload of `activityID` from `peer`. Blocking; call it
    /// off the host's thread. Errors are user-activity errors (4608-4611).
    func fetch(_ activityID: ActivityID, from peer: SocketAddress) -> Result<Fetched, HandoffError> {
        // The sender waits fetchTimeout for its app, then answers 4610
        // itself; the margin covers the network.
        let replyTimeout = fetchTimeout + limits.handshakeTimeout + 2
        do throws(HandoffError) {
            let (reply, revision) = try exchangeAndRevision(.fetch(activityID), with: peer, replyTimeout: replyTimeout)
            switch reply {
            case .payload(let bytes):
                return .success(Fetched(bytes: bytes, revision: revision))
            case .error(let code, let message):
                let error = HandoffError(HandoffError.Code(rawValue: code), "the other device: \(DocumentText.escaped(message))")
                return .failure(error.asUserActivityErrorForWire)
            default:
                return .failure(HandoffError(.handoffFailed, "the other device answered a fetch with an unexpected frame"))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Whether `peer` completes a handshake with the account's PSK now: the
    /// protocol revision the handshake agreed on when it does, else why
    /// not (kept for `handoff devices`); the
    /// connection stays in the pool (when reuse is on) for the next fetch.
    func verify(_ peer: SocketAddress) -> Result<Int, HandoffError> {
        do {
            let connection = try connection(to: peer)
            let revision = connection.revision
            release(connection, to: peer)
            return .success(revision)
        } catch {
            return .failure(error)
        }
    }

    /// Tells `peer` its activity was continued. Best effort: false when
    /// it could not be reached (the caller may try another path).
    @discardableResult
    func confirm(_ activityID: ActivityID, to peer: SocketAddress) -> Bool {
        guard let connection = try? connection(to: peer) else { return false }
        do {
            try connection.send(ExchangeMessage.confirm(activityID).frame, timeout: limits.handshakeTimeout)
            release(connection, to: peer)
            return true
        } catch {
            connection.close()
            return true  // reached: the connection broke after
        }
    }

    /// Opens a continuation stream for `activityID` to `peer`: on a
    /// connection of its own (a warm one if there is one), which from then
    /// on carries only the stream. Returns the connection and the bytes
    /// that already arrived after the acceptance. Blocking; errors are
    /// user-activity errors (4608-4611).
    func openStream(_ activityID: ActivityID, to peer: SocketAddress) -> Result<(ChannelConnection, [UInt8]), HandoffError> {
        let replyTimeout = fetchTimeout + limits.handshakeTimeout + 2
        do throws(HandoffError) {
            let (reply, connection) = try request(.streamOpen(activityID), with: peer, replyTimeout: replyTimeout)
            switch reply {
            case .streamAccepted:
                return .success((connection, try connection.takeBufferedBytes()))
            case .error(let code, let message):
                release(connection, to: peer)  // a refusal leaves it usable
                return .failure(HandoffError(HandoffError.Code(rawValue: code), "the other device: \(DocumentText.escaped(message))").asUserActivityErrorForWire)
            default:
                connection.close()
                return .failure(HandoffError(.handoffFailed, "the other device answered a stream request with an unexpected frame"))
            }
        } catch {
            return .failure(error.asUserActivityErrorForWire)
        }
    }

    /// Brings the bytes of `entry`'s document of activity `activityID` from
    /// `peer` into `copy` (PROTOCOL.md §12), on a connection that carries
    /// only them and is closed after. Fails unless exactly the described
    /// size arrives with the described SHA-256; the copy is then abandoned
    /// by the caller. Blocking; errors are user-activity errors.
    func fetchDocument(_ activityID: ActivityID, _ entry: DocumentEntry, from peer: SocketAddress,
                       into copy: BroughtCopy,
                       progress: (_ received: UInt64) -> Void = { _ in }) -> Result<Void, HandoffError> {
        let replyTimeout = fetchTimeout + limits.handshakeTimeout + 2
        let name = DocumentText.escaped(entry.location.name)
        let connection: ChannelConnection
        do throws(HandoffError) {
            let (reply, opened) = try request(.documentOpen(activityID, sha256: entry.facts.sha256), with: peer, replyTimeout: replyTimeout)
            switch reply {
            case .documentAccepted(let size) where size == entry.facts.size:
                connection = opened
            case .error(let code, let message):
                release(opened, to: peer)
                return .failure(HandoffError(HandoffError.Code(rawValue: code), "the other device: \(DocumentText.escaped(message))").asUserActivityErrorForWire)
            default:
                opened.close()
                return .failure(HandoffError(.handoffFailed, "the other device answered a request for \(name) with an unexpected frame"))
            }
        } catch {
            return .failure(error.asUserActivityErrorForWire)
        }
        defer { connection.close() }
        // Tracked from before the request let go of it: a stop meanwhile
        // finds `stopped` set here.
        guard track(connection) else { return .failure(Self.stopped(name)) }
        defer { untrack(connection) }
        let digest = SHA256Stream()
        var received: UInt64 = 0
        var reported = (bytes: UInt64(0), at: monotonicSeconds())
        progress(0)
        // The whole transfer is bounded too: a sender that trickles a byte
        // now and then never lets a frame's own timeout pass.
        let deadline = monotonicSeconds() + replyTimeout + Double(entry.facts.size) / Self.slowestDocumentRate
        do throws(HandoffError) {
            while true {
                let left = deadline - monotonicSeconds()
                guard left > 0 else {
                    return .failure(HandoffError(.remoteApplicationTimedOut,
                        "the other device sent \(name) too slowly (\(received) of \(entry.facts.size) bytes)"))
                }
                let frame = try connection.receive(timeout: min(replyTimeout, left))
                switch frame.type {
                case StreamFrame.data where !frame.payload.isEmpty:
                    received += UInt64(frame.payload.count)
                    guard received <= entry.facts.size else {
                        return .failure(HandoffError(.handoffFailed, "the other device sent more of \(name) than it described"))
                    }
                    let failed = frame.payload.withUnsafeBytes { bytes -> HandoffError? in
                        digest.update(bytes)
                        do throws(HandoffError) { try copy.write(bytes); return nil } catch { return error }
                    }
                    if let failed { return .failure(failed) }
                    let now = monotonicSeconds()
                    if received / DocumentProgress.step != reported.bytes / DocumentProgress.step
                        || now - reported.at >= DocumentProgress.interval || received == entry.facts.size {
                        reported = (received, now)
                        progress(received)
                    }
                case StreamFrame.end where frame.payload.isEmpty:
                    guard received == entry.facts.size, digest.finish() == entry.facts.sha256 else {
                        return .failure(HandoffError(.handoffFailed, "the copy of \(name) that arrived is not the document described (\(received) of \(entry.facts.size) bytes, or another content)"))
                    }
                    return .success(())
                default:
                    return .failure(HandoffError(.handoffFailed, "the other device broke off sending \(name) with an unexpected frame"))
                }
            }
        } catch {
            if isCancelled { return .failure(Self.stopped(name)) }
            if error.code == .timedOut {
                return .failure(HandoffError(.remoteApplicationTimedOut, "the other device stopped sending \(name) (\(received) of \(entry.facts.size) bytes)"))
            }
            // Not 4609: bytes may be in the copy, so no other path is tried.
            return .failure(HandoffError(.handoffFailed, "\(name) did not arrive whole (\(received) of \(entry.facts.size) bytes): \(error.message)"))
        }
    }

    /// Sends a request and reads its reply on a connection that goes back
    /// to the pool.
    private func exchangeAndRevision(_ request: ExchangeMessage, with peer: SocketAddress,
                                     replyTimeout: Double) throws(HandoffError) -> (ExchangeMessage, Int) {
        let (reply, connection) = try self.request(request, with: peer, replyTimeout: replyTimeout)
        let revision = connection.revision
        release(connection, to: peer)
        return (reply, revision)
    }

    /// Sends a request and reads its reply, retrying once on a fresh
    /// connection when a warm one turns out to be dead. The caller gets
    /// the connection.
    private func request(_ request: ExchangeMessage, with peer: SocketAddress,
                         replyTimeout: Double) throws(HandoffError) -> (ExchangeMessage, ChannelConnection) {
        var attempts = 0
        while true {
            attempts += 1
            let (connection, warm) = try connectionAndWarmth(to: peer)
            guard track(connection) else {
                connection.close()
                throw Self.stopped(nil)
            }
            defer { untrack(connection) }
            guard connection.revision >= request.revision else {
                release(connection, to: peer)
                throw HandoffError(.handoffFailed, "the other device speaks protocol revision \(connection.revision), which cannot do this (revision \(request.revision) can)")
            }
            do throws(HandoffError) {
                try connection.send(request.frame, timeout: limits.handshakeTimeout)
                let frame = try connection.receive(timeout: replyTimeout)
                let reply: ExchangeMessage
                do throws(HandoffError) { reply = try ExchangeMessage(frame, revision: connection.revision) } catch {
                    connection.close()
                    throw HandoffError(.handoffFailed, "the other device sent a malformed reply: \(error.message)")
                }
                return (reply, connection)
            } catch {
                connection.close()
                if isCancelled { throw Self.stopped(nil) }
                if warm && attempts == 1 && error.code == .connectionUnavailable { continue }
                switch error.code {
                case .timedOut:
                    throw HandoffError(.remoteApplicationTimedOut, "the other device did not hand over the activity in time")
                case .malformedData:
                    throw HandoffError(.handoffFailed, "the other device sent a malformed reply: \(error.message)")
                default:
                    throw error.asUserActivityErrorForWire
                }
            }
        }
    }

    private func connection(to peer: SocketAddress) throws(HandoffError) -> ChannelConnection {
        try connectionAndWarmth(to: peer).0
    }

    /// A pooled connection (warm) or a new one.
    private func connectionAndWarmth(to peer: SocketAddress) throws(HandoffError) -> (ChannelConnection, Bool) {
        let now = monotonicSeconds()
        let pooled: ChannelConnection? = pool.withLock { p in
            guard let (c, lastUsed) = p.removeValue(forKey: peer) else { return nil }
            if now - lastUsed > idleLifetime { c.close(); return nil }
            return c
        }
        if let pooled, Self.peerHasClosed(pooled) {
            pooled.close()
        } else if let pooled {
            return (pooled, true)
        }
        // A device's channel takes a few handshakes at once and closes the
        // rest: many streams opened together queue here instead.
        handshakes.enter()
        defer { handshakes.leave() }
        return (try dial(peer, psk, limits), false)
    }

    private func release(_ connection: ChannelConnection, to peer: SocketAddress) {
        guard idleLifetime > 0, !isCancelled, !Self.peerHasClosed(connection) else {
            connection.close()
            return
        }
        let evicted: [ChannelConnection] = pool.withLock { p in
            var out: [ChannelConnection] = []
            if let old = p.updateValue((connection, monotonicSeconds()), forKey: peer)?.0, old !== connection { out.append(old) }
            while p.count > Self.maxPooled, let oldest = p.min(by: { $0.value.1 < $1.value.1 })?.key {
                out.append(p.removeValue(forKey: oldest)!.0)
            }
            return out
        }
        evicted.forEach { $0.close() }
        pooled()
    }

    /// Closes the pooled connections idle for longer than `idleLifetime`
    /// and those whose peer closed its end (or reset); returns how many.
    @discardableResult
    func reap(now: Double = monotonicSeconds()) -> Int {
        let dead: [ChannelConnection] = pool.withLock { p in
            let keys = p.filter { now - $0.value.1 > idleLifetime || Self.peerHasClosed($0.value.0) }.map(\.key)
            return keys.map { p.removeValue(forKey: $0)!.0 }
        }
        dead.forEach { $0.close() }
        return dead.count
    }

    /// What `reap` waits for: the pooled connections' descriptors (to
    /// watch for their peer's close) and when the first of them will have
    /// been idle for longer than `idleLifetime` (nil: the pool is empty),
    /// a moment past it so that `reap`'s strict test holds then.
    func poolWatch() -> (descriptors: [Int32], nextReap: Double?) {
        pool.withLock { p in
            (p.values.map { $0.0.socket.fd }, p.values.map { $0.1 + idleLifetime + 0.002 }.min())
        }
    }

    /// Connections in the pool now.
    var pooledCount: Int { pool.withLock { $0.count } }

    /// Whether the peer has shut down its side (FIN: POLLRDHUP) or the
    /// socket failed. Readable data alone (a TLS ticket) is not a close.
    static func peerHasClosed(_ connection: ChannelConnection) -> Bool {
        var p = pollfd(fd: connection.socket.fd, events: Int16(pollReadHangUp), revents: 0)
        guard poll(&p, 1, 0) > 0 else { return false }
        return p.revents & Int16(pollReadHangUp | POLLHUP | POLLERR | POLLNVAL) != 0
    }

    // MARK: Stopping

    /// Closes every connection waiting on a peer (their threads wake and
    /// fail at once) and fails every request from now on: the engine's
    /// stop. A document's copy then is abandoned by its caller.
    func cancel() {
        let open = waiting.withLock { w in
            w.stopped = true
            defer { w.connections = [:] }
            return Array(w.connections.values)
        }
        open.forEach { $0.close() }
    }

    var isCancelled: Bool { waiting.withLock { $0.stopped } }

    /// Counts `connection` as waiting; false once stopped.
    private func track(_ connection: ChannelConnection) -> Bool {
        waiting.withLock { w in
            guard !w.stopped else { return false }
            w.connections[ObjectIdentifier(connection)] = connection
            return true
        }
    }

    private func untrack(_ connection: ChannelConnection) {
        waiting.withLock { w in w.connections[ObjectIdentifier(connection)] = nil }
    }

    /// What a request or transfer ended by the stop fails with (not 4609:
    /// no other path is tried).
    static func stopped(_ name: String?) -> HandoffError {
        HandoffError(.handoffFailed, name.map { "the handoff stopped while \($0) was coming from the other device" }
            ?? "the handoff stopped before the other device answered")
    }

    func closeAll() {
        let all = pool.withLock { p in defer { p.removeAll() }; return p.values.map(\.0) }
        all.forEach { $0.close() }
    }
}

extension HandoffError {
    /// As the wire reports it: user-activity errors kept, timeouts 4610,
    /// the rest HandoffFailed (4608).
    var asUserActivityErrorForWire: HandoffError {
        if isUserActivityError { return self }
        if code == .timedOut { return HandoffError(.remoteApplicationTimedOut, message) }
        return HandoffError(.handoffFailed, message)
    }
}
