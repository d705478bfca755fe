// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import CLinux
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// This device's beacons (PROTOCOL §5): adverts, withdrawals,
/// solicitations and presence, sealed under the account's beacon key and
/// sent on the beacon transport and every other path; and its name in them.
extension ContinuityEngine {
    func send(_ ad: Advertisement, alsoTo solicitor: UDPAddress? = nil) {
        let expirationMS = ad.expirationDate.map { UInt64(max(0, $0.timeIntervalSince1970 * 1000)) }
        if let e = expirationMS, e <= wallMilliseconds() {
            send(withdrawal: ad.activityID)  // expired: no longer offered
            return
        }
        let activity = BeaconActivity(activityID: ad.activityID.bytes, activityType: ad.activityType,
                                      title: ad.title.map { truncateUTF8($0, to: 256) },
                                      teamIdentifier: ad.teamIdentifier, bundleIdentifier: ad.bundleIdentifier,
                                      webpageURL: ad.webpageURL.map(\.absoluteString).flatMap { $0.utf8.count <= 1024 ? $0 : nil },
                                      expiration: expirationMS, supportsContinuationStreams: ad.supportsContinuationStreams)
        seal(kind: .advert, activity: activity, alsoTo: solicitor)
    }

    func send(withdrawal activityID: ActivityID) {
        let activity = BeaconActivity(activityID: activityID.bytes, activityType: "", title: nil, teamIdentifier: "",
                                      bundleIdentifier: "", webpageURL: nil, expiration: nil,
                                      supportsContinuationStreams: false)
        seal(kind: .withdraw, activity: activity)
    }

    func seal(kind: Beacon.Kind, activity: BeaconActivity?, leaving: Bool = false, alsoTo solicitor: UDPAddress? = nil) {
        let now = wallMilliseconds()
        // Strictly increasing, and still so after a restart: receivers drop
        // any sequence they have seen.
        let sequence = state.withLock { s in
            s.lastSequence = max(s.lastSequence + 1, now)
            // Any beacon but a solicitation shows this device is here: the
            // next presence is due an interval after it.
            if kind != .solicit {
                let interval = configuration.presenceInterval
                s.nextPresence = interval > 0 ? monotonicSeconds() + interval : nil
            }
            return s.lastSequence
        }
        let device = configuration.device
        let beacon = Beacon(kind: kind, timestamp: now, sequence: sequence, deviceID: device.idBytes,
                            deviceName: deviceName, role: device.role, channelPort: server.port, activity: activity,
                            leaving: leaving)
        guard let packet = try? BeaconCodec.seal(beacon, key: keys.beaconKey) else { return }
        transport.send(packet)
        if let solicitor { transport.send(packet, to: solicitor) }
        for path in configuration.paths { path.publish(beacon: packet) }
    }

    /// This device's name as its beacons carry it now: the configuration's
    /// until `rename`.
    public var deviceName: String { renamed.withLock { $0 } ?? configuration.device.name }

    /// Renames this device while it runs (the person ran `handoff device
    /// --name`; docs/agent.md §6): the next beacons carry `name`, and one
    /// goes out now on every path (its advert, else a presence), so the
    /// others show the new name within one beacon. False when `name` is
    /// the name already; throws when it breaks §4's rule.
    @discardableResult
    public func rename(to name: String) throws(HandoffError) -> Bool {
        try DeviceIdentity.validateName(name)
        let changed = renamed.withLock { current in
            guard (current ?? configuration.device.name) != name else { return false }
            current = name
            return true
        }
        if changed { announce() }
        return changed
    }

    /// A fresh beacon of what this device is now (its advert, else a
    /// presence), on every path: the relay asks for one when it connects
    /// and when an old gone message stands on this device's topic.
    func announce() {
        let (advert, running) = state.withLock { s in (s.advertisement, !s.stopped) }
        guard running else { return }
        if let advert { send(advert) } else { seal(kind: .presence, activity: nil) }
    }
}
