// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import CLinux
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Beacons heard from the account's other devices (PROTOCOL §5):
/// authenticated, checked against replays, answered when they solicit,
/// and turned into the remote table's devices and activities, each new
/// device verified on its channel first.
extension ContinuityEngine {
    /// Hands datagrams that are pairing beacons by size and magic
    /// (docs/PROTOCOL.md §9) to `handler`, on the beacon receive thread,
    /// instead of dropping them; the handler bounds its own work. nil stops.
    public func routePairingBeacons(to handler: (@Sendable ([UInt8], String) -> Void)?) {
        pairingBeacons.withLock { $0 = handler }
    }

    /// One datagram from the transport (internal: tests feed it directly).
    func received(_ packet: [UInt8], from: UDPAddress) {
        if packet.count == PairingBeacon.size, packet.starts(with: PairingBeacon.magic),
           let handler = pairingBeacons.withLock({ $0 }) {
            handler(packet, from.host)
            return
        }
        receive(packet, host: from.host, solicitor: from)
    }

    /// A beacon packet heard from `host` (an address, or the text of
    /// `path`, the device's address on another path); `solicitor`: where a
    /// UDP answer goes (nil on another path: every beacon goes there anyway).
    func receive(_ packet: [UInt8], host: String, path: PeerPathAddress? = nil, solicitor: UDPAddress?) {
        // Anything that does not authenticate is dropped here, silently;
        // so is everything before an application is attached (the beacon
        // is not consumed: its next copy still counts).
        guard let endpoint = endpoint else { return }
        guard let beacon = BeaconCodec.open(packet, key: keys.beaconKey) else {
            state.withLock { s in
                s.beacons.packets += 1
                s.beacons.countForeign(from: host)
            }
            return
        }
        guard beacon.deviceID != configuration.device.idBytes else {
            state.withLock { s in
                s.beacons.packets += 1
                s.beacons.own += 1
            }
            return
        }
        let now = wallMilliseconds()
        let verdict = replay.check(beacon, nowMilliseconds: now)
        state.withLock { s in
            s.beacons.packets += 1
            s.beacons.count(verdict, beacon, from: host, nowMilliseconds: now)
            // The other family's copy: its address, not a replay.
            if verdict == .duplicate { s.remotes.heardCopy(of: beacon, from: host, over: path) }
        }
        guard verdict == .accepted else { return }
        if beacon.kind == .solicit {
            // Its sender's address is noted (only that: a solicitor may
            // be a second process of a device), so a FETCH from it is
            // recognised by the settings' Offer=false (docs/agent.md §11).
            state.withLock { $0.remotes.heardSolicitation(from: beacon, host: host) }
            answer(solicitor, host: host)
            return
        }
        if beacon.kind == .presence, beacon.leaving {
            left(hex(beacon.deviceID), endpoint: endpoint)
            for path in configuration.paths { path.peerLeft(beacon.deviceID) }
            return
        }
        let audience = endpoint.audience
        let (changes, verify, renamed, roster) = state.withLock { s in
            let now = monotonicSeconds()
            let id = hex(beacon.deviceID)
            let nameBefore = s.remotes.entries[id].flatMap { $0.verified ? $0.name : nil }
            let applied = s.remotes.apply(beacon, from: host, over: path, audience: audience, ownRole: configuration.device.role,
                                          now: now)
            let renamed = nameBefore != nil && nameBefore != s.remotes.entries[id]?.name
            // A rename is kept in the roster too: offline, it still shows.
            var roster: DeviceRoster?
            if renamed, let entry = s.remotes.entries[id], entry.verified,
               s.roster.saw(DeviceRoster.Record(id: id, name: entry.name, role: entry.role, lastSeen: wallMilliseconds())) {
                roster = nextRoster(&s)
            }
            s.roster.heard(hex(beacon.deviceID), at: wallMilliseconds())
            // The next sweep moved (a new device: sooner; one heard again:
            // maybe later): the scheduler's timer follows, without waking anyone.
            s.sweepDue = s.remotes.nextSweep(lifetime: configuration.remoteLifetime,
                                             presenceLifetime: configuration.presenceLifetime, now: now,
                                             wallMilliseconds: wallMilliseconds())
            rearm(&s)
            return (applied.0, applied.1, renamed, roster)
        }
        changes.forEach(endpoint.remoteActivityChanged)
        if let roster { persist(roster) }
        if renamed { devicesChanged() }
        if let channel = verify { startVerifying(hex(beacon.deviceID), at: channel) }
    }

    /// A device said it is going away: offline at once (what it offered
    /// withdrawn), its last seen kept in the roster.
    func left(_ deviceID: String, endpoint: any ContinuityEndpoint) {
        let (changes, roster) = state.withLock { s in
            let (changes, entry) = s.remotes.left(deviceID)
            guard entry?.verified == true else { return (changes, DeviceRoster?.none) }
            s.roster.heard(deviceID, at: wallMilliseconds())
            s.sweepDue = s.remotes.nextSweep(lifetime: configuration.remoteLifetime,
                                             presenceLifetime: configuration.presenceLifetime, now: monotonicSeconds(),
                                             wallMilliseconds: wallMilliseconds())
            rearm(&s)
            return (changes, nextRoster(&s))
        }
        changes.forEach(endpoint.remoteActivityChanged)
        if let roster {
            persist(roster)
            devicesChanged()
        }
    }

    /// Proves a newly seen device is there now (its channel authenticates
    /// with the account's PSK) before reporting what it offers; the
    /// connection is kept warm for the first fetch. Runs on the verifier
    /// pool, within the verification rate limits; what does not fit is
    /// deferred (tried again on a later beacon).
    private func startVerifying(_ deviceID: String, at channel: SocketAddress) {
        let admitted = state.withLock { s in
            let ok = s.verifyLimit.admit(channel.host, now: monotonicSeconds())
            if !ok {
                s.counters.verificationsLimited += 1
                s.remotes.deferred(deviceID, at: channel)
            }
            return ok
        }
        guard admitted else { return }
        let client = self.client
        let submitted = verifier.submit { [weak self] in
            let outcome = client.verify(channel)
            let failure: HandoffError? = if case .failure(let e) = outcome { e } else { nil }
            guard let self else { return }
            let (changes, endpoint, retry, roster, online) = self.state.withLock { s in
                s.counters.verifications += 1
                let now = monotonicSeconds()
                let wasOnline = s.remotes.entries[deviceID]?.verified == true
                let changes = s.remotes.verified(deviceID, at: channel, failure: failure,
                                                 revision: try? outcome.get(), now: now)
                var roster: DeviceRoster?
                if let entry = s.remotes.entries[deviceID], entry.verified,
                   s.roster.saw(DeviceRoster.Record(id: deviceID, name: entry.name, role: entry.role,
                                                    lastSeen: Self.wall(of: entry.lastHeard, now: now, wall: wallMilliseconds()))) {
                    roster = self.nextRoster(&s)
                }
                let online = !wasOnline && s.remotes.entries[deviceID]?.verified == true
                return (changes, s.endpoint, failure == nil ? nil : s.remotes.untriedChannel(deviceID, now: now), roster, online)
            }
            if let endpoint { changes.forEach(endpoint.remoteActivityChanged) }
            if let roster { self.persist(roster) }
            if online { self.devicesChanged() }
            if let retry { self.startVerifying(deviceID, at: retry) }
        }
        if !submitted {
            state.withLock { s in
                s.counters.verificationsLimited += 1
                s.remotes.deferred(deviceID, at: channel)
            }
        }
    }
}
