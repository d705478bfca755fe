import FoundationEssentials
import HandoffModel
import HandoffRuntime

/// What the other devices of the account offer, built from their beacons,
/// and the gate that decides what this app is offered (DESIGN §3 Gating):
/// same team and a declared type, or else only a web page; nothing expired;
/// nothing at all on a send-only device.
struct RemoteTable {
    struct Entry {
        var offered: RemoteActivity?
        /// When the offered activity expires, ms since the Unix epoch.
        var expiration: UInt64?
        /// Where its channel listens: the beacon's source address and port.
        var channel: SocketAddress
        var lastHeard: Double
    }

    private(set) var entries: [String: Entry] = [:]

    /// The device that offers an activity, and where to reach it.
    func channel(offering activityID: UUID) -> SocketAddress? {
        entries.values.first { $0.offered?.activityID == activityID }?.channel
    }

    /// Applies a fresh, authenticated beacon from another device.
    mutating func apply(_ beacon: Beacon, from host: String, manifest: Manifest, ownRole: DeviceRole,
                        now: Double) -> [RemoteActivityChange] {
        let deviceID = hex(beacon.deviceID)
        let channel = SocketAddress(host: host, port: beacon.channelPort)
        var entry = entries[deviceID] ?? Entry(offered: nil, expiration: nil, channel: channel, lastHeard: now)
        entry.channel = channel
        entry.lastHeard = now
        let previous = entry.offered
        entry.offered = beacon.kind == .advert && ownRole != .sendOnly
            ? Self.offer(beacon, deviceID: deviceID, manifest: manifest, firstSeen: previous)
            : nil
        entry.expiration = entry.offered == nil ? nil : beacon.activity?.expiration
        entries[deviceID] = entry
        return Self.changes(from: previous, to: entry.offered)
    }

    /// Withdraws what has not been heard of for `lifetime` or has expired.
    mutating func sweep(now: Double, lifetime: Double, wallMilliseconds: UInt64) -> [RemoteActivityChange] {
        var changes: [RemoteActivityChange] = []
        for (id, entry) in entries {
            let silent = now - entry.lastHeard > lifetime
            let expired = entry.expiration.map { $0 <= wallMilliseconds } ?? false
            guard silent || expired else { continue }
            if let offered = entry.offered { changes.append(.withdrawn(offered)) }
            if silent { entries[id] = nil } else { entries[id]?.offered = nil }
        }
        return changes
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
