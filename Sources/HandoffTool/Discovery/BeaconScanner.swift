import HandoffContinuity
import HandoffModel

/// Hears the account's beacons directly from the library's beacon
/// transport: opens each packet with the account's beacon key, drops this
/// device's own beacons and replays, and counts what it drops, so `doctor`
/// can tell "nothing arrives" from "packets arrive that another account
/// sealed".
final class BeaconScanner: Sendable {
    struct Counts: Sendable, Equatable {
        /// Datagrams of a beacon's size that arrived.
        var packets = 0
        /// Beacons of the account from other devices, accepted.
        var accepted = 0
        /// Packets that do not open under this account's key: another
        /// account's devices, or not libhandoff at all.
        var foreign = 0
        /// Beacons carrying this device's own id: our own (multicast loops
        /// back) or another process using this device's identity.
        var own = 0
        /// Authentic beacons refused as stale or replayed.
        var replayed = 0
        /// Where foreign packets came from (the first few).
        var foreignSources: [String] = []
    }

    private let transport: BeaconTransport
    private let tally: Locked<Counts>

    /// Starts listening; `deliver` runs on the transport's receive thread
    /// with each accepted beacon.
    init(config: BeaconTransportConfig, account: AccountKey, ownDeviceID: [UInt8],
         deliver: @escaping @Sendable (Beacon, UDPAddress) -> Void) throws(HandoffError) {
        let key = account.derived.beaconKey
        let replay = ReplayGuard()
        let tally = Locked(Counts())
        self.tally = tally
        transport = try BeaconTransport(config: config) { packet, from in
            let beacon = BeaconCodec.open(packet, key: key)
            let verdict: Verdict = tally.withLock { counts in
                counts.packets += 1
                guard let beacon else {
                    counts.foreign += 1
                    if counts.foreignSources.count < 8, !counts.foreignSources.contains(from.host) {
                        counts.foreignSources.append(from.host)
                    }
                    return .drop
                }
                if beacon.deviceID == ownDeviceID {
                    counts.own += 1
                    return .drop
                }
                guard replay.accept(beacon, nowMilliseconds: wallMilliseconds()) else {
                    counts.replayed += 1
                    return .drop
                }
                counts.accepted += 1
                return .deliver
            }
            if verdict == .deliver, let beacon { deliver(beacon, from) }
        }
    }

    private enum Verdict { case deliver, drop }

    var counts: Counts { tally.withLock { $0 } }
    var port: UInt16 { transport.port }
    var transportStats: BeaconTransportStats { transport.stats }

    func stop() { transport.stop() }

    /// Sends a sealed packet on the transport's paths (a solicitation).
    func send(_ packet: [UInt8]) { transport.send(packet) }
}
