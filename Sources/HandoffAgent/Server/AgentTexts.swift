// SPDX-License-Identifier: MIT OR Apache-2.0
/// The words a person reads in the agent's activity notifications
/// (docs/agent.md §6), all in one place so that putting them through
/// gettext is one edit. Values (titles, device and app names, types) come
/// in as they are; cutting and markup escaping happen where they are shown
/// (`NotificationContent`).
enum AgentTexts {
    /// Summary of an offer an app here continues: `Continue “Title” in Notes`.
    static func continueIn(title: String, app: String) -> String { tr("Continue “{title}” in {app}", ["title": title, "app": app]) }
    /// Summary when the app's name is not known (a running app without a
    /// desktop entry): `Continue “Title”`.
    static func continueTitle(_ title: String) -> String { tr("Continue “{title}”", ["title": title]) }
    /// Summary of an offer only the browser would open: `Open “Title” in the browser`.
    static func openInBrowser(title: String) -> String { tr("Open “{title}” in the browser", ["title": title]) }
    /// Body: which device offers it.
    static func fromDevice(_ device: String) -> String { tr("from {device}", ["device": device]) }
    /// Summary when nothing here continues it: `No app on this device
    /// continues Maps` (the sending app's name, never a raw type alone).
    static func noApp(app: String) -> String { tr("No app on this device continues {app}", ["app": app]) }
    /// Body of that notice: `“Title” from Kitchen iMac`.
    static func titleFromDevice(title: String, device: String) -> String { tr("“{title}” from {device}", ["title": title, "device": device]) }

    /// Action labels.
    static var continueLabel: String { tr("Continue") }
    static var openInBrowserLabel: String { tr("Open in browser") }
    /// The "no app" notice's action.
    static var installLabel: String { tr("Install") }
}
