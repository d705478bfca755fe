// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// `handoff session`: any program becomes a Handoff app by writing and
/// reading JSON lines (docs/cli.md "handoff session"); the Neovim plugin
/// (bridges/nvim) is one.
enum SessionCommand: Command {
    static let name = "session"
    static let summary = "be an app for a script: JSON lines in and out"
    static let synopsis = [
        "session --app BUNDLE-ID [--type TYPE]... [--team TEAM] [--agent | --embedded] [network options]",
    ]
    static let details = """
        Runs as the app BUNDLE-ID until its standard input ends, SIGINT or
        SIGTERM, speaking one JSON object per line: a script (Lua, Emacs Lisp,
        shell) adopts Handoff by writing and reading lines. In:
        {"publish": {"type", "title", "user_info", "webpage_url"}} makes that the
        app's current activity (user_info in the tagged JSON form the command's
        output writes: {"$url": ...} for a URL); {"withdraw": {}} withdraws it;
        {"continue": {"id": ID}} continues an activity another device offers. Out:
        "ready" once running, "published", "withdrawn", "offered" (what other
        devices offer that this app continues, each time it changes),
        "continue" (an activity to restore: continued here, from a
        notification or "continue"), "failed", "continued" (this app's activity
        was continued elsewhere) and "error" (a line refused: the session goes
        on; a line over 64 KiB is refused unread).

        The app declares the --type types, else those of its installed desktop
        entry (X-Handoff-ActivityTypes); its team is --team, else the entry's,
        else HANDOFFCLI. Through the agent when it serves this user and account
        (the agent then hands it what the person continues), else with an
        engine of its own. See docs/cli.md.
        """
    static let options: [OptionSpec] = [
        .value("--app", "BUNDLE-ID", "the app's bundle identifier, e.g. org.neovim.nvim (required)"),
        .repeated("--type", "TYPE", "an activity type the app publishes and continues (default: its desktop entry's)"),
        .value("--team", "TEAM", "the app's team identifier (default: its desktop entry's, else \(ToolIdentity.defaultTeam))"),
    ] + NearbySource.options + NetworkOptions.beacons + NetworkOptions.channel

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        // A reader gone is a failed write, not death: the session withdraws.
        signal(SIGPIPE, SIG_IGN)
        Signals.install()
        let manifest = try SessionIdentity.manifest(arguments) { SessionIdentity.installedApp(arguments.value("--app")) }
        let mode = try NearbySource.mode(arguments)
        let settings = try NetworkOptions.settings(arguments)
        // Failures from here on are lines too: the script reads stdout.
        let lines = SessionOutput()
        do {
            return try serve(manifest, mode: mode, settings: settings, arguments, lines)
        } catch let error as HandoffError {
            lines.error(error)
            throw error
        }
    }

    private static func serve(_ manifest: Manifest, mode: ContinuityMode, settings: NetworkOptions.Settings,
                              _ arguments: ParsedArguments, _ lines: SessionOutput) throws -> Int32 {
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()
        var config = settings.configuration(account: account, device: device)
        config.settingsDirectory = profile.directory

        var choice = ContinuityModeChoice(mode: mode, accountID: account.id)
        choice.deviceSettings = NearbySource.deviceOptions.filter { arguments.has($0) || arguments.value($0) != nil }
        // As an app in AUTO mode: a session outlives agents coming and going.
        choice.follow = mode == .automatic
        if let fetch = settings.fetchTimeout { choice.fetchTimeout = fetch }
        if let connect = settings.connectTimeout { choice.connectTimeout = connect }
        let engineConfiguration = config
        let (service, chosen) = try choice.start(manifest: manifest) { () throws(HandoffError) -> any ContinuityService in
            try ContinuityEngine(configuration: engineConfiguration)
        }
        let host = SessionHost(manifest: manifest, output: lines)
        let app = try Application(manifest: manifest, delegate: host, continuity: service)
        defer { service.detach() }
        host.application = app

        var ready: JSONObject = [
            "app": .string(manifest.bundleIdentifier), "team": .string(manifest.teamIdentifier),
            "types": .array(manifest.activityTypes.map { .string($0) }), "via": .string(chosen == .agent ? "agent" : "embedded"),
            "account": .string(account.id), "device": AccountCommand.deviceJSON(device),
        ]
        if let engine = service as? ContinuityEngine {
            ready["beacon_port"] = .int(Int64(engine.beaconPort))
            ready["channel_port"] = .int(Int64(engine.channelPort))
        }
        lines.send("ready", .object(ready))
        _ = host.run(MainLoop([app.queue]))
        // Let the withdrawal leave before the service goes.
        _ = try? app.dispatch()
        return ExitCode.ok
    }
}
