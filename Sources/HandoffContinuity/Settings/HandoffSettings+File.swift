// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The settings file's text (docs/agent.md "Settings"): the key-file
/// syntax (`KeyFileParser`) with these groups and keys, booleans written
/// `true` or `false` and nothing else:
///
///     [Handoff]
///     Paused=true
///     History=false
///     HistoryFromOtherDevices=true
///     HistoryDays=30
///     HistoryEntries=10000
///
///     [Device 0123456789abcdef0123456789abcdef]
///     Offer=false
///     Accept=false
///     History=false
///
///     [App com.example.Notes]
///     Muted=true
///     WebDomains=false
///     Documents=false
///     History=false
///
///     [Documents]
///     MaxSize=67108864
///     SyncWait=5
///     Exclude=/home/alice/Private;/home/alice/.local
///     Elsewhere=false
///
///     [Folder Papers]
///     Path=/home/alice/Papers
///
/// Strict about what it knows (a bad value, a malformed device id or
/// bundle id, a known group twice: the whole file is refused, and the
/// reader falls back to the defaults and says why); tolerant of what it
/// does not: groups and keys of a newer version are ignored when read and
/// written back unchanged after the known ones when the file is rewritten.
extension HandoffSettings {
    public static let handoffGroup = "Handoff"
    public static let devicePrefix = "Device "
    public static let appPrefix = "App "
    public static let documentsGroup = "Documents"
    public static let folderPrefix = "Folder "
    /// As `HistoryRetention` bounds them (the agent's), here for the file.
    public static let historyDaysRange = 1...3650
    public static let historyEntriesRange = 100...100_000

    /// Bounds: a device group is about 60 bytes, an app group under 300.
    public static let limits = KeyFileParser.Limits(maxBytes: 64 << 10, maxLines: 4096, maxKeys: 2048, maxGroups: 512)
    static let kind = KeyFileParser.Kind(singular: "settings file", plural: "settings files", firstGroup: nil)

    /// Parses a settings file's bytes; `source` names it in messages.
    /// - Throws: `.malformedData` naming the line for anything not allowed.
    public init(bytes: [UInt8], source: String) throws(HandoffError) {
        let file = try KeyFileParser(source: source, kind: Self.kind, limits: Self.limits).parse(bytes)
        self.init()
        for group in file.groupNames {
            let keys = file.groups[group]!
            func failure(_ key: String, _ message: String) -> HandoffError {
                HandoffError(.malformedData, "\(source):\(keys[key]!.line): [\(group)] \(key): \(message)")
            }
            func boolean(_ key: String) throws(HandoffError) -> Bool? {
                guard let value = keys[key] else { return nil }
                switch value.text {
                case "true": return true
                case "false": return false
                default: throw failure(key, "\(KeyFile.quoted(String(value.text))) is not a boolean; write true or false")
                }
            }
            func integer(_ key: String, in range: ClosedRange<Int>) throws(HandoffError) -> Int? {
                guard let value = keys[key] else { return nil }
                guard let n = Int(String(value.text)), range.contains(n) else {
                    throw failure(key, "\(KeyFile.quoted(String(value.text))) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
                return n
            }
            var known: Set<String> = []
            if group == Self.handoffGroup {
                known = ["Paused", "History", "HistoryFromOtherDevices", "HistoryDays", "HistoryEntries"]
                paused = try boolean("Paused") ?? false
                historyOff = try boolean("History") == false
                historyFromOtherDevices = try boolean("HistoryFromOtherDevices") ?? false
                historyDays = try integer("HistoryDays", in: Self.historyDaysRange)
                historyEntries = try integer("HistoryEntries", in: Self.historyEntriesRange)
            } else if group.hasPrefix(Self.devicePrefix) {
                let id = String(group.dropFirst(Self.devicePrefix.count))
                guard Self.isDeviceID(id) else {
                    throw HandoffError(.malformedData, "\(source): [\(group)]: \(KeyFile.quoted(id)) is not a device id (32 lowercase hex digits, as `handoff devices --json` shows)")
                }
                known = ["Offer", "Accept", "Name", "History"]
                let name = keys["Name"].map { String($0.text) }.flatMap(Self.writableName)
                var rule = DeviceRule(offer: try boolean("Offer") ?? true, accept: try boolean("Accept") ?? true, name: name)
                rule.history = try boolean("History") ?? true
                devices[id] = rule
            } else if group.hasPrefix(Self.appPrefix) {
                let id = String(group.dropFirst(Self.appPrefix.count))
                guard Self.isBundleIdentifier(id) else {
                    throw HandoffError(.malformedData, "\(source): [\(group)]: \(KeyFile.quoted(id)) is not a bundle identifier (1-255 of A-Za-z0-9._-)")
                }
                known = ["Muted", "WebDomains", "History", "Documents"]
                if try boolean("Muted") == true { mutedApps.insert(id) }
                if try boolean("Documents") == false { documentsOffApps.insert(id) }
                if try boolean("WebDomains") == false { webDomainsOff.insert(id) }
                if try boolean("History") == false { historyOffApps.insert(id) }
            } else if group == Self.documentsGroup {
                known = ["MaxSize", "SyncWait", "Exclude", "Elsewhere"]
                if let value = keys["MaxSize"] {
                    guard let n = UInt64(String(value.text)), DocumentSettings.maxSizeRange.contains(n) else {
                        throw failure("MaxSize", "\(KeyFile.quoted(String(value.text))) is not a whole number of bytes from 0 to \(DocumentSettings.maxSizeRange.upperBound)")
                    }
                    documents.maxSize = n
                }
                documents.syncWait = try integer("SyncWait", in: DocumentSettings.syncWaitRange).map(Double.init) ?? DocumentSettings.defaultSyncWait
                documents.elsewhere = try boolean("Elsewhere") ?? false
                if let value = keys["Exclude"] {
                    let paths = Self.pathList(value.text)
                    guard paths.count <= DocumentSettings.maxExcluded else {
                        throw failure("Exclude", "more than \(DocumentSettings.maxExcluded) paths")
                    }
                    for path in paths where !DocumentSettings.isSettingsPath(path) {
                        throw failure("Exclude", "\(KeyFile.quoted(path)) is not an absolute path")
                    }
                    documents.exclude = paths.map(DocumentSettings.normalized)
                }
            } else if group.hasPrefix(Self.folderPrefix) {
                let name = String(group.dropFirst(Self.folderPrefix.count))
                guard DocumentSettings.isFolderName(name) else {
                    throw HandoffError(.malformedData, "\(source): [\(group)]: \(KeyFile.quoted(name)) is not a folder name (printable ASCII, no spaces at its ends)")
                }
                guard let path = keys["Path"].map({ String($0.text) }), DocumentSettings.isSettingsPath(path) else {
                    throw HandoffError(.malformedData, "\(source): [\(group)]: needs Path= with the folder's absolute path")
                }
                guard documents.folders.count < DocumentSettings.maxFolders else {
                    throw HandoffError(.malformedData, "\(source): [\(group)]: more than \(DocumentSettings.maxFolders) folders")
                }
                known = ["Path"]
                documents.folders[name] = DocumentSettings.normalized(path)
            }
            // Unknown groups whole, and unknown keys of known groups: kept.
            let extra = keys.filter { !known.contains($0.key) }.sorted { $0.value.line < $1.value.line }
            if !extra.isEmpty {
                unknownOrder.append(group)
                unknown[group] = extra.map { ($0.key, String($0.value.text)) }
            }
        }
        for group in file.groupNames where file.groups[group]!.isEmpty && !isKnownGroup(group) && unknown[group] == nil {
            unknownOrder.append(group)
            unknown[group] = []
        }
    }

    /// A device name as a `Name=` value, kept as written (no escapes are
    /// undone or made): 1-256 bytes without control characters or spaces
    /// at its ends, which a key file would change; else none. Read with
    /// the same rule, so a name is informational both ways.
    static func writableName(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 256, name.first != " ", name.first != "\t",
              name.last != " ", name.last != "\t",
              !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return name
    }

    private func isKnownGroup(_ group: String) -> Bool {
        group == Self.handoffGroup || group.hasPrefix(Self.devicePrefix) || group.hasPrefix(Self.appPrefix)
            || group == Self.documentsGroup || group.hasPrefix(Self.folderPrefix)
    }

    /// `Exclude=`'s paths: `;`-separated as GLib writes string lists (`\;`
    /// for a `;` in a path, `\\` for a backslash); empty entries skipped.
    static func pathList(_ text: Substring) -> [String] {
        var paths: [String] = []
        var current = ""
        var escaped = false
        for c in text {
            if escaped {
                if c != ";" && c != "\\" { current.append("\\") }
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == ";" {
                if !current.isEmpty { paths.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        if escaped { current.append("\\") }
        if !current.isEmpty { paths.append(current) }
        return paths
    }

    /// The other way: each path escaped, each followed by `;`.
    static func pathListText(_ paths: [String]) -> String {
        paths.map { path in
            path.reduce(into: "") { out, c in
                if c == "\\" || c == ";" { out.append("\\") }
                out.append(c)
            } + ";"
        }.joined()
    }

    /// The file's text: a comment, `[Handoff]`, the devices with a rule
    /// that is not the default, the apps muted or with web domains off (both sorted), then what an
    /// unknown version wrote. Parsing it gives these settings back.
    public var fileBytes: [UInt8] {
        var out = "# Handoff settings (docs/agent.md \"Settings\"). Change them with `handoff settings`;\n"
            + "# the agent and running apps apply an edit of this file at once.\n"
        var written: Set<String> = []
        func extras(_ group: String) {
            for (key, value) in unknown[group] ?? [] { out += "\(key)=\(value)\n" }
            written.insert(group)
        }
        out += "[\(Self.handoffGroup)]\nPaused=\(paused)\n"
        if historyOff { out += "History=false\n" }
        if historyFromOtherDevices { out += "HistoryFromOtherDevices=true\n" }
        if let historyDays { out += "HistoryDays=\(historyDays)\n" }
        if let historyEntries { out += "HistoryEntries=\(historyEntries)\n" }
        extras(Self.handoffGroup)
        for (id, rule) in devices.sorted(by: { $0.key < $1.key }) where !rule.isDefault {
            let group = Self.devicePrefix + id
            out += "\n[\(group)]\n"
            if let name = rule.name.flatMap(Self.writableName) { out += "Name=\(name)\n" }
            out += "Offer=\(rule.offer)\nAccept=\(rule.accept)\n"
            if !rule.history { out += "History=false\n" }
            extras(group)
        }
        for id in mutedApps.union(webDomainsOff).union(historyOffApps).union(documentsOffApps).sorted() {
            let group = Self.appPrefix + id
            out += "\n[\(group)]\n"
            if mutedApps.contains(id) { out += "Muted=true\n" }
            if webDomainsOff.contains(id) { out += "WebDomains=false\n" }
            if historyOffApps.contains(id) { out += "History=false\n" }
            if documentsOffApps.contains(id) { out += "Documents=false\n" }
            extras(group)
        }
        let documentsDefault = documents.maxSize == DocumentSettings.defaultMaxSize
            && documents.syncWait == DocumentSettings.defaultSyncWait && documents.exclude.isEmpty && !documents.elsewhere
        if !documentsDefault {
            out += "\n[\(Self.documentsGroup)]\n"
            if documents.maxSize != DocumentSettings.defaultMaxSize { out += "MaxSize=\(documents.maxSize)\n" }
            if documents.syncWait != DocumentSettings.defaultSyncWait { out += "SyncWait=\(Int(documents.syncWait))\n" }
            if !documents.exclude.isEmpty { out += "Exclude=\(Self.pathListText(documents.exclude))\n" }
            if documents.elsewhere { out += "Elsewhere=true\n" }
            extras(Self.documentsGroup)
        }
        for (name, path) in documents.folders.sorted(by: { $0.key < $1.key }) {
            let group = Self.folderPrefix + name
            out += "\n[\(group)]\nPath=\(path)\n"
            extras(group)
        }
        // A removed folder's group goes, with what a newer version kept in it.
        for group in unknownOrder where !written.contains(group) && group.hasPrefix(Self.folderPrefix) { written.insert(group) }
        for group in unknownOrder where !written.contains(group) {
            // Extra keys of a known group whose own keys are now defaults
            // keep their group (with the defaults written out).
            out += "\n[\(group)]\n"
            if group.hasPrefix(Self.devicePrefix) { out += "Offer=true\nAccept=true\n" }
            extras(group)
        }
        return Array(out.utf8)
    }
}
