import FoundationEssentials
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff continue ID`: continues an activity another device offers,
/// as an app would, and prints what arrived.
enum ContinueCommand: Command {
    static let name = "continue"
    static let summary = "continue an activity another device offers, and print it"
    static let synopsis = ["continue ID [--type TYPE] [--team TEAM] [--timeout SECONDS] [network options]"]
    static let details = """
        Waits for the activity ID (as `handoff nearby` or `handoff publish` print it)
        to be offered, continues it as an app does (the sender's app hands it over
        over the TLS channel, then hears it was continued) and prints its type,
        title, web page URL and userInfo.

        The tool acts as the app org.libhandoff.handoff of team HANDOFFCLI (or
        --team) declaring the activity's type: --type, or else the type its beacons
        announce. Handoff gives an app only its own team's activities: continuing
        another team's activity needs --team; one with a web page URL is then
        offered as that page only (printed, "web_only": true).

        On failure it exits 1 with Apple's error: 4608 handoff failed, 4609 the
        device cannot be reached or nothing offered ID in time, 4610 the sending app
        did not hand it over in time, 4611 its userInfo is over the 3072-byte budget.
        """
    static let options: [OptionSpec] = [
        .value("--type", "TYPE", "the activity's type (default: learn it from its beacons)"),
        ToolIdentity.teamOption,
        .value("--timeout", "SECONDS", "give up after this long (default 15)"),
    ] + NetworkOptions.beacons + NetworkOptions.channel
    static let positionals = 1...1

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        let idText = arguments.positionals[0]
        guard let id = UUID(uuidString: idText) else {
            throw arguments.usage("\"\(idText)\" is not an activity id (a UUID such as 6F9619FF-8B86-D011-B42D-00C04FC964FF)")
        }
        let team = ToolIdentity.team(arguments)
        _ = try ToolIdentity.manifest(team: team, types: [], arguments)  // checks --team early
        let timeout = try arguments.seconds("--timeout") ?? 15
        let settings = try NetworkOptions.settings(arguments)
        let deadline = monotonicSeconds() + timeout
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()
        guard device.role == .full else {
            throw HandoffError(.invalidState,
                "this device is send-only: it offers activities but is never offered any; `handoff device --role full` changes that")
        }
        let config = settings.configuration(account: account, device: device)

        var type = arguments.value("--type")
        if type == nil {
            guard let found = try ActivityFinder.find(id, config: config.beacons, account: account, device: device,
                                                      until: deadline, output: output) else {
                output.note("Interrupted.")
                return ExitCode.failure
            }
            if found.team != team && found.webpageURL == nil {
                throw HandoffError(.handoffFailed,
                    "activity \(id.uuidString) is offered by team \(found.team)'s app (\(found.bundle)); Handoff gives it only "
                        + "to apps of that team, and the tool acts as team \(team): add --team \(found.team)")
            }
            type = found.type
        }
        let manifest = try ToolIdentity.manifest(team: team, types: [type!], arguments)
        return try continueActivity(id, manifest: manifest, config: config, deadline: deadline, output: output)
    }

    private static func continueActivity(_ id: UUID, manifest: Manifest, config: ContinuityConfiguration,
                                         deadline: Double, output: Output) throws -> Int32 {
        let engine = try ContinuityEngine(configuration: config)
        let session = ContinueSession(id: id, output: output)
        let app = try Application(manifest: manifest, delegate: session, continuity: engine)
        let loop = MainLoop([app.queue])
        session.loop = loop
        output.note("Waiting for activity \(id.uuidString) (\(NetworkOptions.describe(config.beacons, port: engine.beaconPort)))…")
        let end = loop.run(timeout: max(0, deadline - monotonicSeconds()))
        // Lets the confirmation reach the sender before the process ends.
        engine.detach()
        switch session.outcome {
        case .continued(let activity, let remote)?:
            output.emit(.object(ActivityPrinter.json(activity, remote: remote)), human: ActivityPrinter.text(activity, remote: remote))
            return ExitCode.ok
        case .webpage(let url, let remote)?:
            output.emit(.object(ActivityPrinter.webJSON(url, remote: remote)),
                        human: "No app here continues \(remote.activityType) (another team, or not declared); its web page:\n\(url.absoluteString)")
            return ExitCode.ok
        case .failed(let error)?:
            throw error
        case nil:
            if case .interrupted = end {
                output.note("Interrupted.")
                return ExitCode.failure
            }
            throw HandoffError(.connectionUnavailable,
                "no device of the account offered activity \(id.uuidString) to team \(manifest.teamIdentifier) in time: "
                    + "`handoff nearby` lists what is offered (and its team), `handoff doctor` checks the network")
        }
    }
}

/// The receiving application's delegate: continues the activity once it
/// is offered and keeps the outcome.
final class ContinueSession: ApplicationDelegate {
    enum Outcome {
        case continued(UserActivity, RemoteActivity)
        case webpage(URL, RemoteActivity)
        case failed(HandoffError)
    }

    let id: UUID
    let output: Output
    var loop: MainLoop?
    private(set) var outcome: Outcome?
    private var remote: RemoteActivity?

    init(id: UUID, output: Output) {
        self.id = id
        self.output = output
    }

    func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) {
        guard remote.activityID == id, self.remote == nil else { return }
        self.remote = remote
        output.note("\(remote.deviceName) offers it; continuing.")
        application.continueActivity(remote)
    }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        output.note("Fetching \(activityType)…")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        outcome = .continued(userActivity, remote!)
        loop?.stop()
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
        outcome = .failed(error)
        loop?.stop()
    }

    func application(_ application: Application, openWebpage url: URL, for remote: RemoteActivity) {
        outcome = .webpage(url, remote)
        loop?.stop()
    }
}
