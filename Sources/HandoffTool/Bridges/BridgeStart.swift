// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// How a bridge command (`mpris-bridge`, `documents-bridge`) starts, before
/// its own parts: SIGINT and SIGTERM only mark the signal pipe (so a stop
/// always withdraws the offer), the environment read once, and one JSON
/// line per event on stderr.
struct BridgeStart {
    /// The command's name, for its errors ("mpris-bridge").
    let command: String
    let environment: [String: String]
    let log: (JSONObject) -> Void

    var home: String { environment["HOME"] ?? "" }

    /// `bridge` names the log lines ("mpris"); `names`, the variables read.
    init(command: String, bridge: String, environment names: [String]) {
        Signals.install()
        self.command = command
        var environment: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        self.environment = environment
        log = { object in
            // `at`: wall-clock seconds since 1970, to line events up across devices.
            var line: JSONObject = ["bridge": .string(bridge), "at": .double(Timestamp.unixNow)]
            for key in object.keys { line[key] = object[key] }
            // One write(2) per line: lines of a busy bridge never interleave.
            let bytes = Array((JSON.object(line).text + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }

    /// The profile, the way to the agent for its account and the main
    /// loop's reactor; `agentOnly` is the error a bridge gives where it
    /// would otherwise run embedded.
    func connect(agentOnly: String) throws -> BridgeSession {
        let profile = try Profile.open()
        let account = try profile.account()
        let choice = ContinuityModeChoice(mode: .agent, accountID: account.id)
        let loop: Reactor
        do {
            loop = try Reactor()
        } catch {
            throw HandoffError(.io, "\(command): cannot create the main loop: \(error)")
        }
        return BridgeSession(profile: profile, loop: loop, choice: choice, agentOnly: agentOnly, log: log)
    }
}

/// A started bridge's profile, agent and loop (`BridgeStart.connect`).
struct BridgeSession {
    let profile: Profile
    let loop: Reactor
    let choice: ContinuityModeChoice
    let agentOnly: String
    let log: (JSONObject) -> Void

    /// An application's continuity, through the handoff agent only.
    func service(_ manifest: Manifest) throws(HandoffError) -> any ContinuityService {
        let refusal = agentOnly
        return try choice.start(manifest: manifest) { () throws(HandoffError) -> any ContinuityService in
            throw HandoffError(.handoffFailed, refusal)
        }.service
    }

    /// A signal logs "stopped" and ends `loop.run()`; unwatch it after.
    func stopOnSignal() -> Reactor.Watch {
        let loop = self.loop, log = self.log
        return loop.watch(Signals.fd, .readable) { _ in
            guard let number = Signals.take() else { return }
            log(["event": "stopped", "signal": .int(Int64(number))])
            loop.stop()
        }
    }
}
