// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One history entry as the desktop's search shows it (docs/history.md
/// "Searching from the desktop"): its title, "App · Device · when", and
/// the app's icon name. Built on the loop thread from the entry and how
/// the person knows its app (`InstalledApps.label`: its desktop entry's
/// `Name` and `Icon`; nil: no entry here, and the bundle id stands in).
struct SearchResult: Equatable {
    /// Longest title or description handed to the shell, in bytes: a
    /// result row shows one line; a 1,024-byte title is cut here.
    static let maxTextBytes = 256
    /// The icon when the app is not installed here (the agent's own).
    static let genericIcon = "handoff"

    var id: String
    var name: String
    var description: String
    /// A themed icon name or an absolute path (GNOME's `gicon` takes both).
    var icon: String

    init(_ entry: HistoryEntry, app: AppLabel?, nowMilliseconds: Int64) {
        id = entry.resultID
        let title = entry.title.isEmpty ? entry.activityType : entry.title
        name = truncateUTF8(title, to: Self.maxTextBytes)
        let appName = app?.name ?? entry.bundle
        let seconds = Double(max(0, nowMilliseconds - entry.lastSeen)) / 1000
        description = truncateUTF8(SearchTexts.description(app: appName, device: entry.deviceName,
                                                           when: TrayDevice.describe(seconds)), to: Self.maxTextBytes)
        icon = app?.icon.flatMap { $0.isEmpty ? nil : $0 } ?? Self.genericIcon
    }

    /// The icon as a theme name (KRunner's `iconName` is looked up in the
    /// theme only): an absolute path gives the generic icon.
    var themedIcon: String { icon.hasPrefix("/") ? Self.genericIcon : icon }
}

/// The words of a search result, through gettext (docs/TRANSLATING.md).
enum SearchTexts {
    /// "Notes · Kitchen iMac · 5 min ago".
    static func description(app: String, device: String, when: String) -> String {
        // TRANSLATORS: a search result's second line: the app, the device it was used on, how long ago.
        tr("{app} · {device} · {when}", ["app": app, "device": device, "when": when])
    }
}
