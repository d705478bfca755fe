// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel

/// Whether beacons from the account's other devices arrive within a short
/// listen window, and if not, what did arrive: another account's packets,
/// stale ones (a clock is off: by how much, from whom), replayed ones (not a
/// clock matter), or nothing at all (the usual suspects: other subnet, Wi-Fi
/// client isolation, multicast filtering, a firewall). Second copies of a
/// beacon (dual-stack links) are normal and only counted. The figures are
/// the engine's (`BeaconTally`, STATUS `beacons`): the agent's, or those of
/// doctor's own engine; the window's counts are the difference.
enum ListenCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        guard let source = context.source else { return [] }
        let seconds = context.listenSeconds
        guard seconds > 0 else {
            return [.ok("beacons", tr("not listened for beacons (--listen 0)"))]
        }
        let end = context.loop.run(timeout: seconds)
        if case .interrupted = end {
            context.interrupted = true
            return [.warn("beacons", tr("interrupted while listening for beacons"), todo: tr("run doctor again and let it listen"))]
        }
        let after: AgentStatus
        do {
            guard let status = try source.status(context.loop) else {
                context.interrupted = true
                return [.warn("beacons", tr("interrupted while asking the handoff agent"), todo: tr("run doctor again"))]
            }
            after = status
        } catch {
            return [.warn("beacons", tr("the handoff agent did not answer STATUS: {message}", ["message": error.message]),
                          todo: tr("run doctor again, or with --embedded"))]
        }
        let counts = window(after.beacons, since: context.before?.beacons)
        context.heardBeacons = counts
        let port = after.beaconPort
        // Devices heard during the window (the agent knows some from before),
        // and those online though quiet in it: verified and heard within the
        // presence lifetime (a device that offers nothing sends a presence
        // beacon once a minute, PROTOCOL §5), so nothing is missing there.
        let inWindow = { (r: AgentStatus.Remote) in Double(r.lastHeardMilliseconds) <= seconds * 1000 + 1000 }
        let recent = after.remotes.filter { inWindow($0) || $0.verified }
        let quiet = recent.filter { !inWindow($0) }
        for remote in recent {
            var channels: [AddressFamily: SocketAddress] = [:]
            for text in remote.addresses {
                if let address = try? SocketAddress(parsing: text) { channels[AddressFamily(of: address)] = address }
            }
            context.heard[hexString(remote.deviceID)] = DoctorContext.HeardDevice(name: remote.deviceName, role: remote.role,
                                                                                   verified: remote.verified, channels: channels)
        }
        var findings: [Finding] = []
        if !context.heard.isEmpty {
            let names = context.heard.values.map { device in
                "\(device.name) (\(device.addresses.map(\.host).joined(separator: ", "))"
                    + (device.role == .sendOnly ? tr(", send-only") : "") + ")"
            }.sorted().joined(separator: ", ")
            findings.append(.ok("beacons", quiet.count == recent.count
                ? tr("{count} device(s) of this account online, quiet in the {seconds} s listened: {names} (a device that offers nothing sends a presence beacon once a minute and answers a solicitation)",
                     ["count": "\(quiet.count)", "seconds": format(seconds), "names": names])
                : quiet.isEmpty
                ? tr("beacons of this account arrived from {count} device(s) in {seconds} s: {names}",
                     ["count": "\(context.heard.count - quiet.count)", "seconds": format(seconds), "names": names])
                : tr("beacons of this account arrived from {count} device(s) in {seconds} s, and {quiet} more are online (heard in the last 150 s): {names}",
                     ["count": "\(context.heard.count - quiet.count)", "seconds": format(seconds), "quiet": "\(quiet.count)", "names": names])))
        }
        if counts.duplicates > 0 {
            findings.append(.ok("beacons.duplicate",
                                tr("{count} beacon(s) arrived a second time (the same beacon over IPv4 and IPv6 of a dual-stack link, or both as an answer and by multicast): each counted once, and an address of a second family is tested too",
                                   ["count": "\(counts.duplicates)"])))
        }
        if counts.foreign > 0 {
            let sources = counts.foreignSources.joined(separator: ", ")
            findings.append(.warn("beacons.foreign",
                                  tr("{count} packet(s) on UDP port {port} (from {sources}) do not open with this account's key: devices on another account, or another program using the port",
                                     ["count": "\(counts.foreign)", "port": "\(port)", "sources": sources]),
                                  todo: tr("put every device on one account: `handoff account code` here, `handoff account join CODE` there (`handoff account show` compares account IDs)")))
        }
        if counts.stale > 0 {
            let senders = counts.staleSenders.map { sender in
                tr("{name} ({host}) is {skew}", ["name": sender.name, "host": sender.host, "skew": skew(sender.skewMilliseconds)])
            }.joined(separator: "; ")
            findings.append(.warn("beacons.stale",
                                  tr("{count} beacon(s) of this account were refused because their time is more than {seconds} s from this device's clock: {senders}",
                                     ["count": "\(counts.stale)", "seconds": format(ReplayGuard().window), "senders": senders]),
                                  todo: tr("set the clocks right: turn on time synchronisation on both devices (e.g. `timedatectl set-ntp true`; `date -u` on each compares them)")))
        }
        if counts.replays > 0 {
            findings.append(.warn("beacons.replayed",
                                  tr("{count} beacon(s) of this account were replayed (an authentic beacon older than one already accepted from that device, not a copy of a recent one), from {sources}: someone on the network may be re-sending captured beacons; they were ignored, and no clock is wrong",
                                     ["count": "\(counts.replays)", "sources": counts.replaySources.joined(separator: ", ")]),
                                  todo: tr("nothing breaks (a device counts only once its channel authenticates); if it goes on, find who sends them (`tcpdump -n udp port {port}`); two programs publishing with one device identity look the same: give each its own device id",
                                           ["port": "\(port)"])))
        }
        if counts.own > 0 && context.heard.isEmpty {
            findings.append(.ok("beacons.own", tr("only this device's own beacons arrived (another program of this device is publishing)")))
        }
        if context.heard.isEmpty && counts.foreign == 0 && counts.stale == 0 && counts.replays == 0 {
            findings.append(.warn("beacons",
                                  tr("no beacon arrived on UDP port {port} in {seconds} s", ["port": "\(port)", "seconds": format(seconds)]),
                                  todo: tr("if another device runs its agent or publishes (every device of this release answers a solicitation, one that offers nothing with a presence beacon): check that both are on the same network and subnet; Wi-Fi client (AP) isolation and routers that filter multicast stop beacons: list the devices with --peer ITS-ADDRESS:{port} on both; a firewall may drop UDP {port} (see the firewall finding)",
                                           ["port": "\(port)"])))
        }
        return findings
    }

    /// The counts of the window: `after` less `before` (the agent's run
    /// from its start); the senders are the engine's first few.
    static func window(_ after: BeaconTally, since before: BeaconTally?) -> BeaconTally {
        guard let before else { return after }
        var t = after
        t.packets -= before.packets
        t.accepted -= before.accepted
        t.foreign -= before.foreign
        t.own -= before.own
        t.duplicates -= before.duplicates
        t.replays -= before.replays
        t.stale -= before.stale
        return t
    }

    /// "95 s ahead of this device's clock", "2 h 3 min behind …".
    static func skew(_ milliseconds: Int64) -> String {
        let seconds = Int64((Double(milliseconds.magnitude) / 1000).rounded())
        let amount = seconds >= 3600 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min"
            : seconds >= 120 ? "\(seconds / 60) min \(seconds % 60) s" : "\(seconds) s"
        return milliseconds > 0 ? tr("{amount} ahead of this device's clock", ["amount": amount])
            : tr("{amount} behind this device's clock", ["amount": amount])
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// 32 hex digits, as device ids are written.
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}
