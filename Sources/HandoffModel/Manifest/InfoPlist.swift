// SPDX-License-Identifier: MIT OR Apache-2.0
/// Loading a manifest from an Info.plist, in XML or binary form.
///
/// Keys read: `CFBundleIdentifier` (required), `NSUserActivityTypes`
/// (optional array of strings; any other kind declares none, with a
/// warning), the entries of `CFBundleDocumentTypes` that carry
/// `NSUbiquitousDocumentUserActivityType` (`InfoPlist+DocumentTypes.swift`), and the team identifier from
/// `HandoffTeamIdentifier`, or else from `AppIdentifierPrefix` (Xcode's
/// "TEAMID." form, trailing dot dropped). On Apple's systems the team comes
/// from the code signature; Linux has none, so the plist must say it (or the
/// app builds its manifest through the API).
///
/// Binary plists are read with the library's own reader, XML ones with
/// expat; neither can trap, and every message is the library's own. A key
/// repeated in one dictionary keeps its last value, with a warning, as
/// Apple's tools and plistlib read it (`PropertyListFile`).
extension Manifest {
    public static let teamIdentifierKey = "HandoffTeamIdentifier"
    static let bundleIdentifierKey = "CFBundleIdentifier"
    static let activityTypesKey = "NSUserActivityTypes"
    static let appIdentifierPrefixKey = "AppIdentifierPrefix"
    static let documentTypesKey = "CFBundleDocumentTypes"

    /// Loads a manifest from an Info.plist file.
    /// - Throws: `.io` when the file cannot be read; `.malformedData` when it
    ///   is not a property list or lacks what a manifest needs. Messages
    ///   start with the path.
    public init(infoPlistAt path: String) throws(HandoffError) {
        let bytes = try FileReading.read(path)
        try self.init(infoPlist: bytes, source: path)
    }

    /// Loads a manifest from the bytes of an Info.plist (XML or binary).
    public init(infoPlist bytes: [UInt8]) throws(HandoffError) {
        try self.init(infoPlist: bytes, source: "Info.plist")
    }

    /// `source` names the file in messages.
    init(infoPlist bytes: [UInt8], source: String) throws(HandoffError) {
        let name = source == "Info.plist" ? "Info.plist" : Identifier.quoted(source)
        func malformed(_ message: String) -> HandoffError {
            HandoffError(.malformedData, "\(name): \(message)")
        }
        let plist: PropertyListValue
        var warnings: [String] = []
        do throws(PropertyListError) {
            let read = try PropertyListFile.decode(bytes)
            plist = read.value
            warnings = read.repeats.map { "\(name): \($0)" }
        } catch {
            throw malformed("not a property list: \(error.reason); pass the Info.plist of the built app, in XML or binary form")
        }
        guard case .dictionary(let keys) = plist else {
            throw malformed("the top-level value is \(Self.describe(plist)), not a dictionary; an Info.plist is a dictionary of keys such as \(Self.bundleIdentifierKey)")
        }

        let bundle = try Self.string(keys, Self.bundleIdentifierKey, in: name, example: "com.example.app")
        guard let bundle else {
            throw malformed("no \(Self.bundleIdentifierKey): add <key>\(Self.bundleIdentifierKey)</key><string>com.example.app</string>")
        }
        try Self.refuseBuildVariable(bundle, key: Self.bundleIdentifierKey, in: name)

        let team: String
        if let explicit = try Self.string(keys, Self.teamIdentifierKey, in: name, example: "A1B2C3D4E5") {
            try Self.refuseBuildVariable(explicit, key: Self.teamIdentifierKey, in: name)
            team = explicit
        } else if let prefix = try Self.string(keys, Self.appIdentifierPrefixKey, in: name, example: "A1B2C3D4E5.") {
            try Self.refuseBuildVariable(prefix, key: Self.appIdentifierPrefixKey, in: name)
            team = prefix.hasSuffix(".") ? String(prefix.dropLast()) : prefix
        } else {
            throw malformed("no team identifier: add <key>\(Self.teamIdentifierKey)</key><string>A1B2C3D4E5</string> (your Apple team id, or any 1–32 letters and digits shared by your apps), or an \(Self.appIdentifierPrefixKey); only apps of one team continue each other's activities")
        }

        var types: [String] = []
        switch keys[Self.activityTypesKey] {
        case nil:
            break
        case .array(let entries)?:
            for (index, entry) in entries.enumerated() {
                let at = "\(Self.activityTypesKey)[\(index)]"
                guard case .string(let type) = entry else {
                    warnings.append("\(name): \(at) is \(Self.describe(entry)), not a string: skipped")
                    continue
                }
                try Self.refuseBuildVariable(type, key: at, in: name)
                if let problem = Identifier.activityTypeProblem(type) {
                    warnings.append("\(name): \(at) \(Identifier.quoted(type)) \(problem): skipped")
                    continue
                }
                types.append(type)
            }
        case let other?:
            // As for a bad entry: the app loads, continuing nothing.
            warnings.append("\(name): \(Self.activityTypesKey) is \(Self.describe(other)), not an array: no activity types are declared; list them as <array><string>com.example.app.edit</string></array>")
        }

        do {
            try self.init(bundleIdentifier: bundle, teamIdentifier: team, activityTypes: types)
        } catch {
            throw malformed(error.message)
        }
        try declareDocumentTypes(keys[Self.documentTypesKey], in: name, warnings: &warnings)
        self.warnings = warnings
    }

    /// A string value, nil when absent; any other kind is malformed.
    private static func string(_ keys: [String: PropertyListValue], _ key: String, in name: String, example: String) throws(HandoffError) -> String? {
        switch keys[key] {
        case nil: return nil
        case .string(let value)?: return value
        case let other?:
            throw HandoffError(.malformedData, "\(name): \(key) is \(describe(other)), not a string; write <key>\(key)</key><string>\(example)</string>")
        }
    }

    /// Xcode expands `$(VARIABLE)` when it builds the app; a plist that still
    /// holds one is the source Info.plist.
    private static func refuseBuildVariable(_ value: String, key: String, in name: String) throws(HandoffError) {
        guard value.containsCharacters("$(") || value.containsCharacters("${") else { return }
        throw HandoffError(.malformedData,
            "\(name): \(key) is \(Identifier.quoted(value)), an unexpanded Xcode build variable: this is a source Info.plist. Pass the Info.plist of the built app (inside the .app bundle, where Xcode has expanded the variables), or write the values out; the team identifier can be given as \(teamIdentifierKey) or through handoff_manifest_new")
    }

    /// What a value is, for messages: "an integer (7)", "a dictionary".
    static func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .null: "the null token"
        case .boolean(let flag): "a boolean (\(flag))"
        case .integer(let number): "an integer (\(number))"
        case .real(let number): "a real number (\(number))"
        case .date: "a date"
        case .data(let bytes): "data (\(bytes.count) bytes)"
        case .string(let text): "the string \(Identifier.quoted(text))"
        case .array(let items): "an array of \(items.count)"
        case .dictionary(let entries): "a dictionary of \(entries.count) keys"
        }
    }
}
