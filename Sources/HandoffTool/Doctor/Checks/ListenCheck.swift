/// Whether beacons from the account's other devices arrive within a short
/// listen window, and if not, what did arrive: another account's packets,
/// stale ones (clocks apart), or nothing at all (the usual suspects: other
/// subnet, Wi-Fi client isolation, multicast filtering, a firewall).
enum ListenCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        guard let scanner = context.scanner else { return [] }
        let seconds = context.listenSeconds
        guard seconds > 0 else {
            return [.ok("beacons", "not listened for beacons (--listen 0)")]
        }
        let end = MainLoop([context.queue]).run(timeout: seconds)
        if case .interrupted = end {
            context.interrupted = true
            return [.warn("beacons", "interrupted while listening for beacons", todo: "run doctor again and let it listen")]
        }
        let counts = scanner.counts
        let port = scanner.port
        var findings: [Finding] = []
        if !context.heard.isEmpty {
            let names = context.heard.values.map { "\($0.name) (\($0.channel.host))" }.sorted().joined(separator: ", ")
            findings.append(.ok("beacons", "beacons of this account arrived from \(context.heard.count) device(s) in \(format(seconds)) s: \(names)"))
        }
        if counts.foreign > 0 {
            let sources = counts.foreignSources.joined(separator: ", ")
            findings.append(.warn("beacons.foreign",
                                  "\(counts.foreign) packet(s) on UDP port \(port) (from \(sources)) do not open with this account's key: "
                                      + "devices on another account, or another program using the port",
                                  todo: "put every device on one account: `handoff account code` here, "
                                      + "`handoff account join CODE` there (`handoff account show` compares account IDs)"))
        }
        if counts.replayed > 0 {
            findings.append(.warn("beacons.stale",
                                  "\(counts.replayed) beacon(s) of this account were refused as stale or replayed: "
                                      + "the clocks of this device and the sender probably differ by more than 30 s",
                                  todo: "turn on time synchronisation on both devices (e.g. `timedatectl set-ntp true`)"))
        }
        if counts.own > 0 && context.heard.isEmpty {
            findings.append(.ok("beacons.own", "only this device's own beacons arrived (another program of this device is publishing)"))
        }
        if context.heard.isEmpty && counts.foreign == 0 && counts.replayed == 0 {
            findings.append(.warn("beacons",
                                  "no beacon arrived on UDP port \(port) in \(format(seconds)) s",
                                  todo: "if another device is publishing (`handoff publish` there): check that both are on the same "
                                      + "network and subnet; Wi-Fi client (AP) isolation and routers that filter multicast stop "
                                      + "beacons: list the devices with --peer ITS-ADDRESS:\(port) on both; "
                                      + "a firewall may drop UDP \(port) (see the firewall finding)"))
        }
        return findings
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
