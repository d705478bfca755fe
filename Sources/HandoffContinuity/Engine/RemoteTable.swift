import FoundationEssentials
import HandoffModel
import HandoffRuntime

/// What the other devices of the account offer, built from their beacons,
/// and the gate that decides what this app is offered (DESIGN §3 Gating):
/// same team and a declared type, or else only a web page; nothing expired;
/// nothing at all on a send-only device.
///
/// A device is reported only once it is *verified*: its channel completed a
/// TLS handshake with the account's PSK. A beacon proves the sender held the
/// beacon key at some point; the handshake proves the device is there now,
/// so replayed beacons of a device that is gone show nothing.
struct RemoteTable {
    struct Entry {
        /// What its latest beacon offers this app.
        var offered: RemoteActivity?
        /// What the host was told it offers.
        var reported: RemoteActivity?
        /// When the offered activity expires, ms since the Unix epoch.
        var expiration: UInt64?
        /// Where its channel listens: the beacon's source address and port.
        var channel: SocketAddress
        var lastHeard: Double
        var verified = false
        var verifying = false
        var lastAttempt = -Double.infinity
    }

    /// Seconds between verification attempts of one unreachable device.
    static let retryInterval = 2.0

    private(set) var entries: [String: Entry] = [:]

    /// The device that offers an activity (as reported), and where to reach it.
    func channel(offering activityID: UUID) -> SocketAddress? {
        entries.values.first { $0.reported?.activityID == activityID }?.channel
    }

    /// Applies a fresh, authenticated beacon from another device. Returns
    /// the changes to report, and a channel to verify when the device is not
    /// verified yet (the caller verifies it, then calls `verified`).
    mutating func apply(_ beacon: Beacon, from host: String, manifest: Manifest, ownRole: DeviceRole,
                        now: Double) -> (changes: [RemoteActivityChange], verify: SocketAddress?) {
        let deviceID = hex(beacon.deviceID)
        let channel = SocketAddress(host: host, port: beacon.channelPort)
        var entry = entries[deviceID] ?? Entry(channel: channel, lastHeard: now)
        if entry.channel != channel {
            // Another address or port: a restarted or moved device; check again.
            entry.channel = channel
            entry.verified = false
            entry.verifying = false
            entry.lastAttempt = -.infinity
        }
        entry.lastHeard = now
        switch beacon.kind {
        case .advert:
            let offered = ownRole == .sendOnly ? nil
                : Self.offer(beacon, deviceID: deviceID, manifest: manifest, firstSeen: entry.offered)
            entry.offered = offered
            entry.expiration = offered == nil ? nil : beacon.activity?.expiration
        case .withdraw:
            // A withdrawal names the activity it ends (or none: all of them);
            // a late one for an activity already replaced changes nothing.
            let named = beacon.activity.map(\.activityID).flatMap { $0.count == 16 ? UUID(bytes: $0) : nil }
            if named == nil || named == entry.offered?.activityID {
                entry.offered = nil
                entry.expiration = nil
            }
        }
        var verify: SocketAddress?
        if !entry.verified, entry.offered != nil, !entry.verifying, now - entry.lastAttempt >= Self.retryInterval {
            entry.verifying = true
            entry.lastAttempt = now
            verify = channel
        }
        let changes = entry.verified ? Self.report(&entry) : []
        entries[deviceID] = entry
        return (changes, verify)
    }

    /// The outcome of verifying `deviceID` at `channel`.
    mutating func verified(_ deviceID: String, at channel: SocketAddress, _ ok: Bool) -> [RemoteActivityChange] {
        guard var entry = entries[deviceID], entry.channel == channel else { return [] }
        entry.verifying = false
        entry.verified = ok
        let changes = ok ? Self.report(&entry) : []
        entries[deviceID] = entry
        return changes
    }

    /// Withdraws what has not been heard of for `lifetime` or has expired.
    mutating func sweep(now: Double, lifetime: Double, wallMilliseconds: UInt64) -> [RemoteActivityChange] {
        var changes: [RemoteActivityChange] = []
        for (id, var entry) in entries {
            if now - entry.lastHeard > lifetime {
                if let reported = entry.reported { changes.append(.withdrawn(reported)) }
                entries[id] = nil
            } else if let expiration = entry.expiration, expiration <= wallMilliseconds {
                entry.offered = nil
                entry.expiration = nil
                changes += Self.report(&entry)
                entries[id] = entry
            }
        }
        return changes
    }

    /// Brings what was reported up to what is offered.
    private static func report(_ entry: inout Entry) -> [RemoteActivityChange] {
        defer { entry.reported = entry.offered }
        return changes(from: entry.reported, to: entry.offered)
    }

    /// What this app is offered for an advert, or nil.
    static func offer(_ beacon: Beacon, deviceID: String, manifest: Manifest, firstSeen previous: RemoteActivity?) -> RemoteActivity? {
        guard let a = beacon.activity, a.activityID.count == 16 else { return nil }
        if let expiration = a.expiration, expiration <= wallMilliseconds() { return nil }
        let continuable = a.teamIdentifier == manifest.teamIdentifier && manifest.declares(a.activityType)
        let url = a.webpageURL.flatMap(URL.init(string:)).flatMap { u -> URL? in
            let scheme = u.scheme?.lowercased()
            return scheme == "http" || scheme == "https" ? u : nil
        }
        guard continuable || url != nil else { return nil }
        let id = UUID(bytes: a.activityID)
        return RemoteActivity(deviceID: deviceID, deviceName: beacon.deviceName, activityID: id,
                              activityType: a.activityType, title: a.title, webpageURL: url,
                              supportsContinuationStreams: a.supportsContinuationStreams,
                              isWebOnly: !continuable,
                              firstSeen: previous?.activityID == id ? previous!.firstSeen : Date())
    }

    static func changes(from old: RemoteActivity?, to new: RemoteActivity?) -> [RemoteActivityChange] {
        switch (old, new) {
        case (nil, nil): return []
        case (nil, let n?): return [.available(n)]
        case (let o?, nil): return [.withdrawn(o)]
        case (let o?, let n?):
            if o.activityID != n.activityID { return [.withdrawn(o), .available(n)] }
            return o == n ? [] : [.updated(n)]
        }
    }
}

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}
