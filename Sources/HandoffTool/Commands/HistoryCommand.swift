// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBase
import HandoffJSON
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff history …`: what the agent's history keeps (docs/history.md),
/// read and deleted through the same store the agent writes.
enum HistoryCommand: Command {
    static let name = "history"
    static let summary = "list, search, show and delete what the history keeps"
    static let synopsis = [
        "history [list] [--app BUNDLE-ID] [--device DEVICE] [--limit N]",
        "history search TERMS... [--limit N]",
        "history show ID",
        "history delete ID... | --app BUNDLE-ID | --device DEVICE | --all",
    ]
    static let details = """
        The history holds the activities apps marked eligible for search: this
        device's, and other devices' when `handoff settings history other-devices on`.
        It stays on this device: nothing about it is ever sent.

          list     the newest first (20 unless --limit), of one app or device if asked
          search   the entries whose title, keywords or searchable text have words
                   starting with every one of TERMS, best match first
          show     one entry, with its keywords and searchable text
          delete   the entries named (IDs as list shows them, "h12" or "12"), or every
                   entry of an app (--app), of a device (--device) or all (--all)

        DEVICE is a device's name as the history shows it, or its id (32 hex digits).
        Searching from the desktop (GNOME Shell, KRunner) and continuing a result go
        through the agent; `handoff settings history off` stops it keeping anything.

        With --json: one object per entry {"id", "title", "app", "team", "type",
        "device", "device_id", "persistent_id", "url", "keywords", "content",
        "first_seen", "last_seen" (ms since 1970), "payload_size"}; delete prints
        {"deleted": N}.

        File: $XDG_DATA_HOME/handoff/history.sqlite (HANDOFF_HISTORY_DB overrides it).
        """
    static let options: [OptionSpec] = [
        .value("--app", "BUNDLE-ID", "only this app's entries (list, delete)"),
        .value("--device", "DEVICE", "only this device's entries (list, delete)"),
        .value("--limit", "N", "at most N entries (list: default 20, no upper bound; search: default 20, at most 50)"),
        .flag("--all", "delete every entry"),
    ]
    static let positionals = 0...64

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        var words = arguments.positionals
        let action = words.isEmpty ? "list" : words.removeFirst()
        guard let path = HistoryStore.defaultPath(ProcessEnvironment.current) else {
            throw HandoffError(.invalidState, "no place for the history: neither XDG_DATA_HOME nor HOME is an absolute path")
        }
        // Reading makes no database where there is none (nothing is kept
        // yet); one that is there but cannot be read is an error, never
        // an empty history.
        let store = try existingStore(path)
        switch action {
        case "list":
            guard words.isEmpty else { throw arguments.usage("list takes no words, only --app, --device and --limit") }
            let limit = try limitValue(arguments, max: nil) ?? 20
            guard let store else {
                show([], output, empty: tr("The history is empty."))
                return ExitCode.ok
            }
            let device = try arguments.value("--device").map { text throws(HandoffError) in try deviceID(text, store, arguments) }
            let entries = try store.list(bundle: arguments.value("--app"), deviceID: device, limit: limit)
            show(entries, output, empty: tr("The history is empty."))
        case "search":
            guard !words.isEmpty else { throw arguments.usage("search needs the words to look for: handoff history search budget") }
            let limit = try limitValue(arguments, max: HistoryStore.maxResults) ?? 20
            let entries = try store?.search(words.joined(separator: " "), limit: limit) ?? []
            show(entries, output, empty: tr("Nothing in the history matches."))
        case "show":
            guard words.count == 1 else { throw arguments.usage("show takes one ID, as list shows it (h12)") }
            let id = try entryNumber(words[0], arguments)
            guard let entry = try store?.entries([id]).first else { throw unknown([words[0]]) }
            output.emit(.object(json(entry)), human: detail(entry))
        case "delete":
            let deletion = try deletion(words, store, arguments)
            if case .entries(let ids) = deletion {
                // Every id must name an entry: a stale one is an error, and nothing is deleted.
                let known = Set(try store?.entries(ids).map(\.id) ?? [])
                let missing = zip(words, ids).filter { !known.contains($0.1) }.map(\.0)
                guard missing.isEmpty else { throw unknown(missing) }
            }
            let n = try store?.delete(deletion) ?? 0
            output.emit(.object(["deleted": .int(Int64(n))]),
                        human: trn("Deleted {count} entry.", "Deleted {count} entries.", n, ["count": "\(n)"]))
        default:
            throw arguments.usage("unknown history action \"\(action)\": use list, search, show or delete")
        }
        return ExitCode.ok
    }

    /// The store at `path`, nil when there is no file yet; an error when
    /// it is there and cannot be read, is damaged or is of a newer release.
    private static func existingStore(_ path: String) throws(HandoffError) -> HistoryStore? {
        var info = stat()
        if lstat(path, &info) != 0 {
            let error = errno
            if error == ENOENT { return nil }
            throw HandoffError(.io, "cannot read the history database \(path): \(String(cString: strerror(error)))")
        }
        return try HistoryStore(path: path, create: false)
    }

    private static func unknown(_ ids: [String]) -> HandoffError {
        HandoffError(.invalidArgument, ids.count == 1
            ? "the history has no entry \(ids[0]) (`handoff history list` shows the ids it has)"
            : "the history has no entries \(ids.joined(separator: ", ")) (`handoff history list` shows the ids it has): nothing deleted")
    }

    /// --limit: a whole number from 1, at most `max` when given.
    private static func limitValue(_ arguments: ParsedArguments, max: Int?) throws(UsageError) -> Int? {
        guard let text = arguments.value("--limit") else { return nil }
        guard let n = Int(text), n >= 1, n <= (max ?? Int.max) else {
            throw arguments.usage(max.map { "--limit takes a whole number from 1 to \($0)" } ?? "--limit takes a whole number from 1")
        }
        return n
    }

    /// "h12" or "12", spelled as list shows it: "h012" is no id.
    private static func entryNumber(_ text: String, _ arguments: ParsedArguments) throws(UsageError) -> Int64 {
        if let n = HistoryEntry.number(ofResult: text) ?? (text.hasPrefix("h") ? nil : HistoryEntry.number(ofResult: "h" + text)) { return n }
        throw arguments.usage("\"\(text)\" is not a history entry's id (h12, as list shows it)")
    }

    private static func deletion(_ words: [String], _ store: HistoryStore?, _ arguments: ParsedArguments) throws -> HistoryDeletion {
        let chosen = [!words.isEmpty, arguments.value("--app") != nil, arguments.value("--device") != nil, arguments.has("--all")]
        guard chosen.filter({ $0 }).count == 1 else {
            throw arguments.usage("delete takes IDs, or one of --app, --device and --all")
        }
        if arguments.has("--all") { return .all }
        if let app = arguments.value("--app") { return .bundle(app) }
        if let device = arguments.value("--device") { return .device(try deviceID(device, store, arguments)) }
        var ids: [Int64] = []
        for word in words { ids.append(try entryNumber(word, arguments)) }
        return .entries(ids)
    }

    /// A device named by its id (32 hex digits) or by a name the history shows.
    private static func deviceID(_ text: String, _ store: HistoryStore?, _ arguments: ParsedArguments) throws(HandoffError) -> [UInt8] {
        if let bytes = AgentHistory.bytes(hex: text.lowercased()) { return bytes }
        let named = Set(try (store?.devices() ?? []).filter { $0.name == text }.map(\.id))
        guard named.count == 1, let id = named.first else {
            throw HandoffError(.invalidArgument, named.isEmpty
                ? "no device named \"\(text)\" is in the history (give its id, 32 hex digits, or a name `handoff history` shows)"
                : "\(named.count) devices in the history are named \"\(text)\": give its id (32 hex digits)")
        }
        return id
    }

    private static func show(_ entries: [HistoryEntry], _ output: Output, empty: String) {
        if output.json {
            for entry in entries { output.emit(.object(json(entry)), human: "") }
            return
        }
        guard !entries.isEmpty else { return output.note(empty) }
        output.write(entries.map(line).joined(separator: "\n") + "\n")
    }

    private static func line(_ e: HistoryEntry) -> String {
        let title = e.title.isEmpty ? e.activityType : e.title
        return "\(e.resultID)  \(title)\n      " + tr("{app} on {device}, {ago}", [
            "app": e.bundle, "device": e.deviceName, "ago": agoText(Double(Int64(wallMilliseconds()) - e.lastSeen) / 1000)])
    }

    private static func detail(_ e: HistoryEntry) -> String {
        var lines = [line(e), "      " + tr("type: {type}", ["type": e.activityType])]
        if let url = e.url { lines.append("      " + tr("page: {url}", ["url": url])) }
        if let pid = e.persistentIdentifier { lines.append("      " + tr("persistent id: {id}", ["id": pid])) }
        if !e.keywords.isEmpty { lines.append("      " + tr("keywords: {keywords}", ["keywords": e.keywords.joined(separator: ", ")])) }
        for text in e.content { lines.append("      | " + text) }
        return lines.joined(separator: "\n")
    }

    static func json(_ e: HistoryEntry) -> JSONObject {
        [
            "id": .string(e.resultID), "title": .string(e.title), "app": .string(e.bundle), "team": .string(e.team),
            "type": .string(e.activityType), "device": .string(e.deviceName),
            "device_id": .string(AgentServer.hex(e.deviceID)),
            "persistent_id": e.persistentIdentifier.map(JSON.string) ?? .null,
            "url": e.url.map(JSON.string) ?? .null,
            "keywords": .array(e.keywords.map(JSON.string)), "content": .array(e.content.map(JSON.string)),
            "first_seen": .int(e.firstSeen), "last_seen": .int(e.lastSeen), "payload_size": .int(Int64(e.payloadSize)),
        ]
    }
}
