import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff nearby`: a live list of what the account's other devices offer.
enum NearbyCommand: Command {
    static let name = "nearby"
    static let summary = "list the activities your other devices offer, live, as they come and go"
    static let synopsis = ["nearby [--type TYPE] [--once] [--timeout SECONDS] [network options]"]
    static let details = """
        Listens to the account's beacons and prints an event each time an activity
        becomes available, is updated or is withdrawn, until interrupted (Ctrl-C) or
        --timeout. Every team and type of the account is listed; a device is shown
        once its channel answers a TLS handshake with the account's key. A device
        whose beacons arrive but whose channel does not answer is reported as
        unreachable, with the reason.

        Human output: "+" available, "~" updated, "-" withdrawn, "!" unreachable.
        With --json: one object per line, {"event": "listening" | "available" |
        "updated" | "withdrawn" | "unreachable", ...} (docs/cli.md).
        """
    static let options: [OptionSpec] = [
        .value("--type", "TYPE", "only activities of this type"),
        .flag("--once", "exit after the first available activity (status 1 if none came before --timeout)"),
        .value("--timeout", "SECONDS", "stop after this long (default: run until interrupted)"),
    ] + NetworkOptions.beacons + [
        .value("--connect-timeout", "SECONDS", "time to connect to and authenticate a device (default 3)"),
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        let config = try NetworkOptions.beaconConfig(arguments)
        let timeout = try arguments.seconds("--timeout")
        var limits = ChannelLimits()
        if let connect = try arguments.seconds("--connect-timeout"), connect > 0 {
            limits.connectTimeout = connect
            limits.handshakeTimeout = connect
        }
        let typeFilter = arguments.value("--type")
        let once = arguments.has("--once")
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()

        let queue = try HostQueue()
        let loop = MainLoop([queue])
        let watcher = try NearbyWatcher(config: config, account: account, device: device, queue: queue, limits: limits)
        defer { watcher.stop() }
        var sawOne = false
        watcher.onEvent = { event in
            if let typeFilter, event.activity.type != typeFilter { return }
            output.emit(event.json, human: event.humanLine)
            if case .available = event {
                sawOne = true
                if once { loop.stop() }
            }
        }
        watcher.onUnreachable = { deviceName, channel, error in
            output.emit(["event": "unreachable", "device_name": .string(deviceName), "channel": .string(channel.description),
                         "error": Output.errorObject(error)],
                        human: "! \(deviceName) sends beacons, but its channel \(channel) does not answer: \(error.message) "
                            + "(try `handoff doctor --peer \(channel)`)")
        }
        output.emit(["event": "listening", "account": .string(account.id), "beacon_port": .int(Int64(watcher.scanner.port)),
                     "multicast": .bool(config.multicast), "peers": .array(config.peers.map { .string($0.description) })],
                    human: "")
        output.note("Listening for account \(account.id)'s activities (\(NetworkOptions.describe(config, port: watcher.scanner.port))); Ctrl-C stops.")

        let end = loop.run(timeout: timeout)
        if once && !sawOne && end == .timedOut {
            throw HandoffError(.timedOut, "no other device of account \(account.id) offered an activity within \(timeout ?? 0) s: "
                + "is one publishing? `handoff doctor` checks this network")
        }
        return ExitCode.ok
    }
}

extension NearbyEvent {
    var json: JSON {
        var object = activity.json
        object["event"] = .string(name)
        // "event" first, for people reading the lines.
        var ordered: JSONObject = ["event": .string(name)]
        for (key, value) in object.pairs where key != "event" { ordered[key] = value }
        return .object(ordered)
    }

    var humanLine: String {
        switch self {
        case .available(let a): "+ \(a.headline)\n    \(a.details)"
        case .updated(let a): "~ \(a.headline)\n    \(a.details)"
        case .withdrawn(let a): "- \(a.headline) (id \(a.id))"
        }
    }
}
