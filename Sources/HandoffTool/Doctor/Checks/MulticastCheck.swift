// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity

/// Multicast: which interfaces joined the beacon groups, as the kernel
/// lists them in /proc/net/igmp and /proc/net/igmp6.
enum MulticastCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        guard context.beaconConfig.multicast else {
            return [.ok("multicast", "multicast is off (--no-multicast): devices are found only through --peer addresses")]
        }
        guard let source = context.source else { return [] }
        var findings: [Finding] = []
        let noMulticast = NetworkInterface.all().filter { $0.reachesOthers && !$0.hasMulticast }.map(\.name)
        if !noMulticast.isEmpty {
            findings.append(.warn("multicast.interfaces",
                                  "\(noMulticast.joined(separator: ", ")) cannot carry multicast (no MULTICAST flag, e.g. a VPN tunnel)",
                                  todo: "over these, list the other devices with --peer HOST:\(context.beaconConfig.port)"))
        }
        let v4 = ProcNet.ipv4Members(of: BeaconTransport.ipv4Group)
        let v6 = ProcNet.ipv6Members(of: BeaconTransport.ipv6Group)
        // The agent's sockets are its own: what the kernel lists is what it joined.
        var stats = BeaconTransportStats()
        if let engine = source.engine {
            stats = engine.beaconStats
        } else {
            stats.ipv4Interfaces = v4 ?? []
            stats.ipv6Interfaces = v6 ?? []
        }
        guard !stats.ipv4Interfaces.isEmpty || !stats.ipv6Interfaces.isEmpty else {
            findings.append(.warn("multicast.membership",
                                  "no interface joined the beacon groups (\(BeaconTransport.ipv4Group), \(BeaconTransport.ipv6Group)): "
                                      + "no interface is up with multicast, so multicast discovery cannot work",
                                  todo: "connect to a network, or list the other devices with --peer HOST:\(context.beaconConfig.port)"))
            return findings
        }
        var joined: [String] = []
        var missing: [String] = []
        for name in stats.ipv4Interfaces {
            if v4?.contains(name) ?? true { joined.append("\(BeaconTransport.ipv4Group) on \(name)") } else { missing.append("IPv4 on \(name)") }
        }
        for name in stats.ipv6Interfaces {
            if v6?.contains(name) ?? true { joined.append("\(BeaconTransport.ipv6Group) on \(name)") } else { missing.append("IPv6 on \(name)") }
        }
        if !missing.isEmpty {
            findings.append(.warn("multicast.membership",
                                  "the kernel does not list the beacon group membership for \(missing.joined(separator: ", "))",
                                  todo: "check `ip maddr show`; if the group is missing, list the other devices with --peer"))
        }
        if !joined.isEmpty {
            findings.append(.ok("multicast.membership", "member of \(joined.joined(separator: ", "))"
                                + (v4 == nil ? " (as the socket reports; /proc/net/igmp unreadable)" : "")))
        }
        return findings
    }
}
