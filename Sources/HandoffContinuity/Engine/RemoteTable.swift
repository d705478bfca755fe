// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime

/// What the other devices of the account offer, built from their beacons,
/// as one audience is offered it (PROTOCOL §7 "Gating"): nothing at all on a
/// send-only device, nothing expired, then `ActivityGate` (same team and a
/// declared type, or else only a web page; everything for an observer).
///
/// A device is reported only once it is *verified*: its channel completed a
/// TLS handshake with the account's PSK. A beacon proves the sender held the
/// beacon key at some point; the handshake proves the device is there now,
/// so replayed beacons of a device that is gone show nothing.
struct RemoteTable {
    /// The path a beacon arrived over: each path's copy names the channel
    /// reachable over it. `path`: another `PeerPath` (the relay, PROTOCOL
    /// §11), the channel then a stream it dials to the device's address there.
    enum Family: Sendable, Hashable {
        case ipv4, ipv6
        case path(PeerPathKind)
    }

    struct Entry {
        /// What its latest beacon offers this app.
        var offered: RemoteActivity?
        /// What the host was told it offers.
        var reported: RemoteActivity?
        /// When the offered activity expires, ms since the Unix epoch.
        var expiration: UInt64?
        /// Where its channel listens, per family: a beacon's source address
        /// (an IPv6 link-local one with its scope) and channel port.
        var channels: [Family: SocketAddress] = [:]
        /// When a beacon last came over each path (monotonic): a direct
        /// path is tried before the relay only while it is heard.
        var heardOver: [Family: Double] = [:]
        /// The channel whose handshake succeeded; fetches go there. Nil
        /// until the device is verified.
        var verifiedChannel: SocketAddress?
        /// The protocol revision its verified channel agreed on.
        var revision: Int?
        /// The channel being verified now.
        var verifying: SocketAddress?
        var lastAttempt = -Double.infinity
        /// Failed verification rounds in a row (each tries every family
        /// known): each doubles the wait before the next.
        var failures = 0
        /// Families whose channel failed in the current round.
        var failedFamilies: Set<Family> = []
        var lastHeard: Double
        /// The device's name and role, as its latest beacon gives them.
        var name = ""
        var role = DeviceRole.full
        /// The latest failed verification, until one succeeds.
        var lastFailure: VerificationFailure?
        /// Which advert is current and which it replaced: two senders
        /// claiming one device ID must not make it alternate.
        var succession = AdvertSuccession()

        var verified: Bool { verifiedChannel != nil }
    }

    /// Why the device's channel did not verify, where, and when
    /// (monotonic seconds): STATUS `lastError`, `handoff devices`.
    struct VerificationFailure: Equatable {
        var channel: SocketAddress
        var error: HandoffError
        var at: Double
    }

    /// Seconds between verification attempts of one device; doubled after
    /// each failure, up to `maxRetryInterval`.
    static let retryInterval = 2.0
    static let maxRetryInterval = 32.0
    /// Devices remembered by default.
    static let defaultCapacity = 256

    /// At most this many devices are remembered; a new one then makes the
    /// table forget the least recently heard unverified device, or, when
    /// every device is verified, the least recently heard one.
    let capacity: Int
    private(set) var entries: [String: Entry] = [:]
    /// The person's settings: what they refuse (paused, a device not
    /// accepted, a muted app) is never reported (`shown`).
    private(set) var settings = HandoffSettings.defaults

    init(capacity: Int = RemoteTable.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    static func family(of channel: SocketAddress) -> Family {
        if let path = channel.path { return .path(path.kind) }
        return channel.host.contains(":") ? .ipv6 : .ipv4
    }

    /// The channel a beacon from `host` (or the device at `path`) announces.
    static func channel(host: String, path: PeerPathAddress?, port: UInt16) -> SocketAddress {
        path.map { SocketAddress(path: $0, port: port) } ?? SocketAddress(host: host, port: port)
    }

    /// The device that offers an activity (as reported), and where to reach it.
    func channel(offering activityID: ActivityID) -> SocketAddress? {
        entries.values.first { $0.reported?.activityID == activityID }?.verifiedChannel
    }

    /// Where to reach the device that offers an activity, in the order to
    /// try (PROTOCOL §11: a direct path first, the relay the fallback,
    /// chosen for each continue): the direct channels heard within
    /// `recent` seconds (the verified one first), then the other paths'
    /// (by kind), then
    /// the verified channel if it is neither (silent lately). Empty
    /// when no verified device offers it.
    func channels(offering activityID: ActivityID, now: Double, recent: Double) -> [SocketAddress] {
        guard let entry = entries.values.first(where: { $0.reported?.activityID == activityID }),
              let verified = entry.verifiedChannel else { return [] }
        let direct = [Family.ipv4, .ipv6].compactMap { family -> SocketAddress? in
            guard let channel = entry.channels[family], now - (entry.heardOver[family] ?? -.infinity) <= recent else { return nil }
            return channel
        }
        let ordered = direct.filter { $0 == verified } + direct.filter { $0 != verified }
        var out = ordered
        out += entry.channels.compactMap { family, channel -> (PeerPathKind, SocketAddress)? in
            guard case .path(let kind) = family else { return nil }
            return (kind, channel)
        }.sorted { $0.0.preference < $1.0.preference }.map(\.1)
        // Verified, but not heard that way lately: the last resort.
        if !out.contains(verified) { out.append(verified) }
        return out
    }

    /// Seconds to wait after an attempt that was followed by `failures` failures.
    static func retryDelay(failures: Int) -> Double {
        min(maxRetryInterval, retryInterval * Double(1 << min(max(0, failures - 1), 16)))
    }

    /// Applies a fresh, authenticated beacon from another device, heard from
    /// `host`. Returns the changes to report, and a channel to verify when
    /// the device is not verified yet (the caller verifies it, then calls
    /// `verified`, or `deferred` when it could not try now).
    mutating func apply(_ beacon: Beacon, from host: String, over path: PeerPathAddress? = nil, manifest: Manifest,
                        ownRole: DeviceRole, now: Double) -> (changes: [RemoteActivityChange], verify: SocketAddress?) {
        apply(beacon, from: host, over: path, audience: .application(manifest), ownRole: ownRole, now: now)
    }

    /// `apply`, gating for `audience` (an observer: every team and type).
    /// `path`: the device's address when the beacon came over another
    /// `PeerPath` (`host` is then its text).
    mutating func apply(_ beacon: Beacon, from host: String, over path: PeerPathAddress? = nil, audience: ActivityAudience,
                        ownRole: DeviceRole, now: Double) -> (changes: [RemoteActivityChange], verify: SocketAddress?) {
        let deviceID = hex(beacon.deviceID)
        // PROTOCOL §5 "Receiving" step 7: a keep-alive of an activity the
        // device has since replaced, or a withdrawal of one, while the
        // replacement is still heard, comes from a second sender with this
        // device ID (or is late): it changes nothing, not even the address.
        if let entry = entries[deviceID], entry.succession.isStale(beacon, now: now) { return ([], nil) }
        let channel = Self.channel(host: host, path: path, port: beacon.channelPort)
        let family = Self.family(of: channel)
        var changes: [RemoteActivityChange] = []
        if entries[deviceID] == nil { changes += makeRoom() }
        var entry = entries[deviceID] ?? Entry(lastHeard: now)
        if entry.channels[family] != channel {
            entry.channels[family] = channel
            if entry.channels.values.contains(where: { $0.port != channel.port }) {
                // Another channel port: the device restarted; its other
                // family's address is stale until heard again.
                entry.channels = [family: channel]
            }
            // A verified channel that moved (or a restarted device): check
            // again. The other family's copy arriving first changes nothing.
            if let verified = entry.verifiedChannel, entry.channels[Self.family(of: verified)] != verified {
                entry.verifiedChannel = nil
                entry.revision = nil
                entry.verifying = nil
                entry.failures = 0
                entry.lastAttempt = -.infinity
            }
        }
        entry.lastHeard = now
        entry.heardOver[family] = now
        entry.name = beacon.deviceName
        entry.role = beacon.role
        switch beacon.kind {
        case .advert:
            // Rule 1 (PROTOCOL §7 "Gating") for the whole device, 2 in `remote`, 3–5 per audience.
            let offered = ownRole == .sendOnly ? nil
                : Self.remote(beacon, deviceID: deviceID, firstSeen: entry.offered).flatMap { ActivityGate.offer($0, to: audience) }
            entry.offered = offered
            entry.expiration = offered == nil ? nil : beacon.activity?.expiration
            entry.succession.advertised(beacon, now: now)
        case .withdraw:
            // A withdrawal names the activity it ends (or none: all of them);
            // a late one for an activity already replaced changes nothing.
            let named = beacon.activity.map(\.activityID).flatMap { $0.count == 16 ? ActivityID(bytes: $0) : nil }
            if named == nil || named == entry.offered?.activityID {
                entry.offered = nil
                entry.expiration = nil
            }
            entry.succession.withdrawn(beacon.activity?.activityID)
        case .solicit, .presence:
            break
        }
        // Verified before it is reported, or shown online: a device that
        // offers this app something, or says it is here (a presence beacon).
        var verify: SocketAddress?
        if !entry.verified, shown(entry.offered) != nil || beacon.kind == .presence, entry.verifying == nil,
           now - entry.lastAttempt >= Self.retryDelay(failures: entry.failures) {
            // The family it was heard over, unless that one already failed
            // this round and the other is known.
            let target = entry.failedFamilies.contains(family)
                ? entry.channels.first { !entry.failedFamilies.contains($0.key) }?.value ?? channel : channel
            entry.verifying = target
            entry.lastAttempt = now
            verify = target
        }
        if entry.verified { changes += report(&entry) }
        entries[deviceID] = entry
        return (changes, verify)
    }

    /// A copy of an accepted beacon heard again (over the other family):
    /// fills in the device's address for that family when it has none, so
    /// a later verification can use it; never replaces an address (a copy
    /// can be replayed from anywhere) and changes nothing else.
    mutating func heardCopy(of beacon: Beacon, from host: String, over path: PeerPathAddress? = nil,
                            now: Double = monotonicSeconds()) {
        let deviceID = hex(beacon.deviceID)
        let channel = Self.channel(host: host, path: path, port: beacon.channelPort)
        let family = Self.family(of: channel)
        guard var entry = entries[deviceID], entry.channels.values.allSatisfy({ $0.port == beacon.channelPort }) else { return }
        if entry.channels[family] == nil { entry.channels[family] = channel }
        // Heard over this path now, if it is the path known for it.
        if entry.channels[family]?.host == host { entry.heardOver[family] = now }
        entries[deviceID] = entry
    }

    /// The outcome of verifying `deviceID` at `channel`.
    mutating func verified(_ deviceID: String, at channel: SocketAddress, _ ok: Bool) -> [RemoteActivityChange] {
        verified(deviceID, at: channel, failure: ok ? nil : HandoffError(.handoffFailed, "the handshake failed"), now: 0)
    }

    /// The outcome of verifying `deviceID` at `channel`: `failure` nil when
    /// its handshake succeeded; a failure is kept until one succeeds.
    mutating func verified(_ deviceID: String, at channel: SocketAddress, failure: HandoffError?,
                           revision: Int? = nil, now: Double) -> [RemoteActivityChange] {
        guard var entry = entries[deviceID], entry.verifying == channel else { return [] }
        entry.verifying = nil
        var changes: [RemoteActivityChange] = []
        if let failure {
            entry.lastFailure = VerificationFailure(channel: channel, error: failure, at: now)
            entry.failedFamilies.insert(Self.family(of: channel))
            if entry.channels.keys.allSatisfy(entry.failedFamilies.contains) {
                entry.failures += 1
                entry.failedFamilies = []
            }
        } else {
            entry.verifiedChannel = channel
            entry.revision = revision
            entry.failures = 0
            entry.failedFamilies = []
            entry.lastFailure = nil
            changes = report(&entry)
        }
        entries[deviceID] = entry
        return changes
    }

    /// After a failed attempt: the device's channel over a family not yet
    /// tried this round, to verify at once (a channel may listen on one
    /// family only, or a path may carry only one); nil when none is left.
    mutating func untriedChannel(_ deviceID: String, now: Double) -> SocketAddress? {
        guard var entry = entries[deviceID], !entry.verified, entry.verifying == nil, !entry.failedFamilies.isEmpty,
              let next = entry.channels.first(where: { !entry.failedFamilies.contains($0.key) })?.value else { return nil }
        entry.verifying = next
        entry.lastAttempt = now
        entries[deviceID] = entry
        return next
    }

    /// A verification that was not tried (rate limit, full queue): the next
    /// beacon after `retryInterval` asks again; not counted as a failure.
    mutating func deferred(_ deviceID: String, at channel: SocketAddress) {
        guard var entry = entries[deviceID], entry.verifying == channel else { return }
        entry.verifying = nil
        entries[deviceID] = entry
    }

    /// Forgets one device when the table is full: the least recently heard
    /// unverified one, else the least recently heard. Returns the
    /// withdrawal of what it had reported.
    private mutating func makeRoom() -> [RemoteActivityChange] {
        guard entries.count >= capacity else { return [] }
        let victim = entries.filter { !$0.value.verified }.min { $0.value.lastHeard < $1.value.lastHeard }?.key
            ?? entries.min { $0.value.lastHeard < $1.value.lastHeard }?.key
        guard let victim, let entry = entries.removeValue(forKey: victim) else { return [] }
        return entry.reported.map { [.withdrawn($0)] } ?? []
    }

    /// Withdraws what has not been heard of for `lifetime` or has expired.
    mutating func sweep(now: Double, lifetime: Double, wallMilliseconds: UInt64) -> [RemoteActivityChange] {
        sweep(now: now, lifetime: lifetime, presenceLifetime: lifetime, wallMilliseconds: wallMilliseconds).changes
    }

    /// Withdraws what a device offers once it has not been heard of for
    /// `lifetime` or has expired, and forgets a device not heard of for
    /// `presenceLifetime` (at least `lifetime`): it is offline then. Returns
    /// the changes to report and the devices forgotten.
    mutating func sweep(now: Double, lifetime: Double, presenceLifetime: Double,
                        wallMilliseconds: UInt64) -> (changes: [RemoteActivityChange], gone: [String: Entry]) {
        var changes: [RemoteActivityChange] = []
        var gone: [String: Entry] = [:]
        for (id, var entry) in entries {
            let silent = now - entry.lastHeard
            if silent > max(lifetime, presenceLifetime) {
                if let reported = entry.reported { changes.append(.withdrawn(reported)) }
                entries[id] = nil
                gone[id] = entry
            } else if silent > lifetime, entry.offered != nil || entry.reported != nil {
                entry.offered = nil
                entry.expiration = nil
                changes += report(&entry)
                entries[id] = entry
            } else if let expiration = entry.expiration, expiration <= wallMilliseconds {
                entry.offered = nil
                entry.expiration = nil
                entry.succession.withdrawn(nil)
                changes += report(&entry)
                entries[id] = entry
            }
        }
        return (changes, gone)
    }

    /// A device that said it is going away (a leaving presence beacon):
    /// forgotten at once, what it offered withdrawn. Returns the changes
    /// and its entry, nil when it was not known.
    mutating func left(_ deviceID: String) -> (changes: [RemoteActivityChange], entry: Entry?) {
        guard let entry = entries.removeValue(forKey: deviceID) else { return ([], nil) }
        return (entry.reported.map { [.withdrawn($0)] } ?? [], entry)
    }

    /// Brings what was reported up to what is offered and the settings let through.
    private func report(_ entry: inout Entry) -> [RemoteActivityChange] {
        let shown = shown(entry.offered)
        defer { entry.reported = shown }
        return Self.changes(from: entry.reported, to: shown)
    }

    /// What the settings let through of an offered activity.
    private func shown(_ offered: RemoteActivity?) -> RemoteActivity? {
        offered.flatMap { settings.shows($0) ? $0 : nil }
    }

    /// New settings: withdraws what they now refuse and reports what they
    /// now let through (of verified devices; an unverified one is verified
    /// at its next beacon).
    mutating func apply(settings new: HandoffSettings) -> [RemoteActivityChange] {
        settings = new
        var changes: [RemoteActivityChange] = []
        for (id, var entry) in entries where entry.verified || entry.reported != nil {
            changes += report(&entry)
            entries[id] = entry
        }
        return changes
    }

    /// Whether a connection from `host` may be served (PROTOCOL §7
    /// "Gating"): not while paused, nor from an address a device that is
    /// not offered to was heard from. The channel does not say which
    /// device connects, so its source address is matched against the
    /// addresses beacons came from; two devices behind one address are
    /// refused together.
    func serves(host: String) -> Bool {
        guard settings.offersAnything else { return false }
        let peer = Self.comparable(host)
        return !entries.contains { id, entry in
            !settings.offers(to: id) && entry.channels.values.contains { Self.comparable($0.host) == peer }
        } && !solicitors.contains { id, hosts in !settings.offers(to: id) && hosts.contains(peer) }
    }

    /// Where each device's solicitations came from (comparable hosts): a
    /// device that only asks (`handoff continue`, an app that offers
    /// nothing) is never in `entries`, and its FETCH follows its
    /// solicitation. Bounded like `entries`; a full map starts again.
    private(set) var solicitors: [String: Set<String>] = [:]

    mutating func heardSolicitation(from beacon: Beacon, host: String) {
        let id = hex(beacon.deviceID)
        if solicitors[id] == nil, solicitors.count >= capacity { solicitors = [:] }
        var hosts = solicitors[id] ?? []
        if hosts.count >= 4 { hosts = [] }
        hosts.insert(Self.comparable(host))
        solicitors[id] = hosts
    }

    /// An address as both sides see it: an IPv4-mapped IPv6 address (a
    /// dual-stack listener's view) as IPv4, no zone, lower case.
    static func comparable(_ host: String) -> String {
        var h = host.lowercased()
        if let percent = h.firstIndex(of: "%") { h = String(h[..<percent]) }
        if h.hasPrefix("::ffff:"), h.dropFirst(7).contains(".") { h = String(h.dropFirst(7)) }
        return h
    }

    /// The activity an advert offers, ungated (any team and type; its web
    /// page only if http(s)); nil when its id is malformed or it expired.
    static func remote(_ beacon: Beacon, deviceID: String, firstSeen previous: RemoteActivity?) -> RemoteActivity? {
        guard let a = beacon.activity, a.activityID.count == 16 else { return nil }
        if let expiration = a.expiration, expiration <= wallMilliseconds() { return nil }
        let id = ActivityID(bytes: a.activityID)
        return RemoteActivity(deviceID: deviceID, deviceName: beacon.deviceName, activityID: id,
                              activityType: a.activityType, title: a.title,
                              webpageURL: ActivityGate.webPage(a.webpageURL.flatMap(URLReference.init(string:))),
                              supportsContinuationStreams: a.supportsContinuationStreams,
                              firstSeen: previous?.activityID == id ? previous!.firstSeen : Timestamp(),
                              teamIdentifier: a.teamIdentifier, bundleIdentifier: a.bundleIdentifier,
                              expirationDate: a.expiration.map { Timestamp(timeIntervalSince1970: Double($0) / 1000) })
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
