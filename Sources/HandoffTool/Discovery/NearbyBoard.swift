import HandoffContinuity
import HandoffModel

/// What changed among the activities nearby.
enum NearbyEvent: Equatable {
    case available(NearbyActivity)
    case updated(NearbyActivity)
    case withdrawn(NearbyActivity)

    var name: String {
        switch self {
        case .available: "available"
        case .updated: "updated"
        case .withdrawn: "withdrawn"
        }
    }

    var activity: NearbyActivity {
        switch self {
        case .available(let a), .updated(let a), .withdrawn(let a): a
        }
    }
}

/// The activities the account's other devices offer, from their beacons,
/// with no gate: every team and type (the library's engine keeps its own
/// table, which offers an app only what it may continue).
///
/// As in the engine, a device counts only once its channel completed a TLS
/// handshake with the account's key: a beacon proves someone held the key
/// once; the handshake proves the device is there now. Main thread only.
struct NearbyBoard {
    private struct Device {
        var offered: NearbyActivity?
        var reported: NearbyActivity?
        var channel: SocketAddress
        var lastHeard: Double
        var verified = false
        var verifying = false
        var lastAttempt = -Double.infinity
    }

    /// Seconds between two handshake attempts with an unreachable device.
    static let retryInterval = 2.0
    /// Devices remembered at most (as the engine's table): a new one makes
    /// the board forget the least recently heard unverified device, and is
    /// ignored when every device is verified.
    static let capacity = 256
    /// An activity not heard of for this long is withdrawn (the engine's
    /// default: three keep-alives missed).
    let lifetime: Double

    private var devices: [String: Device] = [:]

    init(lifetime: Double = 12) {
        self.lifetime = lifetime
    }

    /// Applies a fresh, authenticated beacon. Returns the events, and a
    /// channel to verify (the caller reports the outcome to `verified`).
    mutating func apply(_ beacon: Beacon, from host: String, now: Double) -> (events: [NearbyEvent], verify: SocketAddress?) {
        let deviceID = hexString(beacon.deviceID)
        let channel = SocketAddress(host: host, port: beacon.channelPort)
        if devices[deviceID] == nil, devices.count >= Self.capacity {
            guard let victim = devices.filter({ !$0.value.verified }).min(by: { $0.value.lastHeard < $1.value.lastHeard })?.key
            else { return ([], nil) }
            devices[victim] = nil
        }
        var device = devices[deviceID] ?? Device(channel: channel, lastHeard: now)
        if device.channel != channel {
            // Another address or port: a restarted or moved device.
            device = Device(offered: device.offered, reported: device.reported, channel: channel, lastHeard: now)
        }
        device.lastHeard = now
        switch beacon.kind {
        case .advert:
            device.offered = NearbyActivity(beacon, from: host).flatMap { Self.expired($0) ? nil : $0 }
        case .withdraw:
            // A withdrawal names the activity it ends, or none: all of them.
            let named = beacon.activity.flatMap { $0.activityID.count == 16 ? uuidString($0.activityID) : nil }
            if named == nil || named == device.offered?.id { device.offered = nil }
        case .solicit:
            break  // asks for adverts; offers nothing
        }
        var verify: SocketAddress?
        if !device.verified, device.offered != nil, !device.verifying, now - device.lastAttempt >= Self.retryInterval {
            device.verifying = true
            device.lastAttempt = now
            verify = channel
        }
        let events = device.verified ? Self.report(&device) : []
        devices[deviceID] = device
        return (events, verify)
    }

    /// The outcome of a handshake with `deviceID`'s channel.
    mutating func verified(_ deviceID: String, at channel: SocketAddress, _ ok: Bool) -> [NearbyEvent] {
        guard var device = devices[deviceID], device.channel == channel else { return [] }
        device.verifying = false
        device.verified = ok
        let events = ok ? Self.report(&device) : []
        devices[deviceID] = device
        return events
    }

    /// Withdraws what went silent or expired.
    mutating func sweep(now: Double) -> [NearbyEvent] {
        var events: [NearbyEvent] = []
        for (id, var device) in devices {
            if now - device.lastHeard > lifetime {
                if let reported = device.reported { events.append(.withdrawn(reported)) }
                devices[id] = nil
            } else if let offered = device.offered, Self.expired(offered) {
                device.offered = nil
                events += Self.report(&device)
                devices[id] = device
            }
        }
        return events
    }

    private static func expired(_ activity: NearbyActivity) -> Bool {
        guard let expiration = activity.expiration else { return false }
        return expiration <= wallMilliseconds()
    }

    /// Brings what was reported up to what is offered.
    private static func report(_ device: inout Device) -> [NearbyEvent] {
        defer { device.reported = device.offered }
        switch (device.reported, device.offered) {
        case (nil, nil): return []
        case (nil, let new?): return [.available(new)]
        case (let old?, nil): return [.withdrawn(old)]
        case (let old?, let new?):
            if old.id != new.id { return [.withdrawn(old), .available(new)] }
            return old == new ? [] : [.updated(new)]
        }
    }
}
