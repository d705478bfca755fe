// SPDX-License-Identifier: MIT OR Apache-2.0
/// What the person is shown for an activity another device offers
/// (docs/agent.md §6): the summary is the activity's title (its type when
/// it has none), the body what choosing it does and which device offers
/// it ("Continue in Notes · from Kitchen iMac", "Open in the browser · from
/// …", "No app here continues Maps · from …"). The words are
/// `AgentTexts`'.
public struct NotificationContent: Sendable, Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        a.title == b.title && a.type == b.type && a.deviceName == b.deviceName && a.icon == b.icon
            && a.desktopEntry == b.desktopEntry && a.text?.summary == b.text?.summary && a.text?.body == b.text?.body
            && a.actions.map { $0.map { [$0.key, $0.label] } } == b.actions.map { $0.map { [$0.key, $0.label] } }
            && a.urgency == b.urgency && a.kind == b.kind && a.imagePath == b.imagePath && a.transient == b.transient
            && a.lasting == b.lasting && a.appName == b.appName
    }

    /// What choosing the notification would do, which decides its words.
    public enum Kind: Sendable, Equatable {
        /// An app here continues it; its `Name` when known.
        case app(name: String?)
        /// Only its web page would open, in the browser.
        case webPage
        /// Nothing here continues it, not even a browser (it has no web
        /// page the agent may open): a notice, with "Install" when an app
        /// for it may be found.
        case noApp(installable: Bool)
    }

    /// The action key of the notice's "Install".
    public static let installAction = "install"
    /// The spec's key for a click on the notification itself.
    public static let defaultAction = "default"

    /// The agent's own icon, on its own notifications and where nothing
    /// better is known (the installed theme's `handoff`).
    public static let agentIcon = "handoff"
    /// The icon of an offer only the browser opens.
    public static let browserIcon = "web-browser"

    /// The agent's own notification: `summary` and `body` shown as they
    /// are, with the agent's icon. A question (urgency 2) is `lasting`.
    public init(summary: String, body: String, actions: [(key: String, label: String)], urgency: UInt8,
                icon: String = Self.agentIcon) {
        self.init(title: nil, type: "", deviceName: "", icon: icon)
        text = (summary, body)
        self.actions = actions
        self.urgency = urgency
        lasting = urgency >= 2
    }

    public var title: String?
    public var type: String
    public var deviceName: String
    /// `app_icon`: an icon name or file:// URI; "" for none.
    public var icon: String
    /// The `desktop-entry` hint: the desktop id (without ".desktop") of the
    /// app that would continue it, so the server can show its name and icon.
    public var desktopEntry: String?
    /// A notification of the agent's own (pairing, docs/agent.md §9):
    /// this summary and body as they are, instead of an activity's.
    public var text: (summary: String, body: String)?
    /// The actions offered as (key, label); nil: the activity's "Continue".
    public var actions: [(key: String, label: String)]?
    /// The `urgency` hint: 1 normal; 2 critical (servers keep it until answered).
    public var urgency: UInt8 = 1
    public var kind: Kind = .app(name: nil)
    /// The `image-path` hint: the app's icon when it is an absolute file
    /// (some servers show `image-path` but not a file `app_icon`).
    public var imagePath: String?
    /// The `transient` hint: true for a notice the server need not keep in
    /// its history (the "no app" notice); offers are kept (false).
    public var transient = false
    /// Stays until the agent closes it (an offer while it can be
    /// continued, a question until answered): `expire_timeout` 0 instead
    /// of the server's default (dunst and xfce4-notifyd drop the rest
    /// after 10 s), the `resident` hint where the server keeps
    /// notifications ("persistence"), and shown again to a server that
    /// takes over even after the old one let it expire.
    public var lasting = false
    /// The name of the app the activity came from, for the "no app"
    /// notice (nil: a readable form of the sender's bundle id or type).
    public var appName: String?

    /// Longest summary and device name shown, in characters (the rest is
    /// cut with "…"): titles come from other devices.
    public static let maxSummaryCharacters = 120
    public static let maxDeviceCharacters = 64
    /// Longest title inside a summary, in characters.
    public static let maxTitleCharacters = 80

    public init(title: String?, type: String, deviceName: String, icon: String = "", desktopEntry: String? = nil,
                kind: Kind = .app(name: nil)) {
        self.title = title
        self.type = type
        self.deviceName = deviceName
        self.icon = icon
        self.desktopEntry = desktopEntry
        self.kind = kind
        if icon.hasPrefix("/") { imagePath = icon }
        switch kind {
        case .noApp:
            urgency = 0
            transient = true
        case .app, .webPage:
            lasting = true
        }
    }

    /// The actions as (key, label): `actions` when set, else what `kind` offers.
    public var offeredActions: [(key: String, label: String)] {
        if let actions { return actions }
        // "default" is a click on the notification's body (dunst and
        // notification-daemon show no buttons until asked): it continues.
        switch kind {
        case .app: return [(Self.defaultAction, AgentTexts.continueLabel), ("continue", AgentTexts.continueLabel)]
        case .webPage: return [(Self.defaultAction, AgentTexts.openInBrowserLabel), ("continue", AgentTexts.openInBrowserLabel)]
        case .noApp(let installable):
            return installable ? [(Self.installAction, AgentTexts.installLabel)] : []
        }
    }

    /// The summary and body for a server with `capabilities`: the body is
    /// markup-escaped where the server reads markup ("body-markup"), and
    /// where it shows no body at all the body follows the summary in
    /// parentheses ("Title (Continue in Notes · from …)").
    func rendered(capabilities: Set<String>) -> (summary: String, body: String) {
        if let text {
            let summary = Self.cut(Self.oneLine(text.summary), Self.maxSummaryCharacters)
            guard capabilities.contains("body") else { return (text.body.isEmpty ? summary : "\(summary) \(text.body)", "") }
            return (summary, capabilities.contains("body-markup") ? Self.escapeMarkup(text.body) : text.body)
        }
        // The title alone is the summary, what it does the body
        // (`AgentTexts`): both read whole where a shell cuts each line.
        let summary = Self.cut(Self.oneLine(title?.isEmpty == false ? title! : type), Self.maxTitleCharacters)
        let device = Self.cut(Self.oneLine(deviceName), Self.maxDeviceCharacters)
        let body: String
        switch kind {
        case .app(let app?):
            body = AgentTexts.continueIn(app: Self.cut(Self.oneLine(app), Self.maxDeviceCharacters), device: device)
        case .app(nil):
            body = AgentTexts.continueHere(device: device)
        case .webPage:
            body = AgentTexts.openInBrowser(device: device)
        case .noApp:
            let app = appName.flatMap { $0.isEmpty ? nil : $0 } ?? Self.readableName(type)
            body = AgentTexts.noApp(app: Self.cut(Self.oneLine(app), Self.maxDeviceCharacters), device: device)
        }
        let cutSummary = Self.cut(summary, Self.maxSummaryCharacters)
        guard capabilities.contains("body") else { return ("\(cutSummary) (\(body))", "") }
        return (cutSummary, capabilities.contains("body-markup") ? Self.escapeMarkup(body) : body)
    }

    /// A name a person can read from a reverse-DNS identifier (a bundle
    /// id or an activity type) when no app name is known: its last
    /// component, words split at "-" and "_", the first letter capital
    /// ("com.example.shapes" → "Shapes", "INSendMessageIntent" stays).
    static func readableName(_ identifier: String) -> String {
        let last = identifier.split(separator: ".").last.map(String.init) ?? identifier
        let words = String(last.map { $0 == "_" || $0 == "-" ? " " : $0 })
        guard let first = words.first else { return identifier }
        return first.uppercased() + words.dropFirst()
    }

    static func cut(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// Control characters (newlines included) become spaces: one line each.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : $0
        }))
    }

    /// The notification spec's body markup is a small XML subset: &, < and >
    /// must be entities or the server may drop or misread the text.
    static func escapeMarkup(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(ch)
            }
        }
        return out
    }
}
