// SPDX-License-Identifier: MIT OR Apache-2.0

/// How a person knows an app, where the agent names one it may not launch
/// (a search result's "App · Device · when", the tray's Recent entries, the
/// "no app" notice): its desktop entry's `Name` (localized as the menus
/// show it) and `Icon`. A bundle id is what a person does not know: it is
/// shown only when no entry is (docs/agent.md §14).
public struct AppLabel: Sendable, Equatable {
    public var name: String
    /// A themed name or an absolute path; nil: the entry gives none.
    public var icon: String?

    public init(name: String, icon: String?) {
        self.name = name
        self.icon = icon
    }
}

extension InstalledApps {
    /// The label for an activity of `bundle` (team `team`, type `type`):
    /// the app installed under that bundle id; else the desktop entry
    /// named `<bundle>.desktop` even though it declares nothing for
    /// Handoff (the app is on this machine, and its name is what the
    /// person knows); else the app here that would continue it (`apps(
    /// continuing:type:preferring:)`, what choosing it opens). Nil when no
    /// entry is known. Reads at most one undeclared entry (bounded,
    /// `DesktopEntry(path:)`).
    public func label(bundle: String, team: String? = nil, type: String? = nil) -> AppLabel? {
        if let app = app(bundleIdentifier: bundle), let label = Self.label(app) { return label }
        if !bundle.isEmpty, let path = undeclared[bundle + ".desktop"],
           let entry = try? DesktopEntry(path: path),
           let name = (try? entry.localizedString("Name", locales: directories.languages)) ?? nil, !name.isEmpty {
            let icon = ((try? entry.string("Icon")) ?? nil).flatMap { $0.isEmpty ? nil : $0 }
            return AppLabel(name: name, icon: icon)
        }
        if let team, let type, let app = apps(continuing: team, type: type, preferring: bundle).first {
            return Self.label(app)
        }
        return nil
    }

    private static func label(_ app: InstalledApp) -> AppLabel? {
        guard let name = app.name, !name.isEmpty else { return nil }
        return AppLabel(name: name, icon: app.icon.flatMap { $0.isEmpty ? nil : $0 })
    }
}
