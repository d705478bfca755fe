// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What a firewall ruleset means for Handoff, read from the text `nft list
/// ruleset` or `iptables -S` prints. A heuristic, not a packet filter: it
/// looks for an input policy that drops, and for rules that accept or drop
/// a given UDP port.
struct FirewallRules {
    /// Incoming traffic is dropped unless a rule accepts it.
    var dropsInputByDefault = false
    /// A rule accepts the UDP port.
    var acceptsUDPPort = false
    /// Rules that drop or reject the UDP port, as written.
    var dropsUDPPort: [String] = []

    /// From `nft list ruleset`.
    static func nft(_ text: String, udpPort port: UInt16) -> FirewallRules {
        var rules = FirewallRules()
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces
            if line.containsCharacters("hook input") && (line.containsCharacters("policy drop") || line.containsCharacters("policy reject")) {
                rules.dropsInputByDefault = true
            }
            guard line.hasPrefix("udp ") || line.containsCharacters(" udp ") || line.containsCharacters("meta l4proto udp"),
                  let ports = portsText(line, after: "dport"), matches(ports, port, rangeSeparator: "-") else { continue }
            if line.hasSuffix("accept") || line.containsCharacters(" accept") { rules.acceptsUDPPort = true }
            if line.containsCharacters(" drop") || line.containsCharacters(" reject") { rules.dropsUDPPort.append(line) }
        }
        return rules
    }

    /// From `iptables -S` (or ip6tables -S).
    static func iptables(_ text: String, udpPort port: UInt16) -> FirewallRules {
        var rules = FirewallRules()
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces
            if line == "-P INPUT DROP" || line == "-P INPUT REJECT" { rules.dropsInputByDefault = true }
            guard line.hasPrefix("-A "), line.containsCharacters("-p udp"),
                  let ports = portsText(line, after: "--dport") ?? portsText(line, after: "--dports"),
                  matches(ports, port, rangeSeparator: ":") else { continue }
            if line.hasSuffix("-j ACCEPT") { rules.acceptsUDPPort = true }
            if line.hasSuffix("-j DROP") || line.containsCharacters("-j REJECT") { rules.dropsUDPPort.append(line) }
        }
        return rules
    }

    /// Combines what several tools printed.
    mutating func merge(_ other: FirewallRules) {
        dropsInputByDefault = dropsInputByDefault || other.dropsInputByDefault
        acceptsUDPPort = acceptsUDPPort || other.acceptsUDPPort
        dropsUDPPort += other.dropsUDPPort
    }

    /// The text after `keyword` up to the verdict: "52370", "{ 22, 52370 }", "52000-53000".
    private static func portsText(_ line: String, after keyword: String) -> Substring? {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(where: { $0 == keyword }), index + 1 < words.count else { return nil }
        var collected: [Substring] = []
        var inSet = false
        for word in words[(index + 1)...] {
            if word.hasPrefix("{") { inSet = true }
            collected.append(word)
            if !inSet || word.hasSuffix("}") { break }
        }
        return Substring(collected.joined(separator: " "))
    }

    /// Whether `text` names `port`: a number, a list, a set or a range.
    private static func matches(_ text: Substring, _ port: UInt16, rangeSeparator: Character) -> Bool {
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "{" || $0 == "}" })
        for item in items {
            let bounds = item.split(separator: rangeSeparator)
            if bounds.count == 1, let p = UInt16(bounds[0]), p == port { return true }
            if bounds.count == 2, let low = UInt16(bounds[0]), let high = UInt16(bounds[1]), low <= port, port <= high {
                return true
            }
        }
        return false
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
