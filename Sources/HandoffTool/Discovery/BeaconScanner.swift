import HandoffContinuity
import HandoffModel

/// Hears the account's beacons directly from the library's beacon
/// transport: opens each packet with the account's beacon key, drops this
/// device's own beacons and what the replay guard refuses, and counts what
/// it drops by reason, so `doctor` can tell "nothing arrives" from "packets
/// arrive that another account sealed", a second copy of a beacon (the
/// other address family of a dual-stack link) from a replay, and both from
/// a clock that is off.
final class BeaconScanner: Sendable {
    /// A device whose authentic beacons carry a timestamp outside the
    /// replay guard's window.
    struct StaleSender: Sendable, Equatable {
        var deviceID: String
        var name: String
        var host: String
        /// The sender's clock minus ours, in milliseconds, from its latest
        /// stale beacon: positive when the sender is ahead.
        var skewMilliseconds: Int64
    }

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
        /// Copies of a beacon accepted recently: the same beacon over the
        /// other address family, or as unicast answer and multicast. Normal.
        var duplicates = 0
        /// Authentic beacons older than one already accepted from that
        /// device and not a copy of a recent one: re-sent.
        var replays = 0
        /// Authentic beacons whose timestamp is outside the window: a clock
        /// is off (or a beacon captured long ago is re-sent).
        var stale = 0
        /// Where foreign packets came from (the first few).
        var foreignSources: [String] = []
        /// Who replayed beacons came from: "NAME from HOST" (the first few).
        var replaySources: [String] = []
        /// Devices whose beacons were stale (the first few).
        var staleSenders: [StaleSender] = []
    }

    /// Sources and senders remembered per kind, at most.
    static let sourcesKept = 8

    private let transport: BeaconTransport
    private let tally: Locked<Counts>
    /// The clock window beacons are checked against, in seconds.
    let window: Double

    /// Starts listening; `deliver` runs on the transport's receive thread
    /// with each accepted beacon, `copy` (when given) with each duplicate
    /// (where it came from tells the sender's address in another family).
    init(config: BeaconTransportConfig, account: AccountKey, ownDeviceID: [UInt8],
         copy: (@Sendable (Beacon, UDPAddress) -> Void)? = nil,
         deliver: @escaping @Sendable (Beacon, UDPAddress) -> Void) throws(HandoffError) {
        let key = account.derived.beaconKey
        let replay = ReplayGuard()
        window = replay.window
        let tally = Locked(Counts())
        self.tally = tally
        transport = try BeaconTransport(config: config) { packet, from in
            let beacon = BeaconCodec.open(packet, key: key)
            let now = wallMilliseconds()
            let verdict: ReplayGuard.Verdict? = tally.withLock { counts in
                counts.packets += 1
                guard let beacon else {
                    counts.foreign += 1
                    Self.remember(from.host, in: &counts.foreignSources)
                    return nil
                }
                if beacon.deviceID == ownDeviceID {
                    counts.own += 1
                    return nil
                }
                let verdict = replay.check(beacon, nowMilliseconds: now)
                switch verdict {
                case .accepted:
                    counts.accepted += 1
                case .duplicate:
                    counts.duplicates += 1
                case .replay:
                    counts.replays += 1
                    Self.remember("\(beacon.deviceName) from \(from.host)", in: &counts.replaySources)
                case .stale:
                    counts.stale += 1
                    let skew = beacon.timestamp >= now ? Int64(clamping: beacon.timestamp - now)
                        : -Int64(clamping: now - beacon.timestamp)
                    let sender = StaleSender(deviceID: hexString(beacon.deviceID), name: beacon.deviceName,
                                             host: from.host, skewMilliseconds: skew)
                    if let index = counts.staleSenders.firstIndex(where: { $0.deviceID == sender.deviceID }) {
                        counts.staleSenders[index] = sender
                    } else if counts.staleSenders.count < Self.sourcesKept {
                        counts.staleSenders.append(sender)
                    }
                }
                return verdict
            }
            guard let beacon else { return }
            if verdict == .accepted {
                deliver(beacon, from)
            } else if verdict == .duplicate {
                copy?(beacon, from)
            }
        }
    }

    private static func remember(_ source: String, in list: inout [String]) {
        if list.count < sourcesKept, !list.contains(source) { list.append(source) }
    }

    var counts: Counts { tally.withLock { $0 } }
    var port: UInt16 { transport.port }
    var transportStats: BeaconTransportStats { transport.stats }

    func stop() { transport.stop() }

    /// Sends a sealed packet on the transport's paths (a solicitation).
    func send(_ packet: [UInt8]) { transport.send(packet) }
}
