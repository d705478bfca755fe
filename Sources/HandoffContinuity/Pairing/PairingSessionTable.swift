// SPDX-License-Identifier: MIT OR Apache-2.0
/// The sponsor's view of the joiners announcing themselves: bounded,
/// rate-limited, and handing out one session to try at a time
/// (docs/PROTOCOL.md §9 "Pairing beacons"). Keyed by session ID *and*
/// address, so a beacon naming someone else's session with another
/// address adds a candidate instead of replacing the genuine one. Not
/// thread-safe: the owner locks.
struct PairingSessionTable {
    struct Candidate: Equatable {
        var sessionID: [UInt8]
        var host: String
        var port: UInt16
        var heard: Double
        var tried: Double?
        /// What a named beacon of this session said it is called.
        var name: String?
    }

    private struct Key: Hashable {
        var sessionID: [UInt8]
        var host: String
        var port: UInt16
    }

    private let limits: PairingLimits
    private var candidates: [Key: Candidate] = [:]
    private var beacons: RateLimiter<String>
    private var connections: TokenBucket

    init(limits: PairingLimits, now: Double) {
        self.limits = limits
        beacons = RateLimiter(perSource: 4, perSourceBurst: 8, overall: 100, overallBurst: 200, maxSources: 256, now: now)
        connections = TokenBucket(rate: 2, burst: 4, now: now)
    }

    var count: Int { candidates.count }

    /// The name the session's named beacon gave, if one was heard.
    func name(of candidate: Candidate) -> String? {
        candidates[Key(sessionID: candidate.sessionID, host: candidate.host, port: candidate.port)]?.name
    }

    /// Records a beacon heard from `host`; false when it was refused by the
    /// rate limits.
    mutating func heard(_ beacon: PairingBeacon, from host: String, now: Double) -> Bool {
        guard beacons.admit(host, now: now) else { return false }
        let key = Key(sessionID: beacon.sessionID, host: host, port: beacon.port)
        if candidates[key] == nil, candidates.count >= limits.maxSessions,
           let oldest = candidates.min(by: { $0.value.heard < $1.value.heard })?.key {
            candidates[oldest] = nil
        }
        candidates[key, default: Candidate(sessionID: beacon.sessionID, host: host, port: beacon.port, heard: now)].heard = now
        if let name = beacon.name { candidates[key]?.name = name }
        return true
    }

    /// The session to try now, marked tried: heard within the freshness
    /// time, not tried within the retry time; the address tried least
    /// recently first, then the session tried least recently, then the one
    /// heard last. Ordering by address first means one address announcing
    /// many sessions (a flood) gets at most every other attempt while
    /// another address waits. nil when none, or when the connection rate
    /// is spent.
    mutating func next(now: Double) -> Candidate? {
        var addressTried: [String: Double] = [:]
        for candidate in candidates.values {
            if let tried = candidate.tried { addressTried[candidate.host] = max(addressTried[candidate.host] ?? tried, tried) }
        }
        let ready = candidates.values.filter {
            now - $0.heard <= limits.sessionFreshness && ($0.tried.map { now - $0 >= limits.sessionRetry } ?? true)
        }
        func order(_ c: Candidate) -> (Double, Double, Double) { (addressTried[c.host] ?? -1, c.tried ?? -1, -c.heard) }
        guard let pick = ready.min(by: { order($0) < order($1) }),
              connections.take(now: now) else { return nil }
        candidates[Key(sessionID: pick.sessionID, host: pick.host, port: pick.port)]?.tried = now
        return pick
    }
}
