// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// The agent's session-bus API (docs/agent.md §15): on its own session-bus
/// connection it owns `org.libhandoff.Agent` and serves
/// `org.libhandoff.Agent1` at `/org/libhandoff/Agent` (with Properties and
/// Introspectable). Front ends read the properties, call the methods and
/// hear `PropertiesChanged`: what changed in one turn of the loop is one
/// signal, sent only when a property's value differs from the last one
/// sent. Nothing runs while nothing changes: no timer, no polling. The
/// bus, the name and their log lines are `NamedBusObject`'s.
///
/// Threads: the loop thread only (an `AgentLoopSource`).
final class AgentSessionAPI: NamedBusObject, @unchecked Sendable {
    // @unchecked: touched on the loop thread only (what it posts runs there).
    static let busName = "org.libhandoff.Agent"
    static let path = "/org/libhandoff/Agent"
    static let interface = "org.libhandoff.Agent1"

    unowned let server: AgentServer
    private var listener: ContinuableOffers.Listener?
    /// What the last PropertiesChanged (or the start) said.
    private var sent: AgentSnapshot?
    /// A flush is posted for this turn of the loop.
    private var flushPosted = false
    /// The front end's pairing under way (`Pair()`), and how many were made.
    var pairingObject: PairingObject?
    var pairings = 0
    var controls: AgentControls { .sessionBus(server) }

    /// Starts on the session bus at `address` (nil: the environment's).
    /// Nil (logged) without a bus.
    static func start(server: AgentServer, address: String?) -> AgentSessionAPI? {
        let api = AgentSessionAPI(server: server)
        return api.start(address: address) ? api : nil
    }

    private init(server: AgentServer) {
        self.server = server
        super.init(busName: Self.busName, path: Self.path, event: "session-api", what: "session-bus API", log: server.logSink)
    }

    /// The calls are answered in AgentSessionAPI+Methods.swift.
    override func handle(_ call: BusMethodCall) -> BusMethodResult { reply(to: call) }

    override func connected(_ bus: SessionBus) throws(DBusError) {
        listener = server.offers.listen { [unowned self] _ in self.changed() }
        server.offers.start()
        sent = snapshot()
    }

    func snapshot() -> AgentSnapshot { server.snapshot(paused: controls.isPaused) }

    /// Something front ends show may have changed: one PropertiesChanged
    /// at the end of this turn of the loop, for what did.
    func changed() {
        guard !flushPosted, bus != nil else { return }
        flushPosted = true
        server.loop.post { [weak self] in self?.flush() }
    }

    private func flush() {
        flushPosted = false
        guard let bus, let old = sent else { return }
        let now = snapshot()
        let names = now.changed(since: old)
        sent = now
        guard !names.isEmpty else { return }
        let values = now.properties.filter { names.contains($0.0) }
        try? bus.emit(path: Self.path, interface: ServedInterface.propertiesInterface, member: "PropertiesChanged") {
            (w) throws(DBusError) in
            try w.string(Self.interface)
            try w.vardict(values)
            try w.strings([])
        }
    }

    /// `Continued(s id, b ok, s message)`, after the reply to the call
    /// that caused it.
    func continued(_ id: String, ok: Bool, _ message: String) {
        server.loop.post { [weak self] in
            try? self?.bus?.emit(path: Self.path, interface: Self.interface, member: "Continued") { (w) throws(DBusError) in
                try w.string(id)
                try w.bool(ok)
                try w.string(message)
            }
        }
    }

    override func willStop() {
        pairingObject?.end(paired: false, "the agent's session-bus API stopped", tell: false)
        if let listener { server.offers.unlisten(listener) }
        listener = nil
    }
}
