// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel

/// Who holds this device's beacons: the handoff agent (doctor then reads
/// its figures), or an engine doctor starts (can the port be bound, who
/// else listens on it). The source stays for the multicast and listen
/// checks; the choice is nearby's (`NearbySource`).
enum BeaconPortCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let config = context.beaconConfig
        let port = config.port
        // Counted before doctor's own sockets join them.
        let others = ProcNet.udpSockets(onPort: port)
        let account = context.beaconAccount
        let source: NearbySource
        do {
            let device = try context.device ?? DeviceIdentity.generate(name: "doctor")
            let settings = NetworkOptions.Settings(beacons: config, tailnetSocket: context.tailnetSocket,
                                                   connectTimeout: context.limits.connectTimeout)
            source = try NearbySource(context.arguments, settings: settings, account: account, device: device,
                                      queue: context.queue, deviceOptions: DoctorContext.deviceOptions)
            context.source = source
        } catch let error as HandoffError where error.code == .connectionUnavailable || error.code == .invalidState {
            return [.fail("agent", error.message, todo: tr("start it (`handoff agent`, or `systemctl --user start handoff-agent.socket`), or leave out --agent"))]
        } catch {
            let message = (error as? HandoffError)?.message ?? "\(error)"
            return [.fail("beacon.port", tr("cannot receive beacons on UDP port {port}: {message}", ["port": "\(port)", "message": message]),
                          todo: tr("`ss -ulpn 'sport = :{port}'` shows which program holds it; stop it, or give every device another --beacon-port",
                                   ["port": "\(port)"]))]
        }
        if let agent = source.agent {
            context.before = try? source.status(context.loop)
            let ports = context.before.map {
                " " + tr("(UDP port {port}, channel TCP port {channel})", ["port": "\($0.beaconPort)", "channel": "\($0.channelPort)"])
            } ?? ""
            return [.ok("beacon.port", tr("the handoff agent ({socket}) holds this device's beacons{ports}: doctor reads its figures; --embedded checks with an engine of doctor's own",
                                          ["socket": agent.options.socketPath, "ports": ports]))]
        }
        context.before = try? source.status(context.loop)
        var findings = [Finding.ok("beacon.port", tr("UDP port {port} is open for beacons (an engine of doctor's own: no handoff agent serves this account)",
                                                      ["port": "\(source.engine?.beaconPort ?? port)"]))]
        if others > 0 {
            let what: KeyValuePairs<String, String> = ["count": "\(others)", "port": "\(port)"]
            if config.multicast && config.peers.isEmpty {
                findings.append(.ok("beacon.port.shared", tr("{count} other socket(s) on this machine already listen on UDP port {port} (Handoff apps, or another handoff); multicast beacons reach each of them", what)))
            } else {
                findings.append(.warn("beacon.port.shared", tr("{count} other socket(s) on this machine already listen on UDP port {port} (Handoff apps, or another handoff): a unicast beacon reaches only one of the processes sharing a port", what),
                                      todo: tr("give each process on this machine its own --beacon-port and list it in the other devices' --peer")))
            }
        }
        return findings
    }
}
