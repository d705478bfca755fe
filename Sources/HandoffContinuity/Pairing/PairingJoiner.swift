// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The joiner's run (docs/PROTOCOL.md §9): announce a fresh session with
/// pairing beacons, listen, take the first sponsor whose COMMIT (or
/// CODE_START) names the session, compare the code (or check the one-time
/// code's confirmation), store the account key. One attempt per run.
public enum PairingJoiner {
    /// Blocks the calling thread until success, failure or the window's end.
    /// Throws `.timedOut` when no sponsor came or nobody answered in time,
    /// `.handoffFailed` when either person rejected, the one-time codes
    /// differ or the other device misbehaved (nothing stored), `.io` when
    /// it cannot listen.
    public static func run(_ config: PairingConfiguration, deviceName: String, store: AccountStore,
                           method: PairingMethod = .comparison, events: PairingEvents) throws(HandoffError) -> PairingResult {
        let limits = config.limits
        let windowEnd = Deadline(after: limits.window)
        let sessionID = Crypto.randomBytes(PairingBeacon.sessionIDSize)
        var machine = PairingJoinerMachine(sessionID: sessionID, deviceName: deviceName, method: method)
        let listener = try PairingListener(address: config.listenAddress, limits: limits)
        let transport = try BeaconTransport(config: config.beacons) { _, _ in }
        defer { transport.stop() }
        events.listening(listener.port)

        let kind = PairingBeacon.kind(for: method)
        let beacon = PairingBeacon(port: listener.port, sessionID: sessionID, kind: kind).encoded()
        // Comparing, the sponsor's person also sees what this device calls
        // itself: the named beacon first (sponsors that know it), then the
        // plain one (all sponsors; older ones drop the named one).
        let named: [UInt8]? = kind == PairingBeacon.joinerKind && (try? DeviceIdentity.validateName(deviceName)) != nil
            ? PairingBeacon(port: listener.port, sessionID: sessionID, kind: kind, name: deviceName).encoded() : nil
        let start = monotonicSeconds()
        var sent = 0
        func nextBeacon(_ k: Int) -> Double { start + limits.beaconTime(k) }
        let (connection, commit) = try listener.waitForCommit(
            until: windowEnd, cancelFD: config.cancelFD, isOurs: machine.isCommitForUs,
            tick: {
                while nextBeacon(sent) <= monotonicSeconds() {
                    if let named { transport.send(named) }
                    transport.send(beacon)
                    sent += 1
                }
                return nextBeacon(sent)
            })
        transport.stop()
        events.found(connection.peer)

        // The attempt begins with SHARE (CODE_SHARE): from here any failure
        // ends the run.
        var code: ComparisonCode?
        do throws(HandoffError) {
            for frame in try machine.receive(commit).send {
                try connection.send(frame, until: Deadline(after: limits.stepTimeout))
            }
            let second = try connection.receive(until: Deadline(after: min(limits.stepTimeout, max(0, windowEnd.end - monotonicSeconds()))),
                                                cancelFD: config.cancelFD,
                                                what: method == .comparison ? "its key (REVEAL)" : "its confirmation (CODE_CONFIRM)")
            let step = try machine.receive(second)
            for frame in step.send {
                try connection.send(frame, until: Deadline(after: limits.stepTimeout))
            }
            code = step.code
        } catch {
            if !machine.peerEnded { connection.sendReject() }
            throw error
        }
        var storedKey: AccountKey?
        let peer = try PairingAttempt.run(
            &machine, connection: connection, code: code, events: events, windowEnd: windowEnd, limits: limits,
            cancelFD: config.cancelFD, store: { key throws(HandoffError) in
                try store.saveAccount(key)
                storedKey = key
            })
        return PairingResult(peerName: peer, accountID: storedKey!.derived.accountID, code: code)
    }
}
