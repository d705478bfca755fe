// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The agent sponsoring a new device's pairing with the person's consent
/// (docs/agent.md §9): the engine hands it the pairing beacons it hears;
/// a beacon starts one sponsor run (docs/PROTOCOL.md §9) on its own
/// thread, which runs the protocol up to the comparison code and only then
/// asks, in one notification whose "Pair"/"Not now" is the answer.
/// Bounds: `AgentPairingGate`, the run's own (`PairingLimits`,
/// `PairingSessionTable`), one run at a time.
final class AgentPairing: @unchecked Sendable {
    // @unchecked: the mutable state is in `state`; the rest is fixed.
    private unowned let server: AgentServer
    private let account: AccountKey
    private let deviceName: String
    private let config: PairingConfiguration
    private let cancelPipe: WakePipe

    private struct State {
        var gate: AgentPairingGate
        /// The run under way, if any.
        var inbox: PairingBeaconInbox?
        var running = false
        var stopped = false
        /// The source of the run's current attempt.
        var peer: String?
        /// What that joiner calls itself (its named beacon), if it said.
        var peerName: String?
    }
    private let state: Awaitable<State>

    init(server: AgentServer, account: AccountKey, deviceName: String, config: PairingConfiguration) throws(HandoffError) {
        cancelPipe = try WakePipe.make()
        self.server = server
        self.account = account
        self.deviceName = deviceName
        var config = config
        config.cancelFD = cancelPipe.fd
        self.config = config
        state = Awaitable(State(gate: AgentPairingGate(now: monotonicSeconds())))
    }

    /// A datagram with the pairing magic, from the beacon receive thread.
    func heard(_ packet: [UInt8], from host: String) {
        let start: PairingBeaconInbox? = state.update { s in
            let now = monotonicSeconds()
            guard !s.stopped, s.gate.hears(host, now: now) else { return nil }
            if let inbox = s.inbox {
                inbox.offer(packet, from: host)
                return nil
            }
            guard PairingBeacon.parse(packet)?.kind == PairingBeacon.joinerKind, s.gate.startRun(now: now),
                  let inbox = try? PairingBeaconInbox(limits: config.limits) else { return nil }
            inbox.offer(packet, from: host)
            s.inbox = inbox
            s.running = true
            return inbox
        }
        guard let start else { return }
        if !startDetachedThread(named: "hoff-pairing", { [self] in self.run(start) }) {
            state.update { s in
                s.inbox = nil
                s.running = false
            }
        }
    }

    /// Ends a run under way (as a "no") and waits for its thread. Idempotent.
    func stop() {
        state.update { $0.stopped = true }
        cancelPipe.signal()
        state.wait(until: { !$0.running }, seconds: 30) { _, _ in }
    }

    // MARK: The run's thread

    private func run(_ inbox: PairingBeaconInbox) {
        let answer = PairingAnswer()
        var events = PairingEvents { [self] code in
            let host = state.update { $0.peer } ?? "?"
            let allowed = state.update { $0.gate.prompt(host, now: monotonicSeconds()) }
            guard allowed, let answer else {
                server.log("pairing-refused", "a device at \(host) asked to pair: not asked again so soon",
                           ["address": .string(host)])
                return PairingPrompt(fd: -1) { false }
            }
            let name = state.update { $0.peerName }
            let calling = name.map { " calling itself \"\($0)\"" } ?? ""
            server.log("pairing-prompt", "a device at \(host)\(calling) asks to pair: asking the person",
                       ["address": .string(host), "name": .string(name ?? "")])
            server.perform { [server] in
                // A front end that asked to pair (docs/agent.md §15) may answer too: the first answer counts.
                server.sessionAPI?.pairingAsks("\(code)") { answer.give($0) }
                guard let notifications = server.notifications else { return answer.give(false) }
                notifications.askPairing(code, callingItself: name) { answer.give($0) }
            }
            return PairingPrompt(fd: answer.fd) { answer.take() }
        }
        events.found = { [self] host in state.update { $0.peer = host } }
        events.joinerName = { [self] name in state.update { $0.peerName = name } }
        let result = Result { () throws(HandoffError) in
            try PairingSponsor.run(config, inbox: inbox, accountKey: account, deviceName: deviceName, events: events)
        }
        server.perform { [server] in server.notifications?.endPairing() }
        let (ended, why): (String?, String) = switch result {
        case .success(let paired): (paired.peerName, "")
        case .failure(let error): (nil, error.message)
        }
        server.perform { [server] in server.sessionAPI?.pairingEnded(peer: ended, why: why) }
        switch result {
        case .success(let paired):
            server.log("paired", "paired with \(paired.peerName): it joined account \(paired.accountID)",
                       ["peer": .string(paired.peerName), "account": .string(paired.accountID)])
            server.perform { [server] in server.notifications?.showPaired(paired.peerName) }
        case .failure(let error):
            server.log("pairing-ended", "pairing ended: \(error.message)", ["code": .int(Int64(error.code.rawValue))])
        }
        state.update { s in
            s.inbox = nil
            s.peer = nil
            s.peerName = nil
            s.running = false
        }
    }
}
