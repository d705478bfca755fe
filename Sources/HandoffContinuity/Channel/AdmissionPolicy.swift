// SPDX-License-Identifier: MIT OR Apache-2.0
/// Who gives way when the channel server's slots are contended: a pure
/// function of the connections held, so it is tested without sockets.
///
/// Before authentication nobody has proven anything, so the server keeps
/// the connections most likely to be genuine: a connection whose ClientHello
/// carried a valid PSK binder (`.proven`) is never shed (it ends by
/// finishing or by the handshake deadline), nor one younger than the grace
/// time; among the others the most
/// represented source gives way first, then the least progress, then the
/// oldest. A newcomer is never the one shed. After authentication only
/// idle connections (no exchange outstanding) are ever shed.
enum AdmissionPolicy {
    /// How far an unauthenticated connection has got.
    enum Progress: Int, Comparable {
        /// Nothing received yet.
        case silent = 0
        /// Some bytes of a ClientHello, not all of it.
        case partial = 1
        /// The ClientHello's PSK binder verified and the server's flight sent.
        case proven = 2

        static func < (a: Progress, b: Progress) -> Bool { a.rawValue < b.rawValue }
    }

    struct Pending: Equatable {
        var id: Int
        var source: String
        var progress: Progress
        /// Bytes received so far.
        var received: Int
        /// When it was accepted (monotonic seconds).
        var since: Double
    }

    struct Authenticated: Equatable {
        var id: Int
        var source: String
        /// Since when it has had no exchange outstanding; nil while busy.
        var idleSince: Double?
    }

    /// Whether `p` may be shed at `now`: it has not proven the key, and it
    /// has had `grace` seconds to send its ClientHello (a genuine client
    /// sends it at once, but an attacker reconnecting faster than that
    /// must not be able to push it out before it arrives).
    static func isSheddable(_ p: Pending, now: Double, grace: Double) -> Bool {
        p.progress < .proven && now - p.since >= grace
    }

    /// The pending connection to shed so one waiting in the backlog can be
    /// accepted, when all `limit` slots are taken; nil when no holder may
    /// be shed (the newcomer then waits in the backlog).
    static func pendingVictimForBacklog(_ pending: [Pending], limit: Int, now: Double, grace: Double) -> Int? {
        guard pending.count >= limit else { return nil }
        return leastDeserving(pending.filter { isSheddable($0, now: now, grace: grace) }, countedAmong: pending)
    }

    /// The pending connection to shed because `newcomer`'s source now holds
    /// more than `share` slots: that source's own least deserving
    /// connection other than the newcomer, or nil when the source is within
    /// its share or none of its others may be shed.
    static func pendingVictimForShare(_ pending: [Pending], newcomer: Pending, share: Int, now: Double, grace: Double) -> Int? {
        let same = pending.filter { $0.source == newcomer.source && $0.id != newcomer.id }
        guard same.count + 1 > share else { return nil }
        return leastDeserving(same.filter { isSheddable($0, now: now, grace: grace) }, countedAmong: pending)
    }

    private static func leastDeserving(_ candidates: [Pending], countedAmong all: [Pending]) -> Int? {
        var perSource: [String: Int] = [:]
        for p in all { perSource[p.source, default: 0] += 1 }
        return candidates.min { a, b in
            let (ca, cb) = (perSource[a.source]!, perSource[b.source]!)
            if ca != cb { return ca > cb }
            if a.progress != b.progress { return a.progress < b.progress }
            if a.received != b.received { return a.received < b.received }
            if a.since != b.since { return a.since < b.since }
            return a.id < b.id
        }?.id
    }

    enum Decision: Equatable {
        case admit
        /// Admit after closing this idle connection.
        case admitShedding(Int)
        case refuse
    }

    /// Whether a connection from `source` that just authenticated may join
    /// `active`: within its source's `share` and the `limit`, or by taking
    /// the place of an idle connection (its own source's oldest when over
    /// the share; the most represented source's oldest otherwise).
    static func admitAuthenticated(from source: String, active: [Authenticated], limit: Int, share: Int) -> Decision {
        let same = active.filter { $0.source == source }
        if same.count >= share {
            return oldestIdle(same).map { .admitShedding($0) } ?? .refuse
        }
        guard active.count >= limit else { return .admit }
        var perSource: [String: Int] = [:]
        for a in active { perSource[a.source, default: 0] += 1 }
        let sources = perSource.keys.sorted { perSource[$0]! != perSource[$1]! ? perSource[$0]! > perSource[$1]! : $0 < $1 }
        for candidate in sources {
            if let victim = oldestIdle(active.filter { $0.source == candidate }) { return .admitShedding(victim) }
        }
        return .refuse
    }

    private static func oldestIdle(_ connections: [Authenticated]) -> Int? {
        connections.filter { $0.idleSince != nil }
            .min { ($0.idleSince!, $0.id) < ($1.idleSince!, $1.id) }?.id
    }
}
