// SPDX-License-Identifier: MIT OR Apache-2.0
/// The words a person reads in the agent's activity notifications
/// (docs/agent.md §6), all in one place so that putting them through
/// gettext is one edit. Values (titles, device and app names, types) come
/// in as they are; cutting and markup escaping happen where they are shown
/// (`NotificationContent`).
enum AgentTexts {
    // An offer's summary is the activity's title alone and its body says
    // what choosing it does, the app first and the device last: GNOME
    // Shell shows each as one line cut at its end, so what opens must not
    // sit at the end of a long summary (docs/agent.md §6).

    /// Body of an offer an app here continues: `Continue in Notes · from Kitchen iMac`.
    static func continueIn(app: String, device: String) -> String {
        // TRANSLATORS: a notification's second line, under the activity's title; keep the app before the device.
        tr("Continue in {app} · from {device}", ["app": app, "device": device])
    }
    /// Body when the app's name is not known (a running app without a
    /// desktop entry): `Continue here · from Kitchen iMac`.
    static func continueHere(device: String) -> String { tr("Continue here · from {device}", ["device": device]) }
    /// Body of an offer only the browser would open: `Open in the browser · from Kitchen iMac`.
    static func openInBrowser(device: String) -> String { tr("Open in the browser · from {device}", ["device": device]) }
    /// Body when nothing here continues it: `No app here continues Maps ·
    /// from Kitchen iMac` (the sending app's name, never a raw type alone).
    static func noApp(app: String, device: String) -> String {
        tr("No app here continues {app} · from {device}", ["app": app, "device": device])
    }

    /// Action labels.
    static var continueLabel: String { tr("Continue") }
    static var openInBrowserLabel: String { tr("Open in browser") }
    /// The "no app" notice's action.
    static var installLabel: String { tr("Install") }
}
