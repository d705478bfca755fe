// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// KRunner's `org.kde.krunner1` (a D-Bus runner), answered from the
/// history (docs/history.md "Searching from the desktop"). KRunner 6.17
/// and later call `SetActivationToken` just before `Run`: that token (kept
/// in `token`, for the same caller, once, for 10 s) goes to the app Run
/// continues in; older KRunners give none.
enum KRunnerProvider {
    static let interface = "org.kde.krunner1"
    /// The match type / category relevance: KF5's PossibleMatch, KF6's Low.
    static let matchType: Int32 = 30

    static func handle(_ call: BusMethodCall, _ answers: HistorySearchAnswers,
                       token: inout ActivationToken.Held) -> BusMethodResult? {
        switch call.member {
        case "Actions":
            guard call.signature.isEmpty else { return .wrongArguments(call, expected: "") }
            return .reply { (w) throws(DBusError) in try w.emptyArray(of: "(sss)") }
        case "Match":
            guard call.signature == "s", let query = try? call.reader.string() else {
                return .wrongArguments(call, expected: "s")
            }
            let terms = query.split(whereSeparator: { $0.isWhitespace }).prefix(HistorySearchAnswers.maxTerms).map(String.init)
            let results = answers.results(answers.entries(terms))
            return .reply { (w) throws(DBusError) in
                try w.enter("a", "(sssida{sv})")
                for (i, r) in results.enumerated() {
                    try w.enter("r", "sssida{sv}")
                    try w.string(r.id)
                    try w.string(r.name)
                    try w.string(r.themedIcon)
                    try w.int32(matchType)
                    // Best first: 1.0, 0.99, ... (never below 0.5).
                    try w.double(max(0.5, 1.0 - Double(i) / 100))
                    try w.vardict([("subtext", .string(r.description))])
                    try w.leave()
                }
                try w.leave()
            }
        case "Run":
            guard call.signature == "ss", let id = try? call.reader.string() else {
                return .wrongArguments(call, expected: "s, s")
            }
            answers.activate(id, activationToken: token.take(from: call.sender))
            return .reply { _ throws(DBusError) in }
        case "SetActivationToken":
            guard call.signature == "s", let given = try? call.reader.string() else {
                return .wrongArguments(call, expected: "s")
            }
            token.keep(given, from: call.sender)
            return .reply { _ throws(DBusError) in }
        default:
            return nil
        }
    }

    static let xml = """
      <interface name="org.kde.krunner1">
        <method name="Actions"><arg name="matches" type="a(sss)" direction="out"/></method>
        <method name="Match"><arg name="query" type="s" direction="in"/><arg name="matches" type="a(sssida{sv})" direction="out"/></method>
        <method name="SetActivationToken"><arg name="token" type="s" direction="in"/></method>
        <method name="Run"><arg name="matchId" type="s" direction="in"/><arg name="actionId" type="s" direction="in"/></method>
      </interface>
    """
}
