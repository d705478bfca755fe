import FoundationEssentials
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// Before `continue` knows an activity's type it listens to the account's
/// beacons for it: the type decides what the tool declares. The beacon port
/// is released again before the engine takes it.
enum ActivityFinder {
    /// Main-thread state the receive thread reaches through queued jobs.
    private final class Search: @unchecked Sendable {
        // @unchecked: both fields are used only by jobs of the main
        // thread's queue and by the main thread itself.
        var found: NearbyActivity?
        var loop: MainLoop?
    }

    /// The activity once its beacon arrives; nil when interrupted.
    /// - Throws: 4609 when it is not offered in time.
    static func find(_ id: UUID, config: BeaconTransportConfig, account: AccountKey, device: DeviceIdentity,
                     until deadline: Double, output: Output) throws -> NearbyActivity? {
        let queue = try HostQueue()
        let loop = MainLoop([queue])
        let search = Search()
        search.loop = loop
        let wanted = id.uuidString
        let scanner = try BeaconScanner(config: config, account: account, ownDeviceID: device.idBytes) { beacon, from in
            guard let activity = NearbyActivity(beacon, from: from.host), activity.id == wanted else { return }
            queue.post {
                guard search.found == nil else { return }
                search.found = activity
                search.loop?.stop()
            }
        }
        defer { scanner.stop() }
        // Ask the devices nearby to announce now rather than at their next keep-alive.
        let solicitation = Beacon.solicitation(deviceID: device.idBytes, deviceName: device.name, role: device.role)
        if let packet = try? BeaconCodec.seal(solicitation, key: account.derived.beaconKey) { scanner.send(packet) }
        output.note("Looking for activity \(wanted) (\(NetworkOptions.describe(config, port: scanner.port)))…")
        let end = loop.run(timeout: max(0, deadline - monotonicSeconds()))
        search.loop = nil
        if let found = search.found { return found }
        if case .interrupted = end { return nil }
        throw HandoffError(.connectionUnavailable,
            "no device of account \(account.id) offered activity \(wanted) in time: `handoff nearby` lists what is offered, "
                + "`handoff doctor` checks the network")
    }
}
