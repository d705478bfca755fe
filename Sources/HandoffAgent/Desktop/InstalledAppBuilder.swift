// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Turns desktop entries (and manifests) into `InstalledApp`s during one
/// scan, with a warning for each one skipped. The rules (docs/agent.md §5):
///
/// - `Hidden=true`: the app is not installed (silently; its id still
///   hides lower-precedence entries).
/// - Declared by the entry: `X-Handoff-ActivityTypes` (list) and
///   `X-Handoff-TeamIdentifier` (string) in `[Desktop Entry]`; neither
///   present means not a Handoff app (silently); one without the other, a
///   bad team or no valid type is a warning. `X-Handoff-BundleIdentifier`
///   names the bundle; without it the desktop-file id less `.desktop` is
///   the bundle id and must then be reverse-DNS (the spec recommends such
///   ids: `org.example.Notes.desktop` is `org.example.Notes`). Invalid
///   activity types are skipped one by one, with a warning each.
///   `X-Handoff-Document-Activity-Type` declares one more type, a document
///   type covering the entry's `MimeType=` list.
/// - Declared by a manifest: the manifest's bundle, team and types; any
///   `X-Handoff-*` keys of the entry are ignored (with a warning).
/// - `Type=Application` is required; `TryExec`, when present, must name an
///   executable (absolute, or found in `$PATH`) or the app is skipped.
/// - `DBusActivatable=true` needs a desktop-file id that is a D-Bus
///   well-known name; otherwise `Exec` must parse (`ExecCommandLine`). A
///   D-Bus-activatable entry with a bad `Exec` keeps D-Bus only.
/// - `Path`, when absolute, is the working directory; `NoDisplay` is kept
///   (such apps can still be launched); `OnlyShowIn`/`NotShowIn` are not
///   consulted (the agent is not a menu).
/// - One app per bundle identifier: the first found (manifests first, then
///   entries in precedence order) wins; later ones are warned about.
struct InstalledAppBuilder {
    let directories: XDGDataDirectories
    private(set) var apps: [InstalledApp] = []
    var warnings: [String] = []
    private var bundles: [String: String] = [:]

    init(directories: XDGDataDirectories) {
        self.directories = directories
    }

    mutating func add(_ found: DesktopFileScanner.Found, _ entry: DesktopEntry, manifest: HandoffManifestFile?) {
        do {
            guard let app = try build(found, entry, manifest: manifest) else { return }
            if let first = bundles[app.bundleIdentifier] {
                warnings.append("\(found.path): bundle identifier \(app.bundleIdentifier) is already declared by \(first); this entry is skipped")
                return
            }
            bundles[app.bundleIdentifier] = { if case .manifest(let path) = app.declaredBy { path } else { found.path } }()
            apps.append(app)
        } catch {
            warnings.append(error.message)
        }
    }

    private mutating func build(_ found: DesktopFileScanner.Found, _ entry: DesktopEntry, manifest: HandoffManifestFile?) throws(HandoffError) -> InstalledApp? {
        let path = found.path
        /// "<file>:<line of key>: <key>: <message>"; `named: false` when
        /// the message already names the key.
        func problem(_ key: String?, _ message: String, named: Bool = true) -> HandoffError {
            let line = key.flatMap { entry.line(of: $0) }.map { ":\($0)" } ?? ""
            let name = named ? key.map { "\($0): " } ?? "" : ""
            return HandoffError(.malformedData, "\(path)\(line): \(name)\(message)")
        }
        let handoffKeys = [InstalledApps.activityTypesKey, InstalledApps.teamIdentifierKey, InstalledApps.bundleIdentifierKey,
                           InstalledApps.documentActivityTypeKey]

        if try entry.boolean("Hidden") == true {
            if let manifest { warnings.append("\(manifest.path): its desktop entry \(path) is Hidden=true; the app is not installed") }
            return nil
        }

        let declared: Manifest
        let declaredBy: InstalledApp.Declaration
        if let manifest {
            declared = manifest.manifest
            declaredBy = .manifest(manifest.path)
            if let key = handoffKeys.first(where: { entry.has($0) }) {
                warnings.append(problem(key, "ignored: the app is declared by \(manifest.path)").message)
            }
        } else {
            guard let declaration = try declaration(found, entry, { problem($0, $1) }) else { return nil }
            declared = declaration
            declaredBy = .desktopEntry
        }

        let type = try entry.string("Type")
        guard type == "Application" else {
            throw problem(type == nil ? nil : "Type", type.map { "\(DesktopEntry.quoted($0)), not Application: nothing to launch" } ?? "no Type=Application key")
        }
        if let tryExec = try entry.string("TryExec"), ExecutableLookup.find(tryExec, in: directories.searchPath) == nil {
            throw problem("TryExec", "\(DesktopEntry.quoted(tryExec)) is not an executable file (absolute, or in PATH): the app is not installed")
        }

        var dbus = try entry.boolean("DBusActivatable") ?? false
        if dbus, DBusApplicationName(desktopID: found.id) == nil {
            warnings.append(problem("DBusActivatable", "\(found.id) is not a D-Bus well-known name (dot-separated elements of A-Za-z0-9_-, none starting with a digit); Exec is used instead").message)
            dbus = false
        }
        var exec: ExecCommandLine?
        if let value = try entry.string("Exec") {
            do {
                exec = try ExecCommandLine(value)
            } catch {
                guard dbus else { throw problem("Exec", error.message, named: false) }
                warnings.append(problem("Exec", error.message + "; the app is started by D-Bus activation only", named: false).message)
            }
        }
        guard exec != nil || dbus else {
            throw problem(nil, "no Exec (and no DBusActivatable=true): nothing to start")
        }

        var workingDirectory: String?
        if let directory = try entry.string("Path"), !directory.isEmpty {
            if directory.hasPrefix("/") {
                workingDirectory = directory
            } else {
                warnings.append(problem("Path", "\(DesktopEntry.quoted(directory)) is not absolute: ignored").message)
            }
        }

        return InstalledApp(
            desktopID: found.id, desktopFile: path, dataDirectoryIndex: found.directoryIndex,
            manifest: declared, declaredBy: declaredBy,
            name: try? entry.localizedString("Name", locales: directories.languages),
            exec: exec, dbusActivatable: dbus, workingDirectory: workingDirectory,
            noDisplay: try entry.boolean("NoDisplay") ?? false,
            icon: (try? entry.string("Icon")).flatMap { $0?.isEmpty == false ? $0 : nil })
    }

    /// The declaration in the entry's own keys; nil when it has none.
    private mutating func declaration(_ found: DesktopFileScanner.Found, _ entry: DesktopEntry,
                                      _ problem: (String?, String) -> HandoffError) throws(HandoffError) -> Manifest? {
        let typesKey = InstalledApps.activityTypesKey
        let teamKey = InstalledApps.teamIdentifierKey
        let bundleKey = InstalledApps.bundleIdentifierKey
        let domainsKey = InstalledApps.webDomainsKey
        let documentKey = InstalledApps.documentActivityTypeKey
        let types = try entry.strings(typesKey)
        let team = try entry.string(teamKey)
        let domains = try entry.strings(domainsKey)
        let documentType = try entry.string(documentKey)
        guard types != nil || team != nil || domains != nil || documentType != nil else {
            if entry.has(bundleKey) { throw problem(bundleKey, "without \(typesKey) and \(teamKey) the entry declares nothing") }
            return nil
        }
        guard let team else {
            throw problem(types != nil ? typesKey : documentType != nil ? documentKey : domainsKey, "no \(teamKey) beside it; add \(teamKey)=A1B2C3D4E5 (the team of the apps that hand off to this one)")
        }
        let bundle: String
        let bundleSource: String?
        if let explicit = try entry.string(bundleKey) {
            bundle = explicit
            bundleSource = bundleKey
        } else {
            bundle = String(found.id.dropLast(".desktop".count))
            bundleSource = nil
        }
        var declared: Manifest
        do {
            declared = try Manifest(bundleIdentifier: bundle, teamIdentifier: team)
        } catch {
            if !Manifest.isTeamIdentifierValid(team) { throw problem(teamKey, error.message) }
            throw problem(bundleSource, bundleSource == nil
                ? "the desktop-file id \(found.id) gives bundle identifier \(DesktopEntry.quoted(bundle)), which is not reverse-DNS; add \(bundleKey)=com.example.App"
                : error.message)
        }
        for type in types ?? [] {
            do {
                try declared.declare(type)
            } catch {
                warnings.append(problem(typesKey, "\(error.message): skipped").message)
            }
        }
        if let documentType {
            let mimeTypes = try entry.strings("MimeType") ?? []
            do throws(HandoffError) {
                try declared.declare(documentType: DocumentType(activityType: documentType, mimeTypes: mimeTypes))
            } catch {
                warnings.append(problem(documentKey, "\(error.message): skipped").message)
            }
        }
        for domain in domains ?? [] {
            do {
                try declared.declare(webDomain: domain)
            } catch {
                warnings.append(problem(domainsKey, "\(error.message): skipped").message)
            }
        }
        guard !declared.activityTypes.isEmpty || !declared.webDomains.isEmpty else {
            throw problem(types == nil ? teamKey : typesKey, "the entry declares no valid activity type; add \(typesKey)=com.example.App.edit;")
        }
        return declared
    }
}

extension Manifest {
    /// The same check `Manifest.init` makes of a team identifier.
    static func isTeamIdentifierValid(_ team: String) -> Bool {
        (try? Manifest(bundleIdentifier: "a.b", teamIdentifier: team)) != nil
    }
}
