import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// Watches what the account's other devices offer, on the main thread:
/// a `BeaconScanner` feeds a `NearbyBoard`; new devices are verified by a
/// channel handshake on a small pool, within the engine's rate limits
/// (docs/PROTOCOL.md §5 "Bounds"); a timer withdraws what went
/// silent. Events reach `onEvent`; a device whose beacons arrive but whose
/// channel cannot be reached reaches `onUnreachable`, once per address, so
/// discovery never fails silently.
final class NearbyWatcher {
    var onEvent: (NearbyEvent) -> Void = { _ in }
    var onUnreachable: (_ deviceName: String, _ channel: SocketAddress, _ error: HandoffError) -> Void = { _, _, _ in }

    let scanner: BeaconScanner
    private var board = NearbyBoard()
    private let queue: HostQueue
    private let account: AccountKey
    private let limits: ChannelLimits
    private let relay: Relay
    private var reportedUnreachable: Set<SocketAddress> = []
    private var sweepTimer: HostQueue.TimerID?
    private let verifier = WorkerPool(threads: 2, queueLimit: 32)
    private var verifyLimit = RateLimiter<String>(perSource: 2, perSourceBurst: 8, overall: 10, overallBurst: 20,
                                                  now: monotonicSeconds())

    /// Lets threads reach the watcher through the main thread's queue
    /// without keeping it alive.
    private final class Relay: @unchecked Sendable {
        // @unchecked: `watcher` is set and read on the main thread only
        // (jobs posted to the queue run there).
        weak var watcher: NearbyWatcher?
    }

    init(config: BeaconTransportConfig, account: AccountKey, device: DeviceIdentity, queue: HostQueue,
         limits: ChannelLimits = ChannelLimits()) throws(HandoffError) {
        let relay = Relay()
        self.relay = relay
        self.queue = queue
        self.account = account
        self.limits = limits
        scanner = try BeaconScanner(config: config, account: account, ownDeviceID: device.idBytes) { beacon, from in
            queue.post { relay.watcher?.heard(beacon, from: from) }
        }
        relay.watcher = self
        scheduleSweep()
    }

    deinit {
        stop()
    }

    func stop() {
        scanner.stop()
        verifier.stop(waiting: 0)
        if let sweepTimer { queue.cancel(sweepTimer) }
        sweepTimer = nil
    }

    private func heard(_ beacon: Beacon, from: UDPAddress) {
        let (events, verify) = board.apply(beacon, from: from.host, now: monotonicSeconds())
        events.forEach(onEvent)
        if let verify { startVerifying(hexString(beacon.deviceID), beacon.deviceName, at: verify) }
    }

    private func startVerifying(_ deviceID: String, _ deviceName: String, at channel: SocketAddress) {
        let (relay, queue, account, limits) = (self.relay, self.queue, self.account, self.limits)
        let submitted = verifyLimit.admit(channel.host, now: monotonicSeconds()) && verifier.submit {
            let error = ChannelProbe.handshake(channel, account: account, limits: limits)
            queue.post { relay.watcher?.finishedVerifying(deviceID, deviceName, at: channel, error) }
        }
        // Not tried now (rate limit, full queue): asked again by a later beacon.
        if !submitted { _ = board.verified(deviceID, at: channel, false) }
    }

    private func finishedVerifying(_ deviceID: String, _ deviceName: String, at channel: SocketAddress, _ error: HandoffError?) {
        board.verified(deviceID, at: channel, error == nil).forEach(onEvent)
        if reportedUnreachable.count >= 256 { reportedUnreachable.removeAll() }
        if let error, reportedUnreachable.insert(channel).inserted {
            onUnreachable(deviceName, channel, error)
        }
    }

    private func scheduleSweep() {
        let relay = self.relay
        sweepTimer = queue.schedule(after: 1) { relay.watcher?.sweep() }
    }

    private func sweep() {
        board.sweep(now: monotonicSeconds()).forEach(onEvent)
        scheduleSweep()
    }
}
