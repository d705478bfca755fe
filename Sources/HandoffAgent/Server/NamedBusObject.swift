// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// A feature that serves one object under a well-known name on its own
/// session-bus connection (the desktop's search, the session-bus API):
/// it exports the object, asks for the name, and says in the log, once,
/// when it serves, when it cannot ("no …: cannot own …", the agent works on
/// without it) and when the bus goes. A subclass answers the calls
/// (`handle`) and adds what it starts and stops beside the object
/// (`connected`, `willStop`).
///
/// Threads: the loop thread only (an `AgentLoopSource`).
class NamedBusObject: AgentLoopSource {
    let busName: String
    let path: String
    /// The log event's name ("search", "session-api") and what the texts
    /// call the feature ("desktop search", "session-bus API").
    private let event: String
    private let what: String
    private let log: AgentLogSink
    private(set) var bus: SessionBus?
    private var object: SessionBus.ExportedObject?

    init(busName: String, path: String, event: String, what: String, log: @escaping AgentLogSink) {
        self.busName = busName
        self.path = path
        self.event = event
        self.what = what
        self.log = log
    }

    /// Connects to the bus at `address` (nil: the environment's), exports
    /// the object and asks for the name; false (logged, nothing left
    /// open) without a bus.
    final func start(address: String?) -> Bool {
        do throws(DBusError) {
            let bus = try SessionBus(address: address)
            self.bus = bus
            object = try bus.export(path: path) { [unowned self] call in self.handle(call) }
            try bus.requestName(busName) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success:
                    self.say("\(self.what): serving \(self.busName)", state: "on")
                case .failure(let error):
                    self.say("no \(self.what): cannot own \(self.busName): \(error.message)", state: "off")
                    self.stop()
                }
            }
            try connected(bus)
            return true
        } catch {
            say("no \(what): \(error.message) (the agent works without it)", state: "off")
            stop()
            return false
        }
    }

    /// Answers a call to the object. The subclass's.
    func handle(_ call: BusMethodCall) -> BusMethodResult { .notHandled }

    /// The object is exported and the name asked for: what else the
    /// subclass starts on `bus`.
    func connected(_ bus: SessionBus) throws(DBusError) {}

    /// Before the object leaves the bus: what the subclass lets go of.
    func willStop() {}

    final func say(_ text: String, state: String) {
        log(AgentLogEvent(event, text, ["state": .string(state)]))
    }

    // MARK: AgentLoopSource

    final var fd: Int32 { bus?.fd ?? -1 }
    final var pollEvents: Int16 { bus?.events ?? 0 }
    final var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    final func process() {
        guard let bus, !bus.process() else { return }
        say("no \(what): the session bus went away", state: "off")
        stop()
    }

    final func loopWillStop() { stop() }

    final func stop() {
        willStop()
        if let object { bus?.unexport(object) }
        object = nil
        bus?.close()
        bus = nil
    }
}
