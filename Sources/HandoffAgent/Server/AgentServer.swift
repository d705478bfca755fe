// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffContinuity
import HandoffDBus
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The agent's side of the local socket (docs/agent.md §3): one loop
/// thread runs one `Reactor` (the listener, every connection, and any
/// `AgentLoopSource` such as the session bus) and does all the work of the
/// connections; other threads only post jobs to it. An idle server
/// sleeps: its timers are the HELLO deadline of connections that have not
/// said it yet (one timer, at the earliest) and what sources ask for.
///
/// At accept: the peer's uid (SO_PEERCRED) must be the agent's, at most
/// `maxClients` connections and `maxClientsPerProcess` per pid, else the
/// connection is closed at once. Then HELLO within `helloTimeout`; a
/// malformed message, a reply to nothing, a descriptor where none belongs
/// close that connection only; an unknown type is answered ERROR.
public final class AgentServer: @unchecked Sendable {
    // @unchecked: loop-thread state is only touched on the loop thread;
    // shared state is in `shared`.

    /// What WELCOME and STATUS say of this device.
    public struct Identity: Sendable {
        public var agentVersion: String
        public var device: DeviceIdentity
        /// The account key's public id (hex).
        public var accountID: String

        public init(agentVersion: String, device: DeviceIdentity, accountID: String) {
            self.agentVersion = agentVersion
            self.device = device
            self.accountID = accountID
        }
    }

    public let hub: EndpointHub
    public let engine: ContinuityEngine
    public let limits: AgentLimits
    public let identity: Identity
    /// The loop thread's reactor: `loop.post` runs a job there.
    let loop: Reactor
    private let listener: Int32
    private var listenerWatch: Reactor.Watch?
    /// The earliest HELLO deadline of the connections that have not said it.
    private var helloTimer: Reactor.Timer?
    private var helloArmed: UInt64?
    let logSink: AgentLogSink
    /// Nil: no installed apps are launched and no web page is opened.
    private let desktop: AgentDesktop?
    /// Who continues what the person chose (CHOOSE, a notification, the
    /// tray, a history entry). Loop thread.
    let routing: ContinueRouter

    // Loop thread.
    let sessions: AgentSessions
    let sources: LoopSources
    private var nextToken: UInt64 = 0
    /// What the agent shows on the session bus and the bus's return
    /// (AgentServer+SessionBus.swift).
    var busFeatures = SessionBusFeatures()
    /// The desktop notifications, once started (pairing asks through them).
    var notifications: AgentNotifications?
    /// What can be continued now, for the notifications and the tray;
    /// hears the hub once either starts. Loop thread.
    private(set) lazy var offers = ContinuableOffers(server: self)
    /// The tray icon, once started.
    var tray: AgentTray?
    /// The desktop's search of the history, once started.
    var search: AgentSearch?
    /// The session-bus API front ends use (docs/agent.md §15), once started.
    var sessionAPI: AgentSessionAPI?
    /// The document portal, once an app asked (Features/DocumentPortal).
    var documentPortal: (portal: DocumentPortal, key: LoopSources.Key)?
    /// The history (docs/history.md), once started; nil: none is kept.
    public internal(set) var history: AgentHistory?
    /// Sponsoring new devices' pairings (docs/agent.md §9), once started.
    var pairing: AgentPairing?
    /// Payloads of history entries being continued, for their FETCH.
    var savedContinuations = SavedContinuations()
    /// What the tray's Pause and Pair do (the settings store sets its own
    /// before `startTray`; else `MemoryTrayActions`). Loop thread.
    var trayActions: TrayActions?

    private struct Shared {
        var counters = AgentCounters()
        var clients = 0
        var started = false
    }
    private let shared: Locked<Shared>
    private let finished = Awaitable(false)

    /// Takes `listener` (a listening SOCK_SEQPACKET socket, non-blocking
    /// or not: accept is non-blocking) and closes it on `stop`.
    public init(listener: Int32, hub: EndpointHub, engine: ContinuityEngine, identity: Identity,
                limits: AgentLimits = AgentLimits(), desktop: AgentDesktop? = nil,
                log: @escaping AgentLogSink = { _ in }) throws(HandoffError) {
        self.listener = listener
        self.hub = hub
        self.engine = engine
        self.identity = identity
        self.limits = limits
        self.desktop = desktop
        self.logSink = log
        // The router's view of the server, made of its parts (not of
        // `self`, which is not whole yet): a plain dependency.
        let sessions = AgentSessions()
        let shared = Locked(Shared())
        self.sessions = sessions
        self.shared = shared
        routing = ContinueRouter(desktop: desktop, offered: { hub.availableNow }, running: { sessions.all },
                                 settings: { engine.settings }, count: { body in shared.withLock { body(&$0.counters) } },
                                 log: log)
        do {
            loop = try Reactor()
        } catch {
            throw HandoffError(.io, "cannot create the agent's event loop: \(error)")
        }
        sources = LoopSources(reactor: loop)
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, (flags < 0 ? 0 : flags) | O_NONBLOCK)
        if let desktop {
            if let bus = desktop.bus { add(bus) }
            desktop.launcher.onScope = { [unowned self] app, pid, result in self.routing.scoped(app, pid, result) }
        }
    }

    /// Starts the loop thread.
    public func start() throws(HandoffError) {
        let first = shared.withLock { s in
            defer { s.started = true }
            return !s.started
        }
        guard first else { return }
        let finished = self.finished
        guard startDetachedThread({ [self] in
            self.run()
            finished.update { $0 = true }
        }) else {
            throw HandoffError(.io, "cannot start the agent's loop thread")
        }
    }

    /// Closes every connection (each app's advertisement is withdrawn and
    /// what the engine waits for from it fails with 4609), stops the loop
    /// and closes the listener. Waits for the loop thread. Idempotent;
    /// not from the loop thread.
    public func stop() {
        let started = shared.withLock { $0.started }
        if started {
            loop.stop()
            finished.wait(until: { $0 }, seconds: .infinity) { _, _ in }
        } else {
            shutDown()
        }
    }

    /// A snapshot (any thread).
    public var counters: AgentCounters { shared.withLock { $0.counters } }
    /// Connections open now (any thread).
    public var clientCount: Int { shared.withLock { $0.clients } }

    /// Watches `source` on the loop from now on (any thread; the source
    /// itself is used on the loop thread only).
    public func add(_ source: any AgentLoopSource) {
        nonisolated(unsafe) let source = source
        loop.post { [self] in
            self.sources.add(source)
        }
    }

    /// Runs `job` on the loop thread (any thread).
    public func perform(_ job: @escaping @Sendable () -> Void) {
        loop.post(job)
    }

    // MARK: The loop

    private func run() {
        // What was posted before the loop started (the history, the
        // notifications, the tray: `Agent`) is in place before the first
        // connection is accepted or read: the listener is watched by a job
        // posted after theirs.
        loop.post { [self] in
            self.listenerWatch = self.loop.watch(self.listener, .readable) { [unowned self] _ in self.acceptAll() }
        }
        let me = WeakBox(self)
        helloTimer = loop.timer { me.value?.expireHellos() }
        loop.beforeEachWait { [unowned self] in
            self.checkBusFeatures()
            self.sources.beforeWait()
            self.armHelloTimer()
        }
        loop.run()
        shutDown()
    }

    /// The HELLO timer at the earliest deadline of the connections that
    /// have not said it (disarmed when none: an idle agent sleeps).
    private func armHelloTimer() {
        var earliest: UInt64?
        for session in sessions.values where session.hello == nil {
            if earliest == nil || session.helloDeadline < earliest! { earliest = session.helloDeadline }
        }
        guard earliest != helloArmed, let helloTimer else { return }
        helloArmed = earliest
        loop.arm(helloTimer, at: earliest)
    }

    private func shutDown() {
        // The features first, the last started first: a pairing under way
        // ends (as a "no") while its notification can still be closed.
        for feature in AgentFeature.all.reversed() { feature.stop(self) }
        for session in Array(sessions.values) { session.connection.close(.stopping) }
        if let listenerWatch { loop.unwatch(listenerWatch) }
        listenerWatch = nil
        close(listener)
        sources.loopWillStop()
        offers.stop()
        for job in loop.close() { job() }
        sources.removeAll()
        if let helloTimer { loop.release(helloTimer) }
    }

    // MARK: Accepting

    private func acceptAll() {
        for _ in 0..<limits.maxClients {
            guard let fd = LocalSocket.accept(listener) else { return }
            accept(fd)
        }
    }

    private func accept(_ fd: Int32) {
        guard let peer = LocalSocket.credentials(of: fd), peer.uid == getuid() else {
            let uid = LocalSocket.credentials(of: fd).map { Int64($0.uid) } ?? -1
            count { $0.refusedUser += 1 }
            log("refused", "refused a connection from uid \(uid): only uid \(getuid()) may use this agent",
                ["uid": .int(uid), "reason": .string("user")])
            close(fd)
            return
        }
        let fromProcess = sessions.values.filter { $0.connection.peer.pid == peer.pid }.count
        guard sessions.count < limits.maxClients, fromProcess < limits.maxClientsPerProcess else {
            count { $0.refusedFull += 1 }
            let why = sessions.count >= limits.maxClients
                ? "\(sessions.count) connections are open (at most \(limits.maxClients))"
                : "pid \(peer.pid) has \(fromProcess) connections (at most \(limits.maxClientsPerProcess))"
            log("refused", "refused a connection from pid \(peer.pid): \(why)",
                ["pid": .int(Int64(peer.pid)), "reason": .string("full")])
            close(fd)
            return
        }
        let token = takeToken()
        let connection = AgentConnection(fd: fd, peer: peer, token: token, loop: loop, maxQueued: limits.maxQueuedMessages)
        let session = AgentSession(connection: connection, server: self,
                                   helloDeadline: Monotonic.after(seconds: limits.helloTimeout))
        connection.watch { [unowned self, unowned session] in self.read(session) }
        connection.onClose = { [unowned self, unowned session] reason in self.closed(session, reason) }
        sessions[token] = session
        shared.withLock { s in
            s.counters.accepted += 1
            s.clients = sessions.count
        }
        log("accepted", "connection from pid \(peer.pid)", ["pid": .int(Int64(peer.pid))])
    }

    func takeToken() -> UInt64 {
        nextToken += 1
        return nextToken
    }

    // MARK: Reading

    private func read(_ session: AgentSession) {
        let connection = session.connection
        session.beginReading()  // no offer served while a withdrawal may be in hand
        defer { session.endReading() }
        for _ in 0..<limits.readsPerTurn where !connection.isClosed {
            switch connection.receive() {
            case .wouldBlock:
                return
            case .closed:
                return connection.close(.peer)
            case .failed(let code):
                log("error", "\(session.describe): receive failed: \(String(cString: strerror(code)))")
                return connection.close(.peer)
            case .truncated:
                return connection.close(.malformed("a datagram over \(AgentFrame.maxSize) bytes (or with too many descriptors)"))
            case .message(let bytes, let descriptors):
                guard descriptors.isEmpty else {
                    descriptors.forEach { close($0) }
                    return connection.close(.malformed("a descriptor came with a message that takes none"))
                }
                handle(bytes, from: session)
            }
        }
    }

    private func handle(_ bytes: [UInt8], from session: AgentSession) {
        let frame: AgentFrame
        do {
            frame = try AgentFrame(decoding: bytes, from: .app)
        } catch {
            switch error {
            case .malformed(let why):
                return session.connection.close(.malformed(why))
            case .unknownType(let type, let requestID):
                guard session.hello != nil else {
                    return session.connection.close(.malformed("its first message was of unknown type \(type), not HELLO"))
                }
                count { $0.unknownTypes += 1 }
                // An event (id 0) of a type we do not know has nothing to answer.
                guard requestID != 0 else { return }
                let reply = AgentFrame(.error(HandoffError(.invalidArgument, error.message)), requestID: requestID)
                if let encoded = try? reply.encoded() { session.connection.enqueue(encoded) }
                return
            }
        }
        let beforeHello = session.hello == nil
        if let why = session.receive(frame) { session.connection.close(beforeHello ? .noHello(why) : .malformed(why)) }
    }

    // MARK: Sessions

    /// A session said HELLO.
    func registered(_ session: AgentSession) {
        count { $0.hellos += 1 }
        guard let hello = session.hello else { return }
        log("hello", "\(session.describe) registered (team \(hello.manifest.teamIdentifier), "
                + "\(hello.manifest.activityTypes.count) types)",
            ["pid": .int(Int64(session.connection.peer.pid)), "bundle": .string(hello.manifest.bundleIdentifier),
             "team": .string(hello.manifest.teamIdentifier), "observer": .bool(hello.observer)])
    }

    private func closed(_ session: AgentSession, _ reason: AgentConnection.CloseReason) {
        sessions[session.connection.token] = nil
        session.didClose()
        let (word, text) = reason.logged(limits)
        shared.withLock { s in
            s.clients = sessions.count
            s.counters.count(closed: reason)
        }
        log("closed", "\(session.describe) \(text)", ["pid": .int(Int64(session.connection.peer.pid)), "reason": .string(word)])
    }

    private func expireHellos() {
        helloArmed = nil   // fired: disarmed
        let now = Monotonic.now()
        for session in Array(sessions.values) where session.hello == nil && now >= session.helloDeadline {
            session.connection.close(.helloTimeout)
        }
    }

    /// Starts the features of `AgentFeature.all` as `options` ask, in the
    /// table's order, before the first connection is served (the loop runs
    /// what was posted before it started ahead of any connection). Any thread.
    func startFeatures(_ options: AgentFeatureOptions) {
        loop.post { [self] in
            for feature in AgentFeature.all { feature.start(self, options) }
        }
    }

    /// The pause state or the devices changed outside the tray (the
    /// settings store, the roster): it shows them again. Loop thread.
    func trayStateChanged() {
        tray?.refresh()
        sessionAPI?.changed()
    }

    // MARK: Counting and logging

    func count(_ body: (inout AgentCounters) -> Void) {
        shared.withLock { body(&$0.counters) }
    }

    func log(_ name: String, _ text: String, _ fields: KeyValuePairs<String, AgentLogEvent.Value> = [:]) {
        logSink(AgentLogEvent(name, text, fields))
    }
}
