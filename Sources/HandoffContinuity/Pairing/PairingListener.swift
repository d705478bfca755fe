// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The joiner's TCP listener before an attempt begins: it accepts anyone
/// and keeps the first connection that sends a COMMIT for this session.
/// Everything before that is bounded as on the channel (docs/ARCHITECTURE.md "Rules",
/// docs/PROTOCOL.md §9 "Limits"): at most `maxPending` connections, a
/// share per source address, deadlines to the first byte and to a whole
/// COMMIT, and, when all slots are taken, a newcomer waiting in the
/// backlog makes the most represented, least advanced, oldest pending
/// connection give way (`AdmissionPolicy`), never the newcomer.
final class PairingListener {
    private struct Pending {
        var id: Int
        var connection: PairingConnection
        var since: Double
    }

    let fd: Int32
    let port: UInt16
    private let limits: PairingLimits
    private var pending: [Pending] = []
    private var nextID = 0
    /// Connections closed for garbage, deadlines or shedding (tests).
    private(set) var refused = 0

    init(address: SocketAddress, limits: PairingLimits) throws(HandoffError) {
        fd = try openListener(address, backlog: 64)
        port = PairingConnection.localPort(fd)
        self.limits = limits
    }

    deinit { close(fd) }

    /// Waits for a COMMIT that `isOurs` accepts, until `deadline`; calls
    /// `tick` whenever it wakes, which returns when it next wants to be
    /// called (the beacon schedule). The other pending connections are
    /// closed when it returns.
    func waitForCommit(until deadline: Deadline, cancelFD: Int32, isOurs: (Frame) -> Bool,
                       tick: () -> Double) throws(HandoffError) -> (PairingConnection, Frame) {
        defer { pending.removeAll() }
        while true {
            let now = monotonicSeconds()
            var wake = min(tick(), deadline.end)
            expire(now: now)
            let full = pending.count >= limits.maxPending
            let victim = full ? AdmissionPolicy.pendingVictimForBacklog(policyView(), limit: limits.maxPending, now: now, grace: limits.pendingGrace) : nil
            for p in pending {
                wake = min(wake, p.since + (p.connection.received == 0 ? limits.firstBytesTimeout : limits.commitTimeout))
                if full { wake = min(wake, p.since + limits.pendingGrace) }
            }
            guard now < deadline.end else {
                throw HandoffError(.timedOut, "no device of the account answered within the pairing window: "
                    + "run `handoff pair` on a device that has the account, on the same network, while this one waits")
            }
            // While full and nobody may give way, newcomers wait in the backlog.
            let watchListener = !full || victim != nil
            var fds = [pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: watchListener ? fd : -1, events: Int16(POLLIN), revents: 0)]
            fds += pending.map { pollfd(fd: $0.connection.fd, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(max(0, min(60_000, ((wake - monotonicSeconds()) * 1000).rounded(.up))))
            _ = poll(&fds, nfds_t(fds.count), milliseconds)
            if fds[0].revents != 0 { throw PairingConnection.cancelled }
            // Pending connections first: a COMMIT already here wins.
            var index = 0
            for entry in fds[2...] {
                defer { index += 1 }
                guard entry.revents != 0, let p = pending.first(where: { $0.connection.fd == entry.fd }) else { continue }
                do throws(HandoffError) {
                    if let frame = try p.connection.readFrame() {
                        if isOurs(frame) { return (take(p.id), frame) }
                        drop(p.id)
                    }
                } catch {
                    drop(p.id)
                }
            }
            if fds[1].revents != 0 { accept(now: monotonicSeconds()) }
        }
    }

    private func accept(now: Double) {
        if pending.count >= limits.maxPending {
            guard let victim = AdmissionPolicy.pendingVictimForBacklog(policyView(), limit: limits.maxPending, now: now, grace: limits.pendingGrace) else { return }
            drop(victim)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let client = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                clinux_accept4(fd, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            }
        }
        guard client >= 0 else { return }
        nextID += 1
        let newcomer = Pending(id: nextID, connection: PairingConnection(fd: client, peer: PairingConnection.peerName(storage)), since: now)
        pending.append(newcomer)
        if let victim = AdmissionPolicy.pendingVictimForShare(policyView(), newcomer: view(newcomer), share: limits.pendingPerSource, now: now, grace: limits.pendingGrace) {
            drop(victim)
        }
    }

    /// Closes connections past their deadline.
    private func expire(now: Double) {
        for p in pending {
            let limit = p.connection.received == 0 ? limits.firstBytesTimeout : limits.commitTimeout
            if now - p.since >= limit { drop(p.id) }
        }
    }

    private func drop(_ id: Int) {
        pending.removeAll { $0.id == id }
        refused += 1
    }

    private func take(_ id: Int) -> PairingConnection {
        let p = pending.first { $0.id == id }!
        pending.removeAll { $0.id == id }
        return p.connection
    }

    private func view(_ p: Pending) -> AdmissionPolicy.Pending {
        AdmissionPolicy.Pending(id: p.id, source: p.connection.peer, progress: p.connection.received == 0 ? .silent : .partial,
                                received: p.connection.received, since: p.since)
    }

    private func policyView() -> [AdmissionPolicy.Pending] { pending.map(view) }
}
