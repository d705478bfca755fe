// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// The notification for an activity another device offers
/// (docs/agent.md §6): an offer naming what would continue it, or, when
/// nothing here does, a notice saying so.
extension NotificationContent {
    /// An offer: the title, "Continue in <App> · from <device>" with the
    /// app's icon, or "Open in the browser · from …" when only its web
    /// page would open.
    static func offer(_ remote: RemoteActivity, _ target: ContinueTarget) -> NotificationContent {
        let kind: Kind = target.webPageOnly ? .webPage : .app(name: target.appName)
        // Always an icon: the app's, else the browser's or the agent's.
        let icon = target.webPageOnly ? browserIcon : target.icon.flatMap { $0.isEmpty ? nil : $0 } ?? agentIcon
        return NotificationContent(title: remote.title, type: remote.activityType, deviceName: remote.deviceName,
                                   icon: icon, desktopEntry: target.desktopEntry, kind: kind)
    }

    /// "No app here continues <app> · from …": low urgency, transient,
    /// with "Install" when the sender's bundle id may name an AppStream
    /// component. The app is named by `appName` (an app installed here
    /// under the sender's bundle id that does not declare the type), else
    /// by a readable form of the sender's bundle id ("com.example.shapes"
    /// → "Shapes"), else of the type: the beacon carries no app name.
    /// (An activity with a web page the agent can open is an offer: "Open
    /// in the browser".)
    static func noApp(_ remote: RemoteActivity, installable: Bool, appName: String? = nil) -> NotificationContent {
        var content = NotificationContent(title: remote.title, type: remote.activityType, deviceName: remote.deviceName,
                                          icon: agentIcon, kind: .noApp(installable: installable))
        content.appName = appName ?? (remote.bundleIdentifier.isEmpty ? nil : readableName(remote.bundleIdentifier))
        return content
    }
}
