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
    static let summary = "show or change the controls: pause Handoff, per device offer/accept, per app mute, documents"
    static let synopsis = [
        "settings",
        "settings pause | resume",
        "settings device DEVICE offer on|off",
        "settings device DEVICE accept on|off",
        "settings app BUNDLE-ID mute|unmute",
        "settings app BUNDLE-ID web-domains on|off",
        "settings app BUNDLE-ID history on|off",
        "settings app BUNDLE-ID documents on|off",
        "settings device DEVICE history on|off",
        "settings history on|off",
        "settings history other-devices on|off",
        "settings history days N | entries N",
        "settings folder NAME PATH | folder NAME remove",
        "settings documents max-size BYTES | sync-wait SECONDS",
        "settings documents exclude PATH | include PATH",
        "settings documents elsewhere on|off",
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
          app BUNDLE-ID documents off
                   the documents bridge never offers the app's open document
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
          folder NAME PATH
                   declares the folder PATH as NAME: a document in it is described as
                   "in NAME", and found in the folder of that name on the other device
                   (docs/documents.md); NAME is printable ASCII
          folder NAME remove
                   forgets the folder NAME (its files stay)
          documents max-size BYTES
                   the largest document whose bytes are brought from another device
                   (default 67108864, 64 MiB)
          documents sync-wait SECONDS
                   how long to wait for Syncthing or a cloud client to bring a document
                   that is catching up (0-300, default 5)
          documents exclude PATH, documents include PATH
                   PATH (a file or a folder) is never described or offered; include
                   takes an exclusion back
          documents elsewhere on
                   the documents bridge may offer files outside every place (default
                   off)

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
        "documents": {"max_size", "sync_wait", "exclude": [...], "elsewhere",
        "folders": [{"name", "path"}]}, "problem"} (problem only for a damaged file).

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
            guard words.count == (words.count > 2 && (words[2] == "web-domains" || words[2] == "history" || words[2] == "documents") ? 4 : 3) else {
                throw arguments.usage("app needs a bundle identifier and mute, unmute, web-domains on|off, history on|off or documents on|off: handoff settings app com.example.Notes mute")
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
            if words[2] == "documents" {
                let on = try onOff(words[3], arguments)
                change = { settings in
                    if on { settings.documentsOffApps.remove(id) } else { settings.documentsOffApps.insert(id) }
                }
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
                throw arguments.usage("\"\(words[2])\" is not an app setting: use mute, unmute, web-domains on|off, history on|off or documents on|off")
            }
            let mute = words[2] == "mute"
            change = { settings in
                if mute { settings.mutedApps.insert(id) } else { settings.mutedApps.remove(id) }
            }
        case "history":
            change = try historyChange(Array(words.dropFirst()), arguments)
        case "folder":
            change = try folderChange(Array(words.dropFirst()), arguments)
        case "documents":
            change = try documentsChange(Array(words.dropFirst()), arguments)
        default:
            throw arguments.usage("unknown settings action \"\(action)\": use pause, resume, device, app, history, folder or documents")
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

    /// `folder NAME PATH`, `folder NAME remove`.
    private static func folderChange(_ words: [String], _ arguments: ParsedArguments) throws(UsageError) -> (inout HandoffSettings) -> Void {
        guard words.count == 2 else {
            throw arguments.usage("folder takes a name and a path, or a name and remove: handoff settings folder Papers ~/Papers")
        }
        let name = words[0]
        guard DocumentSettings.isFolderName(name) else {
            throw arguments.usage("\"\(name)\" is not a folder name: printable ASCII without [ or ], no spaces at its ends")
        }
        if words[1] == "remove" {
            return { $0.documents.folders[name] = nil }
        }
        let path = try absolutePath(words[1], arguments)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw arguments.usage("\(path) is not a folder")
        }
        return { settings in
            settings.documents.folders[name] = path
        }
    }

    /// `documents max-size BYTES | sync-wait SECONDS | exclude PATH | include PATH | elsewhere on|off`.
    private static func documentsChange(_ words: [String], _ arguments: ParsedArguments) throws(UsageError) -> (inout HandoffSettings) -> Void {
        guard words.count == 2 else {
            throw arguments.usage("documents takes max-size BYTES, sync-wait SECONDS, exclude PATH, include PATH or elsewhere on|off")
        }
        switch words[0] {
        case "max-size":
            guard let n = UInt64(words[1]), DocumentSettings.maxSizeRange.contains(n) else {
                throw arguments.usage("documents max-size takes a whole number of bytes from 0 to \(DocumentSettings.maxSizeRange.upperBound)")
            }
            return { $0.documents.maxSize = n }
        case "sync-wait":
            let range = DocumentSettings.syncWaitRange
            guard let n = Int(words[1]), range.contains(n) else {
                throw arguments.usage("documents sync-wait takes whole seconds from \(range.lowerBound) to \(range.upperBound)")
            }
            return { $0.documents.syncWait = Double(n) }
        case "exclude", "include":
            let path = try absolutePath(words[1], arguments)
            if words[0] == "include" {
                return { $0.documents.exclude.removeAll { $0 == path } }
            }
            return { settings in
                if !settings.documents.exclude.contains(path) { settings.documents.exclude.append(path) }
            }
        case "elsewhere":
            let on = try onOff(words[1], arguments)
            return { $0.documents.elsewhere = on }
        default:
            throw arguments.usage("\"\(words[0])\" is not a documents setting: use max-size, sync-wait, exclude, include or elsewhere")
        }
    }

    /// `path` made absolute against the working folder, `.` and `..` taken
    /// out as written (links are not resolved: the person's words are kept).
    private static func absolutePath(_ path: String, _ arguments: ParsedArguments) throws(UsageError) -> String {
        var full = path
        if !path.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else { throw arguments.usage("cannot tell the working folder to make \(path) absolute") }
            full = String(cString: cwd) + "/" + path
            free(cwd)
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        let result = "/" + parts.joined(separator: "/")
        guard DocumentSettings.isSettingsPath(result) else {
            throw arguments.usage("\(path) cannot be kept in the settings (a control character, or a space at its end)")
        }
        return result
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
        let documents = settings.documents
        json["documents"] = .object([
            "max_size": .int(Int64(documents.maxSize)), "sync_wait": .int(Int64(documents.syncWait)),
            "exclude": .array(documents.exclude.map(JSON.string)), "elsewhere": .bool(documents.elsewhere),
            "apps_off": .array(settings.documentsOffApps.sorted().map(JSON.string)),
            "folders": .array(documents.folders.sorted { $0.key < $1.key }.map { .object(["name": .string($0.key), "path": .string($0.value)]) }),
        ])
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
        lines.append(tr("Documents: brought up to {size} bytes, a sync waited for {seconds} s; outside every place: {elsewhere}",
                        ["size": "\(documents.maxSize)", "seconds": "\(Int(documents.syncWait))", "elsewhere": documents.elsewhere ? "on" : "off"]))
        for (name, path) in documents.folders.sorted(by: { $0.key < $1.key }) {
            lines.append("  " + tr("Folder {name}: {path}", ["name": name, "path": path]))
        }
        if !documents.exclude.isEmpty {
            lines.append("  " + tr("Never described: {paths}", ["paths": documents.exclude.joined(separator: ", ")]))
        }
        lines.append(tr("File: {path}", ["path": store.path]))
        output.emit(.object(json), human: lines.joined(separator: "\n"))
    }
}
