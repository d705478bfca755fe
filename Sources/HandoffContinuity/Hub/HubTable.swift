// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// The bookkeeping of an `EndpointHub`, pure: the registered endpoints and
/// whom each gates for, what each was told others offer, what each
/// advertises and since when, and which one the service advertises
/// (docs/agent.md §4). The hub holds it under its lock.
struct HubTable {
    typealias PortID = Int

    /// One activity of one device (ids are random, but a device is keyed too).
    struct RemoteKey: Hashable {
        var deviceID: String
        var activityID: ActivityID
        init(_ r: RemoteActivity) {
            deviceID = r.deviceID
            activityID = r.activityID
        }
    }

    struct Port {
        var audience: ActivityAudience
        /// What this endpoint was told is offered, gated for it.
        var reported: [RemoteKey: RemoteActivity] = [:]
        /// Its current advertisement, and the stamp of its latest
        /// `advertise` with one (the most recent stamp is advertised).
        var advertisement: Advertisement?
        var advertisedAt: UInt64 = 0
        /// The ids it advertised lately, oldest first, with their stamps:
        /// a FETCH, stream or CONFIRM for one of them comes here.
        var recent: [(id: ActivityID, stamp: UInt64)] = []
    }

    /// Activity ids remembered per endpoint for routing (an app remembers
    /// as many sent activities for their confirmations and streams:
    /// `Application.servedLimit`).
    static let recentPerEndpoint = 16

    private(set) var ports: [PortID: Port] = [:]
    /// What the service reports others offer, ungated (the hub is an observer).
    private(set) var available: [RemoteKey: RemoteActivity] = [:]
    /// The endpoint whose advertisement the service was last given, and it.
    private(set) var advertiser: PortID?
    private(set) var advertised: Advertisement?
    private var clock: UInt64 = 0

    // MARK: Endpoints

    /// Registers `port` (again: what it was told is forgotten) and returns
    /// what it may continue among what is offered now, oldest first.
    mutating func register(_ port: PortID, audience: ActivityAudience) -> [RemoteActivityChange] {
        var entry = ports[port] ?? Port(audience: audience)
        entry.audience = audience
        entry.reported = [:]
        for (key, remote) in available {
            entry.reported[key] = ActivityGate.offer(remote, to: audience)
        }
        ports[port] = entry
        return entry.reported.values.sorted { ($0.firstSeen, $0.deviceID) < ($1.firstSeen, $1.deviceID) }.map { .available($0) }
    }

    /// Forgets `port`. Returns what the service must advertise now (nil
    /// inside: withdraw), or nil when that does not change.
    mutating func unregister(_ port: PortID) -> Advertisement?? {
        guard ports.removeValue(forKey: port) != nil else { return .none }
        return advertiser == port ? fallBack() : .none
    }

    /// What `port` was told of `remote` (gated for it), if it still is.
    func reported(_ remote: RemoteActivity, to port: PortID) -> RemoteActivity? {
        ports[port]?.reported[RemoteKey(remote)]
    }

    // MARK: Advertising

    /// `port` advertises `ad` (nil: withdraws its own). The most recent
    /// advertisement wins; when the winner withdraws, the most recent one
    /// still standing. Returns what the service must advertise now, or
    /// nil when that does not change.
    mutating func advertise(_ ad: Advertisement?, from port: PortID) -> Advertisement?? {
        guard var entry = ports[port] else { return .none }  // not registered: ignored
        entry.advertisement = ad
        if let ad {
            clock += 1
            entry.advertisedAt = clock
            entry.recent.removeAll { $0.id == ad.activityID }
            entry.recent.append((ad.activityID, clock))
            if entry.recent.count > Self.recentPerEndpoint { entry.recent.removeFirst(entry.recent.count - Self.recentPerEndpoint) }
            ports[port] = entry
            // Even the same advertisement again reaches the service, as it
            // would from an app of its own (it starts a beacon burst).
            advertiser = port
            advertised = ad
            return .some(ad)
        }
        ports[port] = entry
        return advertiser == port ? fallBack() : .none
    }

    /// The most recent advertisement still standing becomes the service's.
    private mutating func fallBack() -> Advertisement?? {
        let next = ports.filter { $0.value.advertisement != nil }.max { $0.value.advertisedAt < $1.value.advertisedAt }
        advertiser = next?.key
        advertised = next?.value.advertisement
        return .some(advertised)
    }

    /// The endpoint that advertised `activityID` most recently, among what
    /// each remembers.
    func route(_ activityID: ActivityID) -> PortID? {
        var best: (port: PortID, stamp: UInt64)?
        for (port, entry) in ports {
            if let hit = entry.recent.last(where: { $0.id == activityID }), hit.stamp > (best?.stamp ?? 0) {
                best = (port, hit.stamp)
            }
        }
        return best?.port
    }

    // MARK: What others offer

    /// Applies a change the service reported (ungated) and returns, per
    /// endpoint in registration order, what each must be told.
    mutating func apply(_ change: RemoteActivityChange) -> [(port: PortID, change: RemoteActivityChange)] {
        let key = RemoteKey(change.remote)
        var out: [(PortID, RemoteActivityChange)] = []
        switch change {
        case .available(let r), .updated(let r):
            available[key] = r
            for port in ports.keys.sorted() {
                let old = ports[port]!.reported[key]
                let new = ActivityGate.offer(r, to: ports[port]!.audience)
                ports[port]!.reported[key] = new
                out += RemoteTable.changes(from: old, to: new).map { (port, $0) }
            }
        case .withdrawn:
            available[key] = nil
            for port in ports.keys.sorted() {
                if let old = ports[port]!.reported.removeValue(forKey: key) { out.append((port, .withdrawn(old))) }
            }
        }
        return out
    }
}
