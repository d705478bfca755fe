// SPDX-License-Identifier: MIT OR Apache-2.0

/// What would continue an activity, for its notification.
struct ContinueTarget {
    /// The desktop id (without ".desktop") of the app that would, if known.
    var desktopEntry: String?
    /// Its `Name` and `Icon`, when known.
    var appName: String?
    var icon: String?
    /// Only the web page would open (no app here continues it).
    var webPageOnly = false

    init(_ app: InstalledApp?) {
        desktopEntry = app.map { String($0.desktopID.dropLast(".desktop".count)) }
        appName = app?.name
        icon = app?.icon
    }

    init(desktopEntry: String?, appName: String? = nil, icon: String? = nil) {
        self.desktopEntry = desktopEntry
        self.appName = appName
        self.icon = icon
    }

    static var webPage: ContinueTarget {
        var target = ContinueTarget(nil)
        target.webPageOnly = true
        return target
    }
}
