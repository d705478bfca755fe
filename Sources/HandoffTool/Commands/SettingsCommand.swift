// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffAgent
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff settings …`: the controls the person owns (docs/agent.md
/// "Settings"), in the settings file every engine on this device reads.
enum SettingsCommand: Command {
    static let name = "settings"
    static let summary = "show or change the controls: pause Handoff, per device offer/accept, per app mute"
    static let synopsis = [
        "settings",
        "settings pause | resume",
        "settings device DEVICE offer on|off",
        "settings device DEVICE accept on|off",
        "settings app BUNDLE-ID mute|unmute",
        "settings app BUNDLE-ID web-domains on|off",
        "settings app BUNDLE-ID history on|off",
        "settings device DEVICE history on|off",
        "settings history on|off",
        "settings history other-devices on|off",
        "settings history days N | entries N",
    ]
    static let details = """
        Without an action, shows the settings. Actions:

          pause    Handoff stops on this device: it offers nothing (what it offered is
                   withdrawn), shows nothing it hears and hands nothing over
          resume   undoes pause
          device DEVICE offer off
                   this device no longer hands its activities to DEVICE (DEVICE still
                   hears the beacons: it may show the title, but cannot continue it)
          device DEVICE accept off
                   nothing DEVICE offers is shown or fetched here
          app BUNDLE-ID mute
                   the app's activities are neither shown nor offered on this device
          app BUNDLE-ID web-domains off
                   web pages on the domains the app claims (X-Handoff-WebDomains) open
                   in the browser, not in the app
          history off
                   the history (docs/history.md) keeps nothing new; what it kept stays
                   until `handoff history delete --all`
          history other-devices on
                   other devices' activities eligible for search are kept too
                   (default off)
          history days N, history entries N
                   keep entries N days (1-3650, default 30), at most N of them
                   (100-100000, default 10000); the oldest go first
          app BUNDLE-ID history off, device DEVICE history off
                   nothing of that app or device is kept, and what was kept of it is
                   deleted now

        DEVICE is a device's name or its id or the start of its id, among the devices
        the agent hears now and those the settings name; a full id (32 hex digits, as
        `handoff devices` shows) may name any device. "on" undoes "off"; unmute undoes
        mute.

        The agent and running apps apply a change at once, without a restart. A
        damaged settings file counts as the defaults (shown with a warning) and is
        never overwritten: fix or remove it.

        With --json: {"path", "paused", "devices": [{"id", "name", "offer",
        "accept", "history"}], "muted_apps": [...], "web_domains_off": [...],
        "history": {"on", "other_devices", "days", "entries", "apps_off": [...]},
        "problem"} (problem only for a damaged file).

        File: $XDG_CONFIG_HOME/handoff/settings (mode 0600).
        """
    static let options: [OptionSpec] = []
    static let positionals = 0...4

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        let words = arguments.positionals
        let store = SettingsStore(directory: try Profile.open().directory)
        guard let action = words.first else {
            let loaded = store.load()
            if let problem = loaded.problem {
                output.warning("the settings file is not used, the defaults apply: \(problem.message)")
            }
            show(loaded.settings, problem: loaded.problem, store, output)
            return ExitCode.ok
        }
        let change: (inout HandoffSettings) -> Void
        var forget: HistoryDeletion?
        switch action {
        case "pause", "resume":
            try expectCount(words, 1, arguments)
            change = { $0.paused = action == "pause" }
        case "device":
            guard words.count == 4 else {
                throw arguments.usage("device needs a device, offer or accept, and on or off: handoff settings device DEVICE offer off")
            }
            let what = words[2]
            guard what == "offer" || what == "accept" || what == "history" else {
                throw arguments.usage("\"\(what)\" is not a device setting: use offer, accept or history")
            }
            let on = try onOff(words[3], arguments)
            let current = try store.loadStrictly()
            let (id, name) = try DeviceLookup.resolve(words[1], settings: current)
            change = { settings in
                var rule = settings.devices[id] ?? .init()
                switch what {
                case "offer": rule.offer = on
                case "accept": rule.accept = on
                default: rule.history = on
                }
                if let name { rule.name = name }
                settings.devices[id] = rule
            }
            if what == "history", !on, let bytes = AgentHistory.bytes(hex: id) { forget = .device(bytes) }
        case "app":
            guard words.count == (words.count > 2 && (words[2] == "web-domains" || words[2] == "history") ? 4 : 3) else {
                throw arguments.usage("app needs a bundle identifier and mute, unmute, web-domains on|off or history on|off: handoff settings app com.example.Notes mute")
            }
            let id = words[1]
            guard HandoffSettings.isBundleIdentifier(id) else {
                throw arguments.usage("\"\(id)\" is not a bundle identifier (1-255 of A-Za-z0-9._-, e.g. com.example.Notes)")
            }
            if words[2] == "history" {
                let on = try onOff(words[3], arguments)
                change = { settings in
                    if on { settings.historyOffApps.remove(id) } else { settings.historyOffApps.insert(id) }
                }
                if !on { forget = .bundle(id) }
                break
            }
            if words[2] == "web-domains" {
                let on = try onOff(words[3], arguments)
                change = { settings in
                    if on { settings.webDomainsOff.remove(id) } else { settings.webDomainsOff.insert(id) }
                }
                break
            }
            guard words[2] == "mute" || words[2] == "unmute" else {
                throw arguments.usage("\"\(words[2])\" is not an app setting: use mute, unmute, web-domains on|off or history on|off")
            }
            let mute = words[2] == "mute"
            change = { settings in
                if mute { settings.mutedApps.insert(id) } else { settings.mutedApps.remove(id) }
            }
        case "history":
            change = try historyChange(Array(words.dropFirst()), arguments)
        default:
            throw arguments.usage("unknown settings action \"\(action)\": use pause, resume, device, app or history")
        }
        let written = try store.update { change(&$0) }
        // What was kept of an app or device now excluded goes too (the
        // agent does the same when it sees the change; either is enough).
        if let forget, let path = HistoryStore.defaultPath(ProcessEnvironment.current), access(path, F_OK) == 0 {
            try HistoryStore(path: path).delete(forget)
        }
        show(written, problem: nil, store, output)
        return ExitCode.ok
    }

    /// `history on|off`, `history other-devices on|off`, `history days N`, `history entries N`.
    private static func historyChange(_ words: [String], _ arguments: ParsedArguments) throws(UsageError) -> (inout HandoffSettings) -> Void {
        switch (words.first, words.count) {
        case ("on"?, 1), ("off"?, 1):
            let on = words[0] == "on"
            return { $0.historyOff = !on }
        case ("other-devices"?, 2):
            let on = try onOff(words[1], arguments)
            return { $0.historyFromOtherDevices = on }
        case ("days"?, 2), ("entries"?, 2):
            let range = words[0] == "days" ? HandoffSettings.historyDaysRange : HandoffSettings.historyEntriesRange
            guard let n = Int(words[1]), range.contains(n) else {
                throw arguments.usage("history \(words[0]) takes a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return words[0] == "days" ? { $0.historyDays = n } : { $0.historyEntries = n }
        default:
            throw arguments.usage("history takes on, off, other-devices on|off, days N or entries N: handoff settings history off")
        }
    }

    private static func expectCount(_ words: [String], _ count: Int, _ arguments: ParsedArguments) throws(UsageError) {
        if words.count > count { throw arguments.usage("unexpected argument \"\(words[count])\"") }
    }

    private static func onOff(_ word: String, _ arguments: ParsedArguments) throws(UsageError) -> Bool {
        switch word {
        case "on": return true
        case "off": return false
        default: throw arguments.usage("\"\(word)\" is neither on nor off")
        }
    }

    private static func show(_ settings: HandoffSettings, problem: HandoffError?, _ store: SettingsStore, _ output: Output) {
        let retention = AgentHistory.retention(settings)
        let devices = settings.devices.filter { !$0.value.offer || !$0.value.accept || !$0.value.history }.sorted { $0.key < $1.key }
        var json: JSONObject = [
            "path": .string(store.path),
            "paused": .bool(settings.paused),
            "devices": .array(devices.map { id, rule in
                .object(["id": .string(id), "name": rule.name.map(JSON.string) ?? .null,
                         "offer": .bool(rule.offer), "accept": .bool(rule.accept), "history": .bool(rule.history)])
            }),
            "muted_apps": .array(settings.mutedApps.sorted().map(JSON.string)),
            "web_domains_off": .array(settings.webDomainsOff.sorted().map(JSON.string)),
            "history": .object(["on": .bool(!settings.historyOff), "other_devices": .bool(settings.historyFromOtherDevices),
                                "days": .int(Int64(retention.days)), "entries": .int(Int64(retention.entries)),
                                "apps_off": .array(settings.historyOffApps.sorted().map(JSON.string))]),
        ]
        if let problem { json["problem"] = .string(problem.message) }
        // "on"/"off" stay as typed: they are the words of the command.
        var lines = [settings.paused ? tr("Handoff: paused (nothing offered, nothing shown)") : tr("Handoff: on")]
        if devices.isEmpty {
            lines.append(tr("Devices: every device offered to and accepted from"))
        } else {
            lines.append(tr("Devices:"))
            for (id, rule) in devices {
                let who = rule.name.map { "\($0) (\(id))" } ?? id
                lines.append("  " + tr("{device}: offer {offer}, accept {accept}",
                                       ["device": who, "offer": rule.offer ? "on" : "off", "accept": rule.accept ? "on" : "off"]))
                if !rule.history { lines.append("    " + tr("nothing of it is kept in the history")) }
            }
        }
        lines.append(settings.mutedApps.isEmpty ? tr("Muted apps: none")
                     : tr("Muted apps: {apps}", ["apps": settings.mutedApps.sorted().joined(separator: ", ")]))
        if !settings.webDomainsOff.isEmpty {
            lines.append(tr("Web domains off for: {apps}", ["apps": settings.webDomainsOff.sorted().joined(separator: ", ")]))
        }
        lines.append(settings.historyOff ? tr("History: off (nothing new is kept)")
                     : tr("History: on, kept {days} days, at most {entries} entries; other devices: {other}",
                          ["days": "\(retention.days)", "entries": "\(retention.entries)",
                           "other": settings.historyFromOtherDevices ? "on" : "off"]))
        if !settings.historyOffApps.isEmpty {
            lines.append(tr("History off for: {apps}", ["apps": settings.historyOffApps.sorted().joined(separator: ", ")]))
        }
        lines.append(tr("File: {path}", ["path": store.path]))
        output.emit(.object(json), human: lines.joined(separator: "\n"))
    }
}
