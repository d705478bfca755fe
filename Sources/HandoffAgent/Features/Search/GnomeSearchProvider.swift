// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// GNOME Shell's `org.gnome.Shell.SearchProvider2`, answered from the
/// history (docs/history.md "Searching from the desktop"). GNOME gives an
/// X11 timestamp with ActivateResult, not an activation token: nothing is
/// passed on for it.
enum GnomeSearchProvider {
    static let interface = "org.gnome.Shell.SearchProvider2"

    /// The answer to `call`, or nil when it is no method of this interface.
    static func handle(_ call: BusMethodCall, _ answers: HistorySearchAnswers) -> BusMethodResult? {
        switch call.member {
        case "GetInitialResultSet":
            guard call.signature == "as", let terms = try? call.reader.strings(limit: HistorySearchAnswers.maxTerms)
            else { return .wrongArguments(call, expected: "as") }
            let ids = answers.resultIDs(terms)
            return .reply { (w) throws(DBusError) in try w.strings(ids) }
        case "GetSubsearchResultSet":
            let reader = call.reader
            guard call.signature == "asas", let previous = try? reader.strings(limit: HistorySearchAnswers.maxIDs),
                  let terms = try? reader.strings(limit: HistorySearchAnswers.maxTerms)
            else { return .wrongArguments(call, expected: "as, as") }
            let ids = answers.narrowed(previous, terms)
            return .reply { (w) throws(DBusError) in try w.strings(ids) }
        case "GetResultMetas":
            guard call.signature == "as", let ids = try? call.reader.strings(limit: HistorySearchAnswers.maxIDs)
            else { return .wrongArguments(call, expected: "as") }
            let results = answers.metas(ids)
            return .reply { (w) throws(DBusError) in
                try w.enter("a", "a{sv}")
                for r in results {
                    try w.vardict([("id", .string(r.id)), ("name", .string(r.name)),
                                   ("description", .string(r.description)), ("gicon", .string(r.icon))])
                }
                try w.leave()
            }
        case "ActivateResult":
            let reader = call.reader
            guard call.signature == "sasu", let id = try? reader.string() else {
                return .wrongArguments(call, expected: "s, as, u")
            }
            answers.activate(id, activationToken: nil)
            return .reply { _ throws(DBusError) in }
        case "LaunchSearch":
            // There is no window to show the search in: nothing to do.
            guard call.signature == "asu" else { return .wrongArguments(call, expected: "as, u") }
            return .reply { _ throws(DBusError) in }
        default:
            return nil
        }
    }

    static let xml = """
      <interface name="org.gnome.Shell.SearchProvider2">
        <method name="GetInitialResultSet"><arg name="terms" type="as" direction="in"/><arg name="results" type="as" direction="out"/></method>
        <method name="GetSubsearchResultSet"><arg name="previous_results" type="as" direction="in"/><arg name="terms" type="as" direction="in"/><arg name="results" type="as" direction="out"/></method>
        <method name="GetResultMetas"><arg name="identifiers" type="as" direction="in"/><arg name="metas" type="aa{sv}" direction="out"/></method>
        <method name="ActivateResult"><arg name="identifier" type="s" direction="in"/><arg name="terms" type="as" direction="in"/><arg name="timestamp" type="u" direction="in"/></method>
        <method name="LaunchSearch"><arg name="terms" type="as" direction="in"/><arg name="timestamp" type="u" direction="in"/></method>
      </interface>
    """
}
