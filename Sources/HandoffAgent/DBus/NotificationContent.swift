// SPDX-License-Identifier: MIT OR Apache-2.0
/// What the person is shown for an activity they can continue
/// (docs/agent.md §6): the summary is the activity's title (its type when
/// it has none), the body says which device it is on.
public struct NotificationContent: Sendable, Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        a.title == b.title && a.type == b.type && a.deviceName == b.deviceName && a.icon == b.icon
            && a.desktopEntry == b.desktopEntry && a.text?.summary == b.text?.summary && a.text?.body == b.text?.body
            && a.actions.map { $0.map { [$0.key, $0.label] } } == b.actions.map { $0.map { [$0.key, $0.label] } }
            && a.urgency == b.urgency
    }

    /// The agent's own notification: `summary` and `body` shown as they are.
    public init(summary: String, body: String, actions: [(key: String, label: String)], urgency: UInt8) {
        self.init(title: nil, type: "", deviceName: "")
        text = (summary, body)
        self.actions = actions
        self.urgency = urgency
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

    /// Longest summary and device name shown, in characters (the rest is
    /// cut with "…"): titles come from other devices.
    public static let maxSummaryCharacters = 120
    public static let maxDeviceCharacters = 64

    public init(title: String?, type: String, deviceName: String, icon: String = "", desktopEntry: String? = nil) {
        self.title = title
        self.type = type
        self.deviceName = deviceName
        self.icon = icon
        self.desktopEntry = desktopEntry
    }

    /// The summary and body for a server with `capabilities`: the body is
    /// markup-escaped where the server reads markup ("body-markup"), and
    /// where it shows no body at all the device goes into the summary.
    func rendered(capabilities: Set<String>) -> (summary: String, body: String) {
        if let text {
            let summary = Self.cut(Self.oneLine(text.summary), Self.maxSummaryCharacters)
            guard capabilities.contains("body") else { return (text.body.isEmpty ? summary : "\(summary) \(text.body)", "") }
            return (summary, capabilities.contains("body-markup") ? Self.escapeMarkup(text.body) : text.body)
        }
        let name = (title?.isEmpty == false ? title! : type)
        let summary = Self.cut(Self.oneLine(name), Self.maxSummaryCharacters)
        let device = Self.cut(Self.oneLine(deviceName), Self.maxDeviceCharacters)
        guard capabilities.contains("body") else { return (tr("{title} (from {device})", ["title": summary, "device": device]), "") }
        let body = tr("from {device}", ["device": device])
        return (summary, capabilities.contains("body-markup") ? Self.escapeMarkup(body) : body)
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
