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
final class AgentSearch: AgentLoopSource {
    static let busName = "org.libhandoff.History"
    static let path = "/org/libhandoff/History"

    private let answers: HistorySearchAnswers
    private let log: AgentLogSink
    private var bus: SessionBus?
    private var object: SessionBus.ExportedObject?

    /// Starts on the session bus at `address` (nil: the environment's).
    /// Nil (logged) without a bus.
    static func start(backend: HistorySearchBackend, address: String?, log: @escaping AgentLogSink) -> AgentSearch? {
        let search = AgentSearch(backend: backend, log: log)
        do {
            try search.connect(address: address)
        } catch {
            log(AgentLogEvent("search", "no desktop search: \(error.message) (the agent works without it)",
                              ["state": .string("off")]))
            search.stop()
            return nil
        }
        return search
    }

    private init(backend: HistorySearchBackend, log: @escaping AgentLogSink) {
        self.log = log
        answers = HistorySearchAnswers(backend: backend) { text in log(AgentLogEvent("search", text)) }
    }

    private func connect(address: String?) throws(DBusError) {
        let bus = try SessionBus(address: address)
        self.bus = bus
        object = try bus.export(path: Self.path) { [unowned self] call in self.handle(call) }
        try bus.requestName(Self.busName) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                self.log(AgentLogEvent("search", "desktop search: serving \(Self.busName)", ["state": .string("on")]))
            case .failure(let error):
                self.log(AgentLogEvent("search", "no desktop search: cannot own \(Self.busName): \(error.message)",
                                       ["state": .string("off")]))
                self.stop()
            }
        }
    }

    private func handle(_ call: BusMethodCall) -> BusMethodResult {
        let served = ServedInterface(name: GnomeSearchProvider.interface,
                                     xml: GnomeSearchProvider.xml + "\n" + KRunnerProvider.xml) { [] }
        if let answer = served.standard(call) { return answer }
        switch call.interface {
        case GnomeSearchProvider.interface:
            return GnomeSearchProvider.handle(call, answers) ?? Self.unknown(call)
        case KRunnerProvider.interface:
            return KRunnerProvider.handle(call, answers) ?? Self.unknown(call)
        case "":
            // No interface named: the member alone says which (no name is in both).
            return GnomeSearchProvider.handle(call, answers) ?? KRunnerProvider.handle(call, answers) ?? Self.unknown(call)
        default:
            return .notHandled
        }
    }

    private static func unknown(_ call: BusMethodCall) -> BusMethodResult {
        .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(call.interface)")
    }

    // MARK: AgentLoopSource

    var fd: Int32 { bus?.fd ?? -1 }
    var pollEvents: Int16 { bus?.events ?? 0 }
    var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    func process() {
        guard let bus, !bus.process() else { return }
        log(AgentLogEvent("search", "no desktop search: the session bus went away", ["state": .string("off")]))
        stop()
    }

    func loopWillStop() { stop() }

    private func stop() {
        if let object { bus?.unexport(object) }
        object = nil
        bus?.close()
        bus = nil
    }
}
