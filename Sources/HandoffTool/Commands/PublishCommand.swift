// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff publish`: makes an activity current and offers it to the
/// account's other devices until interrupted.
enum PublishCommand: Command {
    static let name = "publish"
    static let summary = "offer an activity to your other devices until interrupted"
    static let synopsis = [
        "publish --type TYPE [--title TITLE] [--info KEY=VALUE]... [--url URL] [--team TEAM]",
        "        [--required-key KEY]... [--searchable [--keyword WORD]... [--searchable-key KEY]... [--persistent-id ID]]",
        "        [--once] [--timeout SECONDS] [--agent | --embedded] [network options]",
    ]
    static let details = """
        Makes a new activity of TYPE current, as an app does, and advertises it with
        encrypted beacons; another device fetches it over the TLS channel when it
        continues it. Prints a "publishing" event with the activity id, then a
        "continued" event each time a device continues it. Ctrl-C withdraws it.

        TYPE is written as apps declare it in NSUserActivityTypes: any 1 to 255
        bytes without control characters, matched exactly (com.example.app.edit,
        INSendMessageIntent, ReadArticle).

        --info values are strings; KEY:int=3, KEY:real=0.5, KEY:bool=true,
        KEY:url=https://..., KEY:null= give other types. The encoded userInfo must
        stay under 3072 bytes, or the other device gets error 4611.

        The tool acts as the app org.libhandoff.handoff of team HANDOFFCLI (or
        --team) and declares TYPE. Only apps of the same team continue it; other
        devices see it as a web page when --url is given.

        --searchable marks it eligible for search: through the agent, the history
        keeps it (docs/history.md), found by its title, its --keyword words and the
        strings of the --searchable-key userInfo keys; --persistent-id names it for
        deletion.

        When the handoff agent serves this user and account, the activity goes
        through it, as an app's does, so the device advertises one activity (the
        most recent of its apps' and this one); otherwise, or with a network
        option or --embedded, the tool runs an engine of its own.
        """
    static let options: [OptionSpec] = [
        .value("--type", "TYPE", "the activity type, e.g. com.example.app.edit (required)"),
        .value("--title", "TITLE", "the title other devices show"),
        .repeated("--info", "KEY=VALUE", "a userInfo entry"),
        .value("--url", "URL", "web page (http or https) to open where no app can continue it"),
        ToolIdentity.teamOption,
        .repeated("--required-key", "KEY", "a userInfo key the activity needs to be handed off"),
        .flag("--searchable", "eligible for search: the history keeps it"),
        .repeated("--keyword", "WORD", "a keyword search finds it by"),
        .repeated("--searchable-key", "KEY", "a userInfo key whose strings search finds it by"),
        .value("--persistent-id", "ID", "its persistent identifier (apps delete saved activities by it)"),
        .flag("--once", "exit after the first device continued it (status 1 if none did before --timeout)"),
        .value("--timeout", "SECONDS", "stop after this long (default: run until interrupted)"),
    ] + NearbySource.options + NetworkOptions.beacons + NetworkOptions.channel

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        guard let type = arguments.value("--type") else { throw arguments.usage("--type TYPE is required") }
        let team = ToolIdentity.team(arguments)
        let manifest = try ToolIdentity.manifest(team: team, types: [type], arguments)
        let activity = try makeActivity(type, arguments)
        let timeout = try arguments.seconds("--timeout")
        let once = arguments.has("--once")
        let mode = try NearbySource.mode(arguments)
        let settings = try NetworkOptions.settings(arguments)
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()
        var config = settings.configuration(account: account, device: device)
        // The person's controls (docs/agent.md "Settings"), applied live.
        config.settingsDirectory = profile.directory

        let size = activity.encodedUserInfoSize
        if size > HandoffBudget.userInfoBytes {
            output.warning(tr("the userInfo is {size} bytes encoded, over the {budget}-byte budget: a device that continues it gets error 4611",
                              ["size": "\(size)", "budget": "\(HandoffBudget.userInfoBytes)"]))
        }
        if !activity.missingRequiredKeys.isEmpty {
            output.warning(tr("the userInfo lacks the required key(s) {keys}: a device that continues it gets error 4608",
                              ["keys": activity.missingRequiredKeys.joined(separator: ", ")]))
        }

        // One engine per device identity (docs/agent.md §4): through the
        // agent when it serves this device, as any app in AUTO mode.
        var choice = ContinuityModeChoice(mode: mode, accountID: account.id)
        choice.deviceSettings = NearbySource.deviceOptions.filter { arguments.has($0) || arguments.value($0) != nil }
        if let fetch = settings.fetchTimeout { choice.fetchTimeout = fetch }
        if let connect = settings.connectTimeout { choice.connectTimeout = connect }
        let engineConfiguration = config
        let (service, chosen) = try choice.start(manifest: manifest) { () throws(HandoffError) -> any ContinuityService in
            try ContinuityEngine(configuration: engineConfiguration)
        }
        let engine = service as? ContinuityEngine
        let app = try Application(manifest: manifest, delegate: QuietDelegate(), continuity: service)
        defer { service.detach() }
        let loop = MainLoop([app.queue])
        var continued = 0
        let listener = ContinuedListener { continuedActivity in
            continued += 1
            output.emit(["event": "continued", "id": .string(continuedActivity.activityID.uuidString)],
                        human: tr("Continued on another device ({count}).", ["count": "\(continued)"]))
            if once { loop.stop() }
        }
        activity.retainDelegate(listener)
        try app.becomeCurrent(activity)

        var event: JSONObject = ["event": "publishing", "id": .string(activity.activityID.uuidString), "type": .string(type),
                           "title": .string(activity.title), "team": .string(team), "bundle": .string(manifest.bundleIdentifier),
                           "account": .string(account.id), "device": AccountCommand.deviceJSON(device),
                           "via": .string(chosen == .agent ? "agent" : "embedded"),
                           "user_info_bytes": .int(Int64(size))]
        var reach = tr("through the handoff agent")
        if let engine {
            event["beacon_port"] = .int(Int64(engine.beaconPort))
            event["channel_port"] = .int(Int64(engine.channelPort))
            reach = tr("channel port {port}", ["port": "\(engine.channelPort)"])
        }
        output.emit(.object(event),
                    human: (activity.title.map { tr("Publishing {type} \"{title}\" as {device}", ["type": type, "title": $0, "device": device.name]) }
                           ?? tr("Publishing {type} as {device}", ["type": type, "device": device.name])) + "\n    "
                        + tr("id {id}, team {team}, {reach}", ["id": activity.activityID.uuidString, "team": team, "reach": reach]))
        if let engine {
            output.note(tr("Offering it ({how}); Ctrl-C withdraws it.", ["how": NetworkOptions.describe(config.beacons, port: engine.beaconPort)]))
        } else if let agent = service as? AgentClient {
            output.note(tr("Offering it through the handoff agent ({socket}); Ctrl-C withdraws it.", ["socket": agent.options.socketPath]))
        }

        let end = loop.run(timeout: timeout)
        app.resignCurrent(activity)
        if once && continued == 0 && end == .timedOut {
            throw HandoffError(.timedOut, "no device continued the activity within \(timeout ?? 0) s")
        }
        return ExitCode.ok
    }

    private static func makeActivity(_ type: String, _ arguments: ParsedArguments) throws(UsageError) -> UserActivity {
        do {
            let activity = try UserActivity(activityType: type)
            activity.title = arguments.value("--title")
            var info: UserInfo = [:]
            for text in arguments.values("--info") {
                let (key, value) = try InfoArgument.parse(text, arguments)
                info[key] = value
            }
            try activity.setUserInfo(info)
            if let text = arguments.value("--url") {
                guard let url = URLReference(string: text) else { throw arguments.usage("--url \"\(text)\" is not a URL") }
                try activity.setWebpageURL(url)
            }
            activity.requiredUserInfoKeys = Set(arguments.values("--required-key"))
            activity.isEligibleForSearch = arguments.has("--searchable")
            activity.keywords = Set(arguments.values("--keyword"))
            activity.searchableUserInfoKeys = Set(arguments.values("--searchable-key"))
            activity.persistentIdentifier = arguments.value("--persistent-id")
            return activity
        } catch let error as UsageError {
            throw error
        } catch let error as HandoffError {
            throw arguments.usage(error.message)
        } catch {
            throw arguments.usage("\(error)")
        }
    }
}

/// The userInfo budget (docs/PROTOCOL.md §2): beyond it a continue fails with 4611.
enum HandoffBudget {
    static let userInfoBytes = 3072
}

/// Tells publish when another device continued its activity.
final class ContinuedListener: UserActivityDelegate {
    private let handler: (UserActivity) -> Void
    init(_ handler: @escaping (UserActivity) -> Void) { self.handler = handler }
    func userActivityWasContinued(_ activity: UserActivity) { handler(activity) }
}

/// An application delegate with no callbacks: what publish needs.
final class QuietDelegate: ApplicationDelegate {}
