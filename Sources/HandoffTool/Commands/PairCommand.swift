// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff pair`: brings a new device into the account by comparing six
/// digits, or by a one-time code carried from one device to the other
/// (docs/PROTOCOL.md §9). The same command on both devices: one with the
/// account sponsors, one without joins.
enum PairCommand: Command {
    static let name = "pair"
    static let summary = "add a device to the account by comparing a six-digit code on both (or by a one-time code)"
    static let synopsis = [
        "pair [--join [--force]] [--name NAME] [--yes-if-code DIGITS | --show-code | --code CODE] [--timeout SECONDS]",
        " [--beacon-port PORT] [--peer HOST:PORT]... [--no-multicast] [--interface NAME]...",
    ]
    static let details = """
        Run it on the new device and on a device that has the account, on the same
        network, within two minutes of each other. The device with an account sponsors,
        the one without joins (--join makes a device with an account join another one).
        Both show "Compare: 123 456": when the two codes match, answer y on both; then
        the account key travels to the new device, encrypted, and both print the other's
        name. If the codes differ, answer n: someone may be in between, and nothing is
        exchanged. Compare the code on the device that has the account above all: its
        answer is what protects the key. One comparison per run; a run ends after one
        success, one failed comparison, or the timeout.

        Where one device has no screen to compare on (a headless machine reached by ssh),
        use a one-time code instead: --show-code on one device prints a code like
        1234-5678; give it to the other with --code 1234-5678. Either device may show it.
        Nothing is compared or asked: the devices prove to each other that they hold the
        same code (SPAKE2), and a typo is caught before anything is sent. A code serves
        one run.

        The new device's name is what the others show: on a terminal, the new device
        asks for it first (Enter keeps the default, e.g. "Ada's laptop"); --name NAME
        sets it without asking, on either device; run without a terminal, the name
        stays as it is (`handoff device --name` changes it later).

        --yes-if-code DIGITS answers by itself (yes only when the code is DIGITS), for
        scripts. With --json, events are JSON lines and the answer is read as a line
        (y/yes or n/no) from standard input unless --yes-if-code is given.
        """
    static let options: [OptionSpec] = NetworkOptions.linkBeacons + [
        .flag("--join", "join another account even though this device has one (needs --force)"),
        .flag("--force", "with --join: replace this device's account"),
        .value("--name", "NAME", "this device's name, as the other devices show it (1-64 bytes, no control characters)"),
        .value("--yes-if-code", "DIGITS", "answer the comparison without asking: yes if the code is DIGITS, else no"),
        .flag("--show-code", "pair by a one-time code instead of comparing: make one and show it"),
        .value("--code", "CODE", "pair by the one-time code the other device shows (--show-code there)"),
        .value("--timeout", "SECONDS", "how long to wait, at most and by default 120"),
        .value("--listen", "HOST:PORT", "joiner: TCP address to listen on (default [::]:0, a free port)"),
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        var config = PairingConfiguration(beacons: try NetworkOptions.beaconConfig(arguments, names: false))
        if let timeout = try arguments.seconds("--timeout") {
            guard timeout > 0, timeout <= 120 else { throw arguments.usage("--timeout must be more than 0 and at most 120 seconds") }
            config.limits.window = timeout
        }
        if let text = arguments.value("--listen") {
            do { config.listenAddress = try SocketAddress(parsing: text) } catch { throw arguments.usage("--listen: \(error.message)") }
        }
        var expected: ComparisonCode?
        if let text = arguments.value("--yes-if-code") {
            guard let code = ComparisonCode(digits: text) else { throw arguments.usage("--yes-if-code \"\(text)\" is not six digits") }
            expected = code
        }
        if arguments.has("--force") && !arguments.has("--join") { throw arguments.usage("--force goes with --join") }
        let method = try Self.method(arguments, output)
        if method != .comparison, expected != nil { throw arguments.usage("--yes-if-code is for a comparison, not with a one-time code") }
        let name = arguments.value("--name")
        if let name {
            do { try DeviceIdentity.validateName(name) } catch { throw arguments.usage("--name: \(error.message)") }
        }
        let profile = try Profile.open()
        var device = try profile.device()
        let existing = try profile.existingAccount()
        let joining = existing == nil || arguments.has("--join")
        if let chosen = name ?? (joining && expected == nil ? DeviceNamePrompt.ask(default: device.name, output) : nil),
           chosen != device.name {
            device.name = chosen
            try profile.store.saveDevice(device)
        }
        Signals.install()
        config.cancelFD = Signals.fd

        var events = PairingEvents { code in
            output.emit(["event": "code", "code": .string(code.digits), "text": .string(code.description)],
                        human: tr("Compare: {code}", ["code": code.description]))
            if let expected { return PairingPrompt.answer(yesIf: expected, shown: code) }
            return LineAnswer.prompt(code, output)
        }
        events.listening = { port in
            output.emit(["event": "listening", "port": .int(Int64(port))], human: "")
            output.note(tr("Waiting for a device of the account: run `handoff pair` there (TCP port {port}).", ["port": "\(port)"]))
        }
        events.beaconsReady = { port in
            output.emit(["event": "looking", "port": .int(Int64(port))], human: "")
            output.note(tr("Looking for a new device: run `handoff pair` there."))
        }
        events.found = { address in
            output.emit(["event": "found", "address": .string(address)], human: "")
        }
        events.joinerName = { name in
            // Unauthenticated until the codes match: said as a claim.
            output.emit(["event": "joiner-name", "name": .string(name)],
                        human: tr("A new device calling itself “{name}” asks to join.", ["name": name]))
        }

        if let account = existing, !arguments.has("--join") {
            let result = try PairingSponsor.run(config, accountKey: account, deviceName: device.name, method: method, events: events)
            output.emit(["event": "paired", "role": "sponsor", "peer": .string(result.peerName), "account": .string(result.accountID)],
                        human: tr("Paired with {device}: it joined account {account}.", ["device": result.peerName, "account": result.accountID]))
            return ExitCode.ok
        }
        if let account = existing, !arguments.has("--force") {
            throw HandoffError(.invalidState,
                "this device is on account \(account.id); --join --force replaces it with the account of the other device")
        }
        let result = try PairingJoiner.run(config, deviceName: device.name, store: profile.store, method: method, events: events)
        output.emit(["event": "paired", "role": "joiner", "peer": .string(result.peerName), "account": .string(result.accountID)],
                    human: tr("Paired with {device}: this device joined account {account}.",
                               ["device": result.peerName, "account": result.accountID]))
        return ExitCode.ok
    }
}

extension PairCommand {
    /// Comparison, or a one-time code made here (shown now) or given.
    static func method(_ arguments: ParsedArguments, _ output: Output) throws -> PairingMethod {
        switch (arguments.has("--show-code"), arguments.value("--code")) {
        case (true, _?): throw arguments.usage("--show-code makes a code, --code takes the other device's: choose one")
        case (true, nil):
            let code = OneTimeCode.generate()
            output.emit(["event": "one-time-code", "code": .string(code.description)],
                        human: tr("Pairing code: {code}\nType it on the other device: handoff pair --code {code}", ["code": code.description]))
            return .code(code)
        case (false, let text?):
            return .code(try OneTimeCode(typed: text))
        case (false, nil):
            return .comparison
        }
    }
}

/// The person's answer as a line on standard input: y/yes or n/no (any
/// case); end of input is no; anything else asks again.
enum LineAnswer {
    static func prompt(_ code: ComparisonCode, _ output: Output) -> PairingPrompt {
        let ask = tr("Do both devices show {code}? [y/n] ", ["code": code.description])
        if !output.json { Output.writeError(ask) }
        var line: [UInt8] = []
        return PairingPrompt(fd: 0) {
            var byte: UInt8 = 0
            while true {
                let n = read(0, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { return nil }
                if n == 0 { return false }
                if byte != UInt8(ascii: "\n") {
                    if line.count < 64 { line.append(byte) }
                    // Only what is there now: the prompt must not block the pairing.
                    var entry = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
                    if poll(&entry, 1, 0) <= 0 { return nil }
                    continue
                }
                let word = String(decoding: line, as: UTF8.self).trimmingWhitespace.lowercased()
                line = []
                // An answer piped in is not echoed: end the prompt's line.
                if !output.json && isatty(0) == 0 { Output.writeError("\n") }
                switch word {
                case "y", "yes": return true
                case "n", "no": return false
                default:
                    if !output.json { Output.writeError(tr("Answer y if the codes match, n if not. ") + ask) }
                    var entry = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
                    if poll(&entry, 1, 0) <= 0 { return nil }
                }
            }
        }
    }
}
