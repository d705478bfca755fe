import HandoffContinuity
import HandoffModel

/// The TLS channel of other devices: each --peer address, and each device
/// whose beacons arrived. A connection and a TLS 1.3 handshake with the
/// account's key; on failure, which step failed.
enum ChannelCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        var targets: [(String, SocketAddress)] = context.peers.map { ("--peer \($0)", $0) }
        for device in context.heard.values.sorted(by: { $0.name < $1.name })
        where !targets.contains(where: { $0.1 == device.channel }) {
            targets.append((device.name, device.channel))
        }
        guard !targets.isEmpty else { return [] }
        guard let account = context.account else {
            return [.warn("channel.peer", "no account, so no device's channel can be tested",
                          todo: "create or join the account first (see the account finding)")]
        }
        // In parallel: each may take the whole connect timeout.
        let results = Locked<[Int: HandoffError?]>([:])
        let done = InFlight()
        for (index, target) in targets.enumerated() {
            done.begin()
            let (address, limits) = (target.1, context.limits)
            let started = startDetachedThread {
                let error = ChannelProbe.handshake(address, account: account, limits: limits)
                results.withLock { $0[index] = .some(error) }
                done.end()
            }
            if !started {
                results.withLock { $0[index] = .some(HandoffError(.io, "no thread could be started")) }
                done.end()
            }
        }
        done.waitUntilIdle(seconds: .infinity)
        let outcome = results.withLock { $0 }
        return targets.enumerated().map { index, target in
            finding(target.0, target.1, outcome[index] ?? nil)
        }
    }

    private static func finding(_ who: String, _ address: SocketAddress, _ error: HandoffError?) -> Finding {
        guard let error else {
            return .ok("channel.peer", "\(who): the channel at \(address) answers and authenticates with this account's key (TLS 1.3)")
        }
        if error.code == .handoffFailed {
            return .fail("channel.peer", "\(who): \(address) answers, but the TLS handshake fails: \(error.message)",
                         todo: "that device holds another account's key, or \(address) is no Handoff channel; "
                             + "compare `handoff account show` on both and join one account")
        }
        return .fail("channel.peer", "\(who): cannot reach the channel at \(address): \(error.message)",
                     todo: "check that Handoff runs there and that its firewall accepts TCP \(address.port) "
                         + "(fix the port with --channel 0.0.0.0:PORT to allow it); doctor --peer takes a channel "
                         + "address, as `handoff publish` prints it, not a beacon port")
    }
}
