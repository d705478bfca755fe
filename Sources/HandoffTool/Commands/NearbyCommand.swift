// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff nearby`: a live list of what the account's other devices offer.
enum NearbyCommand: Command {
    static let name = "nearby"
    static let summary = "list the activities your other devices offer, live, as they come and go"
    static let synopsis = ["nearby [--type TYPE] [--once] [--timeout SECONDS] [--agent | --embedded] [network options]"]
    static let details = """
        Prints an event each time an activity of another device of the account
        becomes available, is updated or is withdrawn, until interrupted (Ctrl-C) or
        --timeout. Every team and type of the account is listed; a device is shown
        once its channel answers a TLS handshake with the account's key.

        It listens through the handoff agent when one runs for this user and
        account and no network option is given; otherwise (or with --embedded)
        with an engine of its own. One line says which. A send-only device is
        offered nothing, so nearby lists nothing there.

        Human output: "+" available, "~" updated, "-" withdrawn.
        With --json: one object per line, {"event": "listening" | "available" |
        "updated" | "withdrawn", ...} (docs/cli.md).
        """
    static let options: [OptionSpec] = [
        .value("--type", "TYPE", "only activities of this type"),
        .flag("--once", "exit after the first available activity (status 1 if none came before --timeout)"),
        .value("--timeout", "SECONDS", "stop after this long (default: run until interrupted)"),
    ] + NearbySource.options + NetworkOptions.beacons + [
        .value("--connect-timeout", "SECONDS", "time to connect to and authenticate a device (default 3)"),
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        _ = try NearbySource.mode(arguments)
        let settings = try NetworkOptions.settings(arguments)
        let timeout = try arguments.seconds("--timeout")
        let typeFilter = arguments.value("--type")
        let once = arguments.has("--once")
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()

        let queue = try HostQueue()
        let loop = MainLoop([queue])
        let source = try NearbySource(arguments, settings: settings, account: account, device: device, queue: queue)
        defer { source.stop() }
        var sawOne = false
        source.onChange = { change in
            if let typeFilter, change.remote.activityType != typeFilter { return }
            output.emit(change.json, human: change.humanLine)
            if case .available = change {
                sawOne = true
                if once { loop.stop() }
            }
        }
        var listening: JSONObject = ["event": .string("listening"), "via": .string(source.via.rawValue), "account": .string(account.id)]
        let role = source.agent?.welcome?.role ?? device.role
        listening["role"] = .string(role.name)
        if let engine = source.engine {
            listening["beacon_port"] = .int(Int64(engine.beaconPort))
            listening["multicast"] = .bool(settings.beacons.multicast)
            listening["peers"] = .array(settings.beacons.peers.map { .string($0.description) })
        } else {
            listening["socket"] = .string(source.agent?.options.socketPath)
        }
        output.emit(.object(listening), human: "")
        output.note("Listening for account \(account.id)'s activities \(source.describe(settings.beacons)); Ctrl-C stops.")
        if role == .sendOnly {
            output.note("This device is send-only: other devices offer it nothing, so nothing will be listed "
                        + "(`handoff device --role full` changes that).")
        }

        let end = loop.run(timeout: timeout)
        if once && !sawOne && end == .timedOut {
            throw HandoffError(.timedOut, "no other device of account \(account.id) offered an activity within \(timeout ?? 0) s: "
                + "is one publishing? `handoff doctor` checks this network")
        }
        return ExitCode.ok
    }
}

extension RemoteActivityChange {
    var name: String {
        switch self {
        case .available: "available"
        case .updated: "updated"
        case .withdrawn: "withdrawn"
        }
    }

    /// "event" first, for people reading the lines (docs/cli.md).
    var json: JSON {
        let r = remote
        var o: JSONObject = [
            "event": .string(name), "id": .string(r.activityID.uuidString), "type": .string(r.activityType),
            "title": .string(r.title), "team": .string(r.teamIdentifier), "bundle": .string(r.bundleIdentifier),
            "webpage_url": .string(r.webpageURL?.absoluteString), "streams": .bool(r.supportsContinuationStreams),
        ]
        o["expires"] = r.expirationDate.map { .double($0.timeIntervalSince1970) } ?? .null
        o["age"] = .double((r.age * 1000).rounded() / 1000)
        o["device"] = ["id": .string(r.deviceID), "name": .string(r.deviceName)]
        return .object(o)
    }

    var humanLine: String {
        let r = remote
        let headline = "\(r.activityType)\(r.title.map { " \"\($0)\"" } ?? "") from \(r.deviceName)"
        var details = ["id \(r.activityID.uuidString)", "team \(r.teamIdentifier)", "bundle \(r.bundleIdentifier)"]
        if let url = r.webpageURL { details.append("web \(url.absoluteString)") }
        if let expires = r.expirationDate {
            details.append("expires in \(Int(max(0, expires.timeIntervalSinceNow).rounded())) s")
        }
        switch self {
        case .available: return "+ \(headline)\n    \(details.joined(separator: ", "))"
        case .updated: return "~ \(headline)\n    \(details.joined(separator: ", "))"
        case .withdrawn: return "- \(headline) (id \(r.activityID.uuidString))"
        }
    }
}
