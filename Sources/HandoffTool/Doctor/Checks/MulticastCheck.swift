// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity

/// Multicast: which interfaces joined the beacon groups, as the kernel
/// lists them in /proc/net/igmp and /proc/net/igmp6.
enum MulticastCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        guard context.beaconConfig.multicast else {
            return [.ok("multicast", tr("multicast is off (--no-multicast): devices are found only through --peer addresses"))]
        }
        guard let source = context.source else { return [] }
        var findings: [Finding] = []
        let noMulticast = NetworkInterface.all().filter { $0.reachesOthers && !$0.hasMulticast }.map(\.name)
        if !noMulticast.isEmpty {
            findings.append(.warn("multicast.interfaces",
                                  tr("{interfaces} cannot carry multicast (no MULTICAST flag, e.g. a VPN tunnel)", ["interfaces": noMulticast.joined(separator: ", ")]),
                                  todo: tr("over these, list the other devices with --peer HOST:{port}", ["port": "\(context.beaconConfig.port)"])))
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
                                  tr("no interface joined the beacon groups ({ipv4}, {ipv6}): no interface is up with multicast, so multicast discovery cannot work",
                                     ["ipv4": BeaconTransport.ipv4Group, "ipv6": BeaconTransport.ipv6Group]),
                                  todo: tr("connect to a network, or list the other devices with --peer HOST:{port}", ["port": "\(context.beaconConfig.port)"])))
            return findings
        }
        var joined: [String] = []
        var missing: [String] = []
        for name in stats.ipv4Interfaces {
            if v4?.contains(name) ?? true { joined.append(tr("{group} on {interface}", ["group": BeaconTransport.ipv4Group, "interface": name]))
            } else { missing.append(tr("IPv4 on {interface}", ["interface": name])) }
        }
        for name in stats.ipv6Interfaces {
            if v6?.contains(name) ?? true { joined.append(tr("{group} on {interface}", ["group": BeaconTransport.ipv6Group, "interface": name]))
            } else { missing.append(tr("IPv6 on {interface}", ["interface": name])) }
        }
        if !missing.isEmpty {
            findings.append(.warn("multicast.membership",
                                  tr("the kernel does not list the beacon group membership for {interfaces}", ["interfaces": missing.joined(separator: ", ")]),
                                  todo: tr("check `ip maddr show`; if the group is missing, list the other devices with --peer")))
        }
        if !joined.isEmpty {
            findings.append(.ok("multicast.membership", v4 == nil
                                ? tr("member of {groups} (as the socket reports; /proc/net/igmp unreadable)", ["groups": joined.joined(separator: ", ")])
                                : tr("member of {groups}", ["groups": joined.joined(separator: ", ")])))
        }
        return findings
    }
}
