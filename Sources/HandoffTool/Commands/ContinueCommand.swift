// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff continue ID`: continues an activity another device offers,
/// as an app would, and prints what arrived.
enum ContinueCommand: Command {
    static let name = "continue"
    static let summary = "continue an activity another device offers, and print it"
    static let synopsis = ["continue ID [--type TYPE] [--team TEAM] [--timeout SECONDS] [--agent | --embedded] [network options]"]
    static let details = """
        Waits for the activity ID (as `handoff nearby` or `handoff publish` print it)
        to be offered, continues it as an app does (the sender's app hands it over
        over the TLS channel, then hears it was continued) and prints its type,
        title, web page URL and userInfo.

        The tool acts as the app org.libhandoff.handoff of team HANDOFFCLI (or
        --team) declaring the activity's type: --type, or else the type it is
        offered with. Handoff gives an app only its own team's activities:
        continuing another team's activity needs --team; one with a web page URL is
        then offered as that page only (printed, "web_only": true).

        Like nearby, it goes through the handoff agent when one runs for this user
        and account and no network option is given, else (or with --embedded)
        with an engine of its own.

        On failure it exits 1 with Apple's error: 4608 handoff failed, 4609 the
        device cannot be reached or nothing offered ID in time, 4610 the sending app
        did not hand it over in time, 4611 its userInfo is over the 3072-byte budget.
        """
    static let options: [OptionSpec] = [
        .value("--type", "TYPE", "the activity's type (default: the type it is offered with)"),
        ToolIdentity.teamOption,
        .value("--timeout", "SECONDS", "give up waiting for the offer after this long (default 15)"),
    ] + NearbySource.options + NetworkOptions.beacons + NetworkOptions.channel
    static let positionals = 1...1

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        let idText = arguments.positionals[0]
        guard let id = ActivityID(uuidString: idText) else {
            throw arguments.usage("\"\(idText)\" is not an activity id (a UUID such as 6F9619FF-8B86-D011-B42D-00C04FC964FF)")
        }
        let team = ToolIdentity.team(arguments)
        let type = arguments.value("--type")
        _ = try ToolIdentity.manifest(team: team, types: type.map { [$0] } ?? [], arguments)  // checks early
        _ = try NearbySource.mode(arguments)
        let timeout = try arguments.seconds("--timeout") ?? 15
        let settings = try NetworkOptions.settings(arguments)
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()
        guard device.role == .full else {
            throw HandoffError(.invalidState,
                "this device is send-only: it offers activities but is never offered any; `handoff device --role full` changes that")
        }

        let queue = try HostQueue()
        let loop = MainLoop([queue])
        // The person's settings apply (documents' limits, the devices accepted from).
        let source = try NearbySource(arguments, settings: settings, account: account, device: device, queue: queue,
                                      settingsDirectory: profile.directory)
        // Stopping lets the confirmation reach the sender before the process ends.
        defer { source.stop() }
        var offered: RemoteActivity?
        source.onChange = { change in
            guard offered == nil, change.remote.activityID == id, change.name != "withdrawn" else { return }
            // With --type, an activity offered with another type is not this app's (as the engine would gate it).
            if let type, change.remote.activityType != type { return }
            offered = change.remote
            loop.stop()
        }
        output.note(type == nil
                    ? tr("Looking for activity {id} {how}…", ["id": id.uuidString, "how": source.describe(settings.beacons)])
                    : tr("Waiting for activity {id} {how}…", ["id": id.uuidString, "how": source.describe(settings.beacons)]))
        let end = loop.run(timeout: timeout)
        guard let remote = offered else {
            if case .interrupted = end {
                output.note(tr("Interrupted."))
                return ExitCode.failure
            }
            throw HandoffError(.connectionUnavailable,
                "no device of account \(account.id) offered activity \(id.uuidString) in time: `handoff nearby` lists what "
                    + "is offered (and its team), `handoff doctor` checks the network")
        }
        // What this app (team, declared type) is offered of it: the gate every app passes.
        let manifest = try ToolIdentity.manifest(team: team, types: [remote.activityType], arguments)
        guard let gated = ActivityGate.offer(remote, to: .application(manifest)) else {
            throw HandoffError(.handoffFailed,
                "activity \(id.uuidString) is offered by team \(remote.teamIdentifier)'s app (\(remote.bundleIdentifier)); "
                    + "Handoff gives it only to apps of that team, and the tool acts as team \(team): "
                    + "add --team \(remote.teamIdentifier)")
        }
        if gated.isWebOnly, let url = gated.webpageURL {
            var object = ActivityPrinter.webJSON(url, remote: gated)
            object["via"] = .string(source.via.rawValue)
            output.emit(.object(object),
                        human: tr("No app here continues {type} (another team, or not declared); its web page:", ["type": gated.activityType])
                            + "\n\(url.absoluteString)")
            return ExitCode.ok
        }
        output.note(tr("{device} offers it; continuing.", ["device": remote.deviceName]))
        output.note(tr("Fetching {type}…", ["type": remote.activityType]))
        let activity = try fetch(remote, source: source, queue: queue, loop: loop)
        var object = ActivityPrinter.json(activity, remote: remote)
        object["via"] = .string(source.via.rawValue)
        output.emit(.object(object), human: ActivityPrinter.text(activity, remote: remote))
        return ExitCode.ok
    }

    /// The fetch over the source, as an application continues (the payload
    /// read and checked, then CONFIRM). Bounded by the service's own
    /// timeouts; Ctrl-C ends the wait.
    private static func fetch(_ remote: RemoteActivity, source: NearbySource, queue: HostQueue,
                              loop: MainLoop) throws -> UserActivity {
        final class Answer: @unchecked Sendable {
            // @unchecked: set and read on the main thread only.
            var result: Result<[UInt8], HandoffError>?
            var loop: MainLoop?
        }
        let answer = Answer()
        answer.loop = loop
        source.service.fetch(remote) { result in
            queue.post {
                answer.result = result
                answer.loop?.stop()
            }
        }
        while answer.result == nil {
            if case .interrupted = loop.run(timeout: nil) { throw HandoffError(.handoffFailed, "interrupted while fetching") }
        }
        let activity: UserActivity
        let bytes = try answer.result!.get()
        do throws(HandoffError) {
            activity = try ActivityCoding.decode(bytes)
        } catch {
            throw error.isUserActivityError ? error
                : HandoffError(.handoffFailed, "the other device sent an activity that cannot be read: \(error.message)")
        }
        guard activity.activityType == remote.activityType, activity.activityID == remote.activityID else {
            throw HandoffError(.handoffFailed, "the other device sent a different activity than the one offered")
        }
        source.service.confirmContinued(remote)
        return activity
    }
}
