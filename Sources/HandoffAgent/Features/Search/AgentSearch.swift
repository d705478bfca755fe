// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// The desktop's search of the history (docs/history.md "Searching from
/// the desktop"): on its own session-bus connection it owns
/// `org.libhandoff.History` and serves, at `/org/libhandoff/History`,
/// GNOME Shell's search provider and KRunner's runner interfaces (and
/// Introspectable). Calls are answered at once from the index on the loop
/// thread. Without a bus, or when another process owns the name, it logs
/// so once and the agent works on without it.
///
/// Threads: the loop thread only (an `AgentLoopSource`).
final class AgentSearch: NamedBusObject {
    static let busName = "org.libhandoff.History"
    static let path = "/org/libhandoff/History"

    private let answers: HistorySearchAnswers
    /// KRunner's `SetActivationToken`, for its `Run` that follows.
    private var krunnerToken = ActivationToken.Held()

    /// Starts on the session bus at `address` (nil: the environment's).
    /// Nil (logged) without a bus.
    static func start(backend: HistorySearchBackend, address: String?, log: @escaping AgentLogSink) -> AgentSearch? {
        let search = AgentSearch(backend: backend, log: log)
        return search.start(address: address) ? search : nil
    }

    private init(backend: HistorySearchBackend, log: @escaping AgentLogSink) {
        answers = HistorySearchAnswers(backend: backend) { text in log(AgentLogEvent("search", text)) }
        super.init(busName: Self.busName, path: Self.path, event: "search", what: "desktop search", log: log)
    }

    override func handle(_ call: BusMethodCall) -> BusMethodResult {
        let served = ServedInterface(name: GnomeSearchProvider.interface,
                                     xml: GnomeSearchProvider.xml + "\n" + KRunnerProvider.xml) { [] }
        if let answer = served.standard(call) { return answer }
        switch call.interface {
        case GnomeSearchProvider.interface:
            return GnomeSearchProvider.handle(call, answers) ?? Self.unknown(call)
        case KRunnerProvider.interface:
            return KRunnerProvider.handle(call, answers, token: &krunnerToken) ?? Self.unknown(call)
        case "":
            // No interface named: the member alone says which (no name is in both).
            return GnomeSearchProvider.handle(call, answers)
                ?? KRunnerProvider.handle(call, answers, token: &krunnerToken) ?? Self.unknown(call)
        default:
            return .notHandled
        }
    }

    private static func unknown(_ call: BusMethodCall) -> BusMethodResult {
        .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(call.interface)")
    }
}
