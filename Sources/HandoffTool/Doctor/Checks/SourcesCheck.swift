// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffAgent
import HandoffContinuity

/// Where the engine's beacon targets come from (docs/PROTOCOL.md "Peer
/// sources"): each configured peer (a name: what it resolves to) and the
/// tailnet (tailscaled's socket: how many of the person's devices it
/// lists, or why none). The link is the multicast check's. The states are
/// the engine's: the agent's STATUS `sources`, or doctor's own engine's.
enum SourcesCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        guard let source = context.source, let status = try? source.status(context.loop) else { return [] }
        context.sources = status.sources
        return status.sources.compactMap(finding)
    }

    static func finding(_ s: PeerSourceState) -> Finding? {
        let message = s.message ?? ""
        switch (s.kind, s.condition) {
        case (.link, _), (.relay, .off):
            return nil
        case (.relay, .ok):
            let dropped = s.message.map { " (" + $0 + ")" } ?? ""
            return .ok("sources.relay", tr("relay: connected to {broker}, {count} device(s) heard through it{dropped}",
                                           ["broker": s.name, "count": "\(s.peers)", "dropped": dropped]))
        case (.relay, .pending):
            return .ok("sources.relay", tr("relay: connecting to {broker}", ["broker": s.name]))
        case (.relay, .unavailable) where message.hasSuffix(AgentRelay.caFileHint):
            // The agent's words name the certificate, the name expected and OpenSSL's reason.
            return .fail("sources.relay", tr("relay: {message}", ["message": message]),
                         todo: tr("give the CA that signed the broker's certificate with `handoff relay set URL --ca-file FILE` (or fix the broker's certificate), then restart the agent"))
        case (.relay, .unavailable):
            return .fail("sources.relay", tr("relay: {message}", ["message": message]),
                         todo: tr("set the right user name and password with `handoff relay set URL`, then restart the agent"))
        case (.relay, _):
            return .warn("sources.relay", tr("relay: {message}", ["message": message]),
                         todo: tr("check that the broker runs and this device can reach it; the agent tries again by itself"))
        case (.peer, .ok):
            if s.addresses == [s.name] { return .ok("sources.peer", tr("peer {peer}: a numeric address", ["peer": s.name])) }
            // A name on kept addresses says why (its last lookups failed).
            let note = s.message.map { " (" + $0 + ")" } ?? ""
            return .ok("sources.peer", tr("peer {peer}: resolves to {count} address(es): {addresses}",
                                          ["peer": s.name, "count": "\(s.addresses.count)", "addresses": s.addresses.joined(separator: ", ")]) + note)
        case (.peer, .pending):
            return .ok("sources.peer", tr("peer {peer}: not resolved yet", ["peer": s.name]))
        case (.peer, _):
            return .warn("sources.peer", tr("peer {peer} does not resolve: {message}", ["peer": s.name, "message": message]),
                         todo: tr("check the name (`getent ahosts NAME`), or give the address as a number"))
        case (.tailnet, .ok):
            let left = s.message.map { " (" + $0 + ")" } ?? ""
            return .ok("sources.tailnet", tr("tailnet: {count} device(s) from {socket}{left}",
                                             ["count": "\(s.peers)", "socket": s.name, "left": left]))
        case (.tailnet, .absent):
            return .ok("sources.tailnet", tr("tailnet: no tailscaled (socket {socket} absent)", ["socket": s.name]))
        case (.tailnet, .off):
            return .ok("sources.tailnet", tr("tailnet: off"))
        case (.tailnet, .pending):
            return .ok("sources.tailnet", tr("tailnet: {socket} not asked yet", ["socket": s.name]))
        case (.tailnet, .unavailable):
            return .warn("sources.tailnet", tr("tailnet: {message} ({socket})", ["message": message, "socket": s.name]),
                         todo: tr("start Tailscale (`sudo tailscale up`), or --no-tailnet"))
        case (.tailnet, _):
            return .warn("sources.tailnet", tr("tailnet: {socket} gave no usable answer: {message}", ["socket": s.name, "message": message]),
                         todo: tr("check tailscaled (`tailscale status`); Handoff asks again every 10 s"))
        }
    }

    /// The report's `sources[]`.
    static func json(_ s: PeerSourceState) -> JSON {
        ["kind": .string(s.kind.rawValue), "name": .string(s.name), "condition": .string(s.condition.rawValue),
         "addresses": .array(s.addresses.map { .string($0) }), "peers": .int(Int64(s.peers)), "message": .string(s.message)]
    }
}
