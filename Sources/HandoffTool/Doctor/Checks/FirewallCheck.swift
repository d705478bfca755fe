// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent

/// Hints from the host firewall, read with `nft list ruleset` and
/// `iptables -S` when they are installed. Read only: doctor never changes
/// a rule; it says which rule to add.
enum FirewallCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let port = context.beaconConfig.port
        var rules = FirewallRules()
        var read: [String] = []
        var unreadable: [String] = []
        if let nft = ExternalCommand.find("nft") {
            if let result = ExternalCommand.run(nft, ["list", "ruleset"]), result.status == 0 {
                rules.merge(.nft(result.output, udpPort: port))
                read.append("nft")
            } else {
                unreadable.append("nft")
            }
        }
        if let iptables = ExternalCommand.find("iptables") {
            if let result = ExternalCommand.run(iptables, ["-S"]), result.status == 0 {
                rules.merge(.iptables(result.output, udpPort: port))
                read.append("iptables")
            } else {
                unreadable.append("iptables")
            }
        }
        var findings: [Finding] = []
        if !unreadable.isEmpty {
            findings.append(.warn("firewall", tr("cannot read the firewall rules with {tools} (reading them needs root)",
                                     ["tools": unreadable.joined(separator: tr(" and "))]),
                                  todo: tr("run `sudo handoff doctor` to check them")))
        }
        if read.isEmpty {
            if unreadable.isEmpty {
                findings.append(.ok("firewall", tr("neither nft nor iptables is installed: no host firewall rules to check")))
            }
            return findings
        }
        let tools = read.joined(separator: ", ")
        let allow = tr("allow it: `nft add rule inet filter input udp dport {port} accept`, `ufw allow {port}/udp` or `firewall-cmd --add-port={port}/udp`",
                       ["port": "\(port)"])
        let tcp = tr("other devices also connect to this device's channel over TCP: give it a fixed port (--channel [::]:PORT) and accept tcp dport PORT")
        if !rules.dropsUDPPort.isEmpty {
            findings.append(.warn("firewall", tr("a firewall rule drops the beacon port UDP {port}: {rule}", ["port": "\(port)", "rule": rules.dropsUDPPort[0]]),
                                  todo: tr("remove that rule, then {allow}", ["allow": allow])))
        } else if rules.dropsInputByDefault && !rules.acceptsUDPPort {
            findings.append(.warn("firewall", tr("the firewall ({tools}) drops incoming traffic by default and no rule accepts UDP port {port}: beacons from other devices cannot arrive",
                                     ["tools": tools, "port": "\(port)"]),
                                  todo: allow + "; " + tcp))
        } else if rules.dropsInputByDefault {
            findings.append(.warn("firewall.channel", tr("the firewall ({tools}) accepts UDP port {port} but drops other incoming traffic by default",
                                             ["tools": tools, "port": "\(port)"]),
                                  todo: tcp))
        } else {
            findings.append(.ok("firewall", tr("the firewall ({tools}) does not drop incoming traffic by default", ["tools": tools])))
        }
        return findings
    }
}
