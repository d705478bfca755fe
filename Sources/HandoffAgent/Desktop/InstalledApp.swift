// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// An installed app that can continue activities, as the agent found it:
/// what it declares (from its desktop entry's `X-Handoff-*` keys or from a
/// Handoff manifest) and how to start it (from its desktop entry).
public struct InstalledApp: Sendable, Equatable {
    /// Where the declaration came from.
    public enum Declaration: Sendable, Equatable {
        /// `X-Handoff-ActivityTypes` / `X-Handoff-TeamIdentifier` keys.
        case desktopEntry
        /// `<data dir>/handoff/<bundle-id>.plist`, at this path.
        case manifest(String)
    }

    /// The desktop-file id, e.g. `org.example.Notes.desktop`
    /// (`applications/a/b.desktop` is `a-b.desktop`).
    public let desktopID: String
    /// The desktop entry file the id resolved to.
    public let desktopFile: String
    /// Precedence of the data directory holding the entry (0 is
    /// `$XDG_DATA_HOME`'s when set, then `$XDG_DATA_DIRS` in order).
    public let dataDirectoryIndex: Int
    /// Bundle identifier, team and declared activity types (checked).
    public let manifest: Manifest
    public let declaredBy: Declaration
    /// `Name`, localized for the agent's locale; nil when absent.
    public let name: String?
    /// The parsed `Exec`; nil only for a D-Bus-activatable entry without a
    /// usable one.
    public let exec: ExecCommandLine?
    /// `DBusActivatable=true`.
    public let dbusActivatable: Bool
    /// `Path`: the working directory to start `Exec` in, when absolute.
    public let workingDirectory: String?
    /// `NoDisplay=true`: not in menus, still launchable.
    public let noDisplay: Bool
    /// `Icon`: a themed icon name or an absolute path, as the entry gives
    /// it; nil when absent or empty. Shown as the notification's `app_icon`.
    public var icon: String? = nil

    public var bundleIdentifier: String { manifest.bundleIdentifier }
    public var teamIdentifier: String { manifest.teamIdentifier }
    public var activityTypes: [String] { manifest.activityTypes }

    /// True when the app may continue an activity of `type` from `team`
    /// (both matched byte for byte).
    public func canContinue(team: String, type: String) -> Bool {
        teamIdentifier.utf8.elementsEqual(team.utf8) && manifest.declares(type)
    }
}
