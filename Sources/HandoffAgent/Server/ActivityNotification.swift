// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// The notification for an activity another device offers
/// (docs/agent.md §6): an offer naming what would continue it, or, when
/// nothing here does, a notice saying so.
extension NotificationContent {
    /// An offer: "Continue “Title” in <App>" with the app's icon, or "Open
    /// “Title” in the browser" when only its web page would open.
    static func offer(_ remote: RemoteActivity, _ target: ContinueTarget) -> NotificationContent {
        let kind: Kind = target.webPageOnly ? .webPage : .app(name: target.appName)
        return NotificationContent(title: remote.title, type: remote.activityType, deviceName: remote.deviceName,
                                   icon: target.icon ?? "", desktopEntry: target.desktopEntry, kind: kind)
    }

    /// "No app on this device continues <type>": low urgency, transient,
    /// with "Install" when the sender's bundle id may name an AppStream
    /// component. (An activity with a web page the agent can open is an
    /// offer: "Open “Title” in the browser".)
    static func noApp(_ remote: RemoteActivity, installable: Bool) -> NotificationContent {
        NotificationContent(title: remote.title, type: remote.activityType, deviceName: remote.deviceName,
                            kind: .noApp(installable: installable))
    }
}
