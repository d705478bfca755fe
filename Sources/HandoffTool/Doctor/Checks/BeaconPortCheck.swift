import HandoffContinuity
import HandoffModel

/// Whether the beacon port can be bound, and who else listens on it. The
/// socket stays open for the multicast and listen checks.
enum BeaconPortCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let config = context.beaconConfig
        let port = config.port
        // Counted before doctor's own sockets join them.
        let others = ProcNet.udpSockets(onPort: port)
        let queue = context.queue
        let relay = Relay(context)
        do {
            let ownID = context.device?.idBytes ?? []
            context.scanner = try BeaconScanner(config: config, account: context.beaconAccount, ownDeviceID: ownID,
                                                copy: { beacon, from in queue.post { relay.heardCopy(beacon, from: from) } },
                                                deliver: { beacon, from in queue.post { relay.heard(beacon, from: from) } })
        } catch {
            return [.fail("beacon.port", "cannot receive beacons on UDP port \(port): \(error.message)",
                          todo: "`ss -ulpn 'sport = :\(port)'` shows which program holds it; stop it, or give every device "
                              + "another --beacon-port")]
        }
        var findings = [Finding.ok("beacon.port", "UDP port \(port) is open for beacons")]
        if others > 0 {
            let what = "\(others) other socket(s) on this machine already listen on UDP port \(port) (Handoff apps, or another handoff)"
            if config.multicast && config.peers.isEmpty {
                findings.append(.ok("beacon.port.shared", what + "; multicast beacons reach each of them"))
            } else {
                findings.append(.warn("beacon.port.shared", what + ": a unicast beacon reaches only one of the processes sharing a port",
                                      todo: "give each process on this machine its own --beacon-port and list it in the other devices' --peer"))
            }
        }
        return findings
    }

    /// Carries beacons from the receive thread's jobs to the context.
    private final class Relay: @unchecked Sendable {
        // @unchecked: `context` is used only on the main thread, where the
        // queue's jobs run.
        weak var context: DoctorContext?
        init(_ context: DoctorContext) { self.context = context }

        /// A fresh beacon says where the device's channel is now, over the
        /// family it came by; another channel port means the device
        /// restarted, and its other family's address is stale.
        func heard(_ beacon: Beacon, from: UDPAddress) {
            guard let context else { return }
            let channel = SocketAddress(host: from.host, port: beacon.channelPort)
            let id = hexString(beacon.deviceID)
            var device = context.heard[id] ?? DoctorContext.HeardDevice(name: beacon.deviceName, channels: [:])
            device.name = beacon.deviceName
            if device.channels.values.contains(where: { $0.port != channel.port }) { device.channels = [:] }
            device.channels[AddressFamily(of: channel)] = channel
            context.heard[id] = device
        }

        /// A copy of a fresh beacon (the other family of a dual-stack link)
        /// adds the device's address in that family when none is known; it
        /// never replaces one, as a copy can be re-sent from anywhere (as
        /// the engine's table does).
        func heardCopy(_ beacon: Beacon, from: UDPAddress) {
            guard let context else { return }
            let channel = SocketAddress(host: from.host, port: beacon.channelPort)
            let id = hexString(beacon.deviceID)
            guard var device = context.heard[id], device.channels[AddressFamily(of: channel)] == nil,
                  device.channels.values.allSatisfy({ $0.port == channel.port }) else { return }
            device.channels[AddressFamily(of: channel)] = channel
            context.heard[id] = device
        }
    }
}
