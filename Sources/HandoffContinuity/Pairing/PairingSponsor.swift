// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The sponsor's run (docs/PROTOCOL.md §9): listen for joiners' beacons,
/// connect to one session at a time, commit (or start SPAKE2), and once
/// the joiner shares its key, reveal and compare (or check its
/// confirmation) — one attempt per run. A joiner that cannot be reached,
/// or misbehaves before it shares, costs nothing: the next session is
/// tried.
public enum PairingSponsor {
    /// Blocks the calling thread until success, failure or the window's end;
    /// errors as `PairingJoiner.run`.
    public static func run(_ config: PairingConfiguration, accountKey: AccountKey, deviceName: String,
                           method: PairingMethod = .comparison, events: PairingEvents) throws(HandoffError) -> PairingResult {
        let inbox = try PairingBeaconInbox(limits: config.limits, kind: PairingBeacon.kind(for: method))
        let transport = try BeaconTransport(config: config.beacons) { packet, from in
            inbox.offer(packet, from: from.host)
        }
        defer { transport.stop() }
        events.beaconsReady(transport.port)
        return try run(config, inbox: inbox, accountKey: accountKey, deviceName: deviceName, method: method, events: events,
                       connected: { transport.stop() })
    }

    /// The same run on beacons someone else receives and hands to `inbox`
    /// (the agent, which holds the beacon socket: docs/agent.md §9);
    /// `connected` is called when the attempt begins (no more beacons are
    /// needed). `config.beacons` is not used.
    public static func run(_ config: PairingConfiguration, inbox: PairingBeaconInbox, accountKey: AccountKey,
                           deviceName: String, method: PairingMethod = .comparison, events: PairingEvents,
                           connected: () -> Void = {}) throws(HandoffError) -> PairingResult {
        let limits = config.limits
        let windowEnd = Deadline(after: limits.window)
        let table = inbox.table
        let wake = inbox.wake
        defer { inbox.close() }

        while true {
            guard windowEnd.pollTimeout != nil else {
                throw HandoffError(.timedOut, "no new device asked to pair within the pairing window: "
                    + "run `handoff pair` on the new device, on the same network, while this one waits")
            }
            guard let candidate = table.withLock({ $0.next(now: monotonicSeconds()) }) else {
                // Wait for a beacon, or until a session may be retried.
                var fds = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: config.cancelFD, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 2, min(windowEnd.pollTimeout ?? 0, 500))
                if fds[1].revents != 0 { throw PairingConnection.cancelled }
                wake.drain()
                continue
            }
            var machine = PairingSponsorMachine(sessionID: candidate.sessionID, accountKey: accountKey, deviceName: deviceName,
                                                method: method)
            guard let (connection, share) = try? open(candidate, &machine, limits: limits, cancelFD: config.cancelFD) else {
                if (try? checkCancelled(config.cancelFD)) == nil { throw PairingConnection.cancelled }
                continue
            }
            let joinerName = candidate.name ?? table.withLock { $0.name(of: candidate) }
            inbox.close()
            connected()
            events.found(connection.peer)
            if let joinerName { events.joinerName(PairingBeacon.shown(joinerName)) }
            // The attempt begins with the joiner's share: from here any
            // failure ends the run.
            var code: ComparisonCode?
            do throws(HandoffError) {
                let step = try machine.receive(share)
                for frame in step.send { try connection.send(frame, until: Deadline(after: limits.stepTimeout)) }
                code = step.code
            } catch {
                if !machine.peerEnded { connection.sendReject() }
                throw error
            }
            let peer = try PairingAttempt.run(
                &machine, connection: connection, code: code, events: events, windowEnd: windowEnd, limits: limits,
                cancelFD: config.cancelFD, store: { _ in })
            return PairingResult(peerName: peer, accountID: accountKey.derived.accountID, code: code)
        }
    }

    /// Connects, sends COMMIT (CODE_START) and waits for SHARE
    /// (CODE_SHARE); any failure here is no attempt (nothing was revealed
    /// or checked).
    private static func open(_ candidate: PairingSessionTable.Candidate, _ machine: inout PairingSponsorMachine,
                             limits: PairingLimits, cancelFD: Int32) throws(HandoffError) -> (PairingConnection, Frame) {
        let address = SocketAddress(host: candidate.host, port: candidate.port)
        let fd = try openTCPConnection(to: try address.resolved(), address: address, timeout: limits.connectTimeout)
        let connection = PairingConnection(fd: fd, peer: candidate.host)
        let start = machine.start()
        try connection.send(start, until: Deadline(after: limits.stepTimeout))
        let share = try connection.receive(until: Deadline(after: limits.stepTimeout), cancelFD: cancelFD, what: "its key share")
        let expected = start.type == PairingMessage.commitType ? PairingMessage.shareType : PairingMessage.codeShareType
        guard share.type == expected else {
            throw HandoffError(.handoffFailed, "\(candidate.host) did not answer with its key")
        }
        return (connection, share)
    }

    private static func checkCancelled(_ fd: Int32) throws(HandoffError) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if fd >= 0, poll(&entry, 1, 0) > 0 { throw PairingConnection.cancelled }
    }
}

/// Pairing beacons on their way to a sponsor run: any thread offers what
/// it heard; the run takes sessions from the table (rate limits and
/// bounds of `PairingSessionTable`, docs/PROTOCOL.md §9) and wakes on the
/// pipe. Closed (offers refused) once the run's attempt begins or it ends.
public final class PairingBeaconInbox: @unchecked Sendable {
    // @unchecked: the table is locked; the descriptors are fixed until deinit.
    let table: Locked<PairingSessionTable>
    let wake: WakePipe
    private let closed = Locked(false)

    private let kind: UInt8

    /// An inbox for joiners of `kind` (`PairingBeacon.joinerKind` for a
    /// comparison, `codeJoinerKind` for a one-time code); other beacons
    /// are refused.
    public init(limits: PairingLimits, kind: UInt8 = PairingBeacon.joinerKind) throws(HandoffError) {
        self.kind = kind
        wake = try WakePipe.make()
        table = Locked(PairingSessionTable(limits: limits, now: monotonicSeconds()))
    }

    /// Hands a datagram heard from `host` to the run (any thread): false
    /// when it is no pairing beacon of this inbox's kind, the rate limits
    /// refused it, or the inbox is closed.
    @discardableResult
    public func offer(_ packet: [UInt8], from host: String) -> Bool {
        guard let beacon = PairingBeacon.parse(packet), beacon.kind == kind, !closed.withLock({ $0 }) else { return false }
        guard table.withLock({ $0.heard(beacon, from: host, now: monotonicSeconds()) }) else { return false }
        wake.signal()
        return true
    }

    /// Refuses further offers.
    public func close() { closed.withLock { $0 = true } }
}
