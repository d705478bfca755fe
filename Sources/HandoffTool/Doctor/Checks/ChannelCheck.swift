// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBase
import HandoffContinuity
import HandoffModel

/// The TLS channel of other devices: each --peer address, and each device
/// whose beacons arrived, over every address family it was heard on (a
/// dual-stack device over IPv4 and IPv6). A connection and a TLS 1.3
/// handshake with the account's key per address; the finding names each
/// family and address tried and how it went, so "IPv6 works, a firewall
/// drops IPv4" reads as such.
enum ChannelCheck: DoctorCheck {
    private struct Target {
        var who: String
        var addresses: [SocketAddress]
    }

    static func run(_ context: DoctorContext) -> [Finding] {
        var targets = context.peers.map { Target(who: "--peer \($0)", addresses: [$0]) }
        for device in context.heard.values.sorted(by: { $0.name < $1.name }) {
            let addresses = device.addresses.filter { !context.peers.contains($0) }
            if !addresses.isEmpty { targets.append(Target(who: device.name, addresses: addresses)) }
        }
        guard !targets.isEmpty else { return [] }
        guard let account = context.account else {
            return [.warn("channel.peer", tr("no account, so no device's channel can be tested"),
                          todo: tr("create or join the account first (see the account finding)"))]
        }
        let addresses = targets.flatMap(\.addresses)
        let outcome = probe(addresses, account: account, limits: context.limits)
        var next = 0
        return targets.map { target in
            let results = target.addresses.map { address in
                defer { next += 1 }
                return (address, outcome[next] ?? nil)
            }
            return finding(target.who, results, limits: context.limits)
        }
    }

    /// A handshake with each address, in parallel (each may take the whole
    /// connect timeout): nil where it succeeded, else why not.
    private static func probe(_ addresses: [SocketAddress], account: AccountKey,
                              limits: ChannelLimits) -> [Int: HandoffError?] {
        let results = Locked<[Int: HandoffError?]>([:])
        let done = InFlight()
        for (index, address) in addresses.enumerated() {
            done.begin()
            let started = startDetachedThread {
                let error = ChannelHandshake.handshake(address, account: account, limits: limits)
                results.withLock { $0[index] = .some(error) }
                done.end()
            }
            if !started {
                results.withLock { $0[index] = .some(HandoffError(.io, "no thread could be started")) }
                done.end()
            }
        }
        done.waitUntilIdle(seconds: .infinity)
        return results.withLock { $0 }
    }

    private static func finding(_ who: String, _ results: [(SocketAddress, HandoffError?)],
                                limits: ChannelLimits) -> Finding {
        let reached = results.filter { $0.1 == nil }.map(\.0)
        let failed = results.compactMap { address, error in error.map { (address, $0) } }
        let families = Set(results.map { AddressFamily(of: $0.0) })
        let parts = results.map { address, error in
            outcome(address, error, otherFamilyReached: reached.contains { AddressFamily(of: $0) != AddressFamily(of: address) },
                    limits: limits)
        }
        let what = "\(who): " + parts.joined(separator: "; ")
        if failed.isEmpty {
            return .ok("channel.peer", what)
        }
        if failed.allSatisfy({ $0.1.code == .handoffFailed }) {
            let address = failed[0].0
            return .fail("channel.peer", what,
                         todo: tr("that device holds another account's key, or {address} is no Handoff channel; compare `handoff account show` on both and join one account",
                                  ["address": "\(address)"]))
        }
        let ports = Set(failed.map(\.0.port)).sorted().map(String.init).joined(separator: ", ")
        let blocked = Set(failed.map { AddressFamily(of: $0.0).rawValue }).sorted().joined(separator: tr(" and "))
        let refused = failed.contains { $0.1.message.containsCharacters("connection refused") }
            ? tr("; a channel on 0.0.0.0 listens over IPv4 only: `--channel [::]:PORT` there listens over both") : ""
        if !reached.isEmpty {
            return .warn("channel.peer", what,
                         todo: tr("Handoff works over {family}; for {blocked} too, let TCP {ports} in over {blocked} in that device's firewall (nft rules of table `ip`/`ip6` apply to one family only; `inet` to both)",
                                  ["family": AddressFamily(of: reached[0]).rawValue, "blocked": blocked, "ports": ports]) + refused)
        }
        let familiesTried = families.count > 1 ? tr(" over both families") : ""
        return .fail("channel.peer", what,
                     todo: tr("check that Handoff runs there and that its firewall accepts TCP {ports}{families} (fix the port with --channel [::]:PORT or 0.0.0.0:PORT to allow it); doctor --peer takes a channel address, as `handoff publish` prints it, not a beacon port",
                              ["ports": ports, "families": familiesTried]) + refused)
    }

    /// One address's outcome, naming its family: "reached over IPv6
    /// [fd00::1]:4000 (…)", "IPv4 10.0.0.2:4000 timed out: a firewall drops IPv4?".
    private static func outcome(_ address: SocketAddress, _ error: HandoffError?, otherFamilyReached: Bool,
                                limits: ChannelLimits) -> String {
        let family = AddressFamily(of: address).rawValue
        guard let error else {
            return tr("reached over {family} {address}: the channel answers and authenticates with this account's key (TLS 1.3)",
                      ["family": family, "address": "\(address)"])
        }
        if error.code == .handoffFailed {
            return tr("{family} {address} answers, but the TLS handshake fails: {message}",
                      ["family": family, "address": "\(address)", "message": error.message])
        }
        if error.message.containsCharacters("did not answer within") {
            let guess = otherFamilyReached ? tr("a firewall drops {family}?", ["family": family])
                : tr("a firewall drops TCP {port}, or the device is gone?", ["port": "\(address.port)"])
            return tr("{family} {address} timed out after {seconds} s: {guess}",
                      ["family": family, "address": "\(address)", "seconds": ListenCheck.format(limits.connectTimeout), "guess": guess])
        }
        if error.message.containsCharacters("connection refused") {
            return tr("{family} {address} refused the connection (connection refused: nothing listens there over {family})",
                      ["family": family, "address": "\(address)"])
        }
        return tr("cannot reach the channel over {family} {address}: {message}",
                  ["family": family, "address": "\(address)", "message": error.message])
    }
}
