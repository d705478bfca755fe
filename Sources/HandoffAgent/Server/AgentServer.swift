// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffContinuity
import HandoffDBus
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The agent's side of the local socket (docs/agent.md §3): one loop
/// thread waits on one epoll set (the listener, every connection, a wake
/// eventfd, and any `AgentLoopSource` such as the session bus) and does
/// all the work of the connections; other threads only post jobs to it.
/// An idle server sleeps: the only timeouts are HELLO deadlines of
/// connections that have not said it yet and what sources ask for.
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
    let loop: EventLoop
    private let listener: Int32
    let logSink: AgentLogSink
    /// Nil: no installed apps are launched and no web page is opened.
    private let desktop: AgentDesktop?

    // Loop thread.
    private var sessions: [EventLoop.Token: AgentSession] = [:]
    private(set) lazy var sources = LoopSources(loop: loop) { [unowned self] message in self.log("error", message) }
    private var nextToken: EventLoop.Token = 16
    /// What the agent shows on the session bus and the bus's return
    /// (AgentServer+SessionBus.swift).
    var busFaces = SessionBusFaces()
    /// "No systemd user manager" was logged (loop thread): once is enough.
    private var saidNoUserManager = false
    /// The desktop notifications, once started (pairing asks through them).
    var notifications: AgentNotifications?
    /// What can be continued now, for the notifications and the tray;
    /// hears the hub once either starts. Loop thread.
    private(set) lazy var offers = ContinuableOffers(server: self)
    /// The tray icon, once started.
    var tray: AgentTray?
    /// The desktop's search of the history, once started.
    var search: AgentSearch?
    /// When the search last rescanned the installed apps (monotonic s).
    private var searchRescanned = -Double.infinity
    /// The history (docs/history.md), once started; nil: none is kept.
    public private(set) var history: AgentHistory?
    /// Payloads of history entries being continued, for their FETCH.
    var savedContinuations = SavedContinuations()
    /// What the tray's Pause and Pair do (the settings store sets its own
    /// before `startTray`; else `MemoryTrayActions`). Loop thread.
    var trayActions: TrayActions?

    private struct Shared {
        var counters = AgentCounters()
        var clients = 0
        var started = false
        var stopping = false
    }
    private let shared = Locked(Shared())
    private let finished = Awaitable(false)

    static let listenerToken: EventLoop.Token = 1

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
        loop = try EventLoop()
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, (flags < 0 ? 0 : flags) | O_NONBLOCK)
        try loop.add(listener, token: Self.listenerToken, events: EPOLLIN.rawValue)
        if let desktop {
            if let bus = desktop.bus { add(bus) }
            desktop.launcher.onScope = { [unowned self] app, pid, result in self.scoped(app, pid, result) }
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
        let started = shared.withLock { s in
            s.stopping = true
            return s.started
        }
        if started {
            loop.poke()
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
            self.sources.add(source, token: self.takeToken())
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
        // connection is accepted or read.
        for job in loop.takeJobs() { job() }
        while !shared.withLock({ $0.stopping }) {
            let events = loop.wait(milliseconds: timeout())
            for (token, mask) in events {
                if token == Self.listenerToken {
                    acceptAll()
                } else if let session = sessions[token] {
                    if mask & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { read(session) }
                    if mask & EPOLLOUT.rawValue != 0 { session.connection.flush() }
                } else {
                    _ = sources.process(token)
                }
            }
            for job in loop.takeJobs() { job() }
            expireHellos()
            // What this turn did may have queued a bus message or connected
            // the launcher's bus: `processDue` watches what each wants now.
            sources.processDue()
            checkBusFaces()
        }
        shutDown()
    }

    /// Milliseconds until the next HELLO deadline or source timeout; -1
    /// when none (an idle agent sleeps until something happens).
    private func timeout() -> Int32 {
        var ms: Int32 = -1
        func consider(_ value: Int32) { if value >= 0 && (ms < 0 || value < ms) { ms = value } }
        let now = monotonicSeconds()
        for session in sessions.values where session.hello == nil {
            consider(Int32(min(Double(Int32.max), max(0, (session.helloDeadline - now) * 1000).rounded(.up))))
        }
        consider(sources.timeoutMilliseconds)
        return ms
    }

    private func shutDown() {
        for session in Array(sessions.values) { session.connection.close(.stopping) }
        loop.remove(listener)
        close(listener)
        sources.loopWillStop()
        offers.stop()
        history?.stop()
        for job in loop.stopTakingJobs() { job() }
        sources.removeAll()
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
        do {
            try loop.add(fd, token: token, events: EPOLLIN.rawValue)
        } catch {
            close(fd)
            log("error", error.message)
            return
        }
        let session = AgentSession(connection: connection, server: self, helloDeadline: monotonicSeconds() + limits.helloTimeout)
        connection.onClose = { [unowned self, unowned session] reason in self.closed(session, reason) }
        sessions[token] = session
        shared.withLock { s in
            s.counters.accepted += 1
            s.clients = sessions.count
        }
        log("accepted", "connection from pid \(peer.pid)", ["pid": .int(Int64(peer.pid))])
    }

    func takeToken() -> EventLoop.Token {
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
        let (word, text): (String, String)
        switch reason {
        case .peer: (word, text) = ("peer", "disconnected")
        case .malformed(let why): (word, text) = ("malformed", "closed: \(why)")
        case .noHello(let why): (word, text) = ("no-hello", "closed: \(why)")
        case .helloTimeout: (word, text) = ("hello-timeout", "closed: no HELLO within \(limits.helloTimeout) s")
        case .queueFull: (word, text) = ("queue-full", "closed: \(limits.maxQueuedMessages) messages queued it did not read")
        case .stopping: (word, text) = ("stopping", "closed: the agent stops")
        case .refused: (word, text) = ("refused", "closed after an error")
        }
        shared.withLock { s in
            s.clients = sessions.count
            switch reason {
            case .peer: s.counters.closedByPeer += 1
            case .malformed: s.counters.closedMalformed += 1
            case .noHello: s.counters.closedNoHello += 1
            case .helloTimeout: s.counters.closedHelloTimeout += 1
            case .queueFull: s.counters.closedQueueFull += 1
            case .stopping, .refused: break
            }
        }
        log("closed", "\(session.describe) \(text)", ["pid": .int(Int64(session.connection.peer.pid)), "reason": .string(word)])
    }

    private func expireHellos() {
        let now = monotonicSeconds()
        for session in Array(sessions.values) where session.hello == nil && now >= session.helloDeadline {
            session.connection.close(.helloTimeout)
        }
    }

    /// WELCOME's body.
    var welcome: AgentWelcome {
        AgentWelcome(agentVersion: identity.agentVersion, deviceID: identity.device.idBytes,
                     deviceName: engine.deviceName, role: identity.device.role, accountID: identity.accountID)
    }

    /// STATUS's body: the device, the engine's view of the others, and
    /// the engine's and the server's counters (server ones prefixed "agent.").
    func status() -> AgentStatus {
        var extra: [String: Int64] = [:]
        for (key, value) in counters.dictionary { extra["agent." + key] = value }
        // What became of history records (docs/agent.md §14): none lost uncounted.
        if let counts = history?.counts {
            extra["agent.historyReceived"] = Int64(counts.received)
            extra["agent.historyCoalesced"] = Int64(counts.coalesced)
            extra["agent.historyDropped"] = Int64(counts.dropped)
            extra["agent.historyFailed"] = Int64(counts.failed)
        }
        return AgentStatus(engine: engine, device: currentDevice, clients: sessions.count, extraCounters: extra)
    }

    // MARK: Continuing chosen activities

    /// Continues `activityID` as the person would from a notification
    /// (CHOOSE), in the order of docs/agent.md §13 "Who continues what":
    /// for a browsing-web page, an app claiming its domain (running, else
    /// installed and launched); then an app of the sender's team declaring
    /// the type (running: the sender's bundle first, then the one connected
    /// longest; else installed and launched: it gets CONTINUE when it says
    /// HELLO); else the http(s) page, in a connected browser bridge or the
    /// default browser. `activationToken` (the notification's) goes to the
    /// launched app. Loop thread.
    /// - Returns: what was done, or 4609 (not offered now) / 4608 (nothing
    ///   here can continue it).
    func choose(_ activityID: ActivityID, activationToken: String? = nil) -> Result<ContinueChoice, HandoffError> {
        guard let remote = hub.availableNow.first(where: { $0.activityID == activityID }) else {
            return .failure(HandoffError(.connectionUnavailable, "no device offers activity \(activityID.uuidString) now"))
        }
        return choose(remote: remote, activationToken: activationToken)
    }

    /// `choose` for an activity already in hand: one offered now, or one
    /// from the history (`continueHistoryEntry`). Loop thread.
    func choose(remote: RemoteActivity, activationToken: String?) -> Result<ContinueChoice, HandoffError> {
        let claimers = runningContinuers(of: remote, by: .webDomain)
        if let (session, offered) = claimers.first {
            return .success(deliver(offered, to: session, activationToken: activationToken))
        }
        if let desktop {
            for warning in desktop.installed.rescan() { log("desktop", warning) }
            desktop.pending.expire()
            let installedClaimers = installedClaimers(of: remote, on: desktop)
            if !installedClaimers.isEmpty,
               case .success(let choice)? = launchFirst(remote, installedClaimers[...], on: desktop, activationToken: activationToken).result {
                return .success(choice)
            }
        }
        if let (session, offered) = runningContinuers(of: remote, by: .declared).first {
            return .success(deliver(offered, to: session, activationToken: activationToken))
        }
        guard let desktop else {
            if let choice = openInBrowserBridge(remote, activationToken: activationToken) { return .success(choice) }
            return .failure(HandoffError(.handoffFailed, "no running app continues \(remote.activityType) of team \(remote.teamIdentifier)"))
        }
        let candidates = desktop.installed.apps(continuing: remote.teamIdentifier, type: remote.activityType,
                                                preferring: remote.bundleIdentifier)
        return launchOrOpen(remote, candidates[...], on: desktop, activationToken: activationToken)
    }

    /// CONTINUE to a running app, which is brought forward.
    private func deliver(_ offered: RemoteActivity, to session: AgentSession, activationToken: String?) -> ContinueChoice {
        session.continueActivity(offered, activationToken: activationToken)
        log("continue", "\(offered.activityType) from \(offered.deviceName) continues in \(session.describe)",
            ["activity": .string(offered.activityID.uuidString), "bundle": .string(session.manifest.bundleIdentifier)])
        bringForward(session.manifest.bundleIdentifier, activationToken: activationToken)
        return .running(session.manifest.bundleIdentifier)
    }

    /// The installed apps claiming `remote`'s page (not those the person
    /// turned off), in precedence order.
    private func installedClaimers(of remote: RemoteActivity, on desktop: AgentDesktop) -> [InstalledApp] {
        let settings = engine.settings
        return desktop.installed.apps.filter {
            ActivityGate.claimedPage(remote, by: $0.manifest) && settings.webDomainsAllowed(for: $0.bundleIdentifier)
        }
    }

    /// A connected browser bridge (a running app declaring
    /// `NSUserActivityTypeBrowsingWeb`) opens `remote`'s http(s) page: it
    /// gets CONTINUE as gated for it (for its web page only, unless the
    /// page is its own team's browsing-web activity). The one connected
    /// longest; nil when none runs or there is no page.
    private func openInBrowserBridge(_ remote: RemoteActivity, activationToken: String?) -> ContinueChoice? {
        guard let url = ActivityGate.webPage(remote.webpageURL) else { return nil }
        let browsers = sessions.values
            .filter { $0.isRegistered && !$0.isObserver && $0.manifest.declares(ActivityGate.browsingWebType) }
            .sorted { $0.connection.token < $1.connection.token }
        guard let session = browsers.first, let offered = ActivityGate.offer(remote, to: session.audience) else { return nil }
        session.continueActivity(offered, activationToken: activationToken)
        count { $0.webPagesOpened += 1 }
        log("web", "\(session.describe) opens \(url.absoluteString) for \(remote.activityType) from \(remote.deviceName)",
            ["activity": .string(remote.activityID.uuidString), "url": .string(url.absoluteString),
             "bundle": .string(session.manifest.bundleIdentifier)])
        return .webPage(url)
    }

    /// A running app that is `DBusActivatable=true` gets
    /// `org.freedesktop.Application.Activate` with the click's token as
    /// platform data, as a desktop launcher does, so it raises its window
    /// (docs/agent.md §5). Other running apps get the token with CONTINUE
    /// only (docs/agent.md §3). Its failure is logged, nothing else.
    private func bringForward(_ bundle: String, activationToken: String?) {
        guard let desktop, let dbus = desktop.launcher.dbus,
              let app = desktop.installed.app(bundleIdentifier: bundle), app.dbusActivatable else { return }
        let fields: KeyValuePairs<String, AgentLogEvent.Value> = [
            "bundle": .string(bundle), "desktop": .string(app.desktopID),
            "token": .bool(ActivationToken.checked(activationToken) != nil)]
        do {
            try dbus.activateApplication(desktopID: app.desktopID, activationToken: activationToken) { [unowned self] result in
                if case .failure(let error) = result {
                    self.log("raise-failed", "could not bring \(app.desktopID) forward: \(error.message)", fields)
                }
            }
            log("raise", "asked \(app.desktopID) to come forward (Activate)", fields)
        } catch {
            log("raise-failed", "could not bring \(app.desktopID) forward: \(error.message)", fields)
        }
    }

    /// The "No app on this device continues …" notice's "Install"
    /// (docs/agent.md §6): the software centre at the sender's bundle id.
    /// Loop thread.
    func openInstall(for activityID: ActivityID, activationToken: String?) -> Result<Void, HandoffError> {
        guard let remote = hub.availableNow.first(where: { $0.activityID == activityID }) else {
            return .failure(HandoffError(.connectionUnavailable, "no device offers activity \(activityID.uuidString) now"))
        }
        guard let desktop else { return .failure(HandoffError(.handoffFailed, "the agent has no desktop to open things with")) }
        do {
            let pid = try desktop.web.openAppStream(remote.bundleIdentifier, activationToken: activationToken)
            log("install", "opened the software centre at \(remote.bundleIdentifier) (pid \(pid))",
                ["activity": .string(activityID.uuidString), "bundle": .string(remote.bundleIdentifier)])
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Why no installed app continues `remote` although one is named like
    /// its bundle id: that entry declares no activity types. Nil otherwise.
    func undeclaredReason(_ remote: RemoteActivity) -> String? {
        guard let path = desktop?.installed.undeclared[remote.bundleIdentifier + ".desktop"] else { return nil }
        return "\(path) is named like the sender's app but declares nothing for Handoff (no \(InstalledApps.activityTypesKey) and \(InstalledApps.teamIdentifierKey) keys, no manifest), so it is not asked"
    }

    /// Whether the sender's app may be found in a software centre (an
    /// "Install" action on the "no app" notice; `AppStreamLink`).
    func installable(_ remote: RemoteActivity) -> Bool {
        desktop != nil && AppStreamLink.url(for: remote.bundleIdentifier) != nil
    }

    /// Launches the first of `candidates` that starts (the choice kept for
    /// it), else opens the web page. A D-Bus activation that fails later
    /// without an `Exec` to fall back on comes back here with the rest.
    private func launchOrOpen(_ remote: RemoteActivity, _ candidates: ArraySlice<InstalledApp>, on desktop: AgentDesktop,
                              activationToken: String?, failed: [String] = []) -> Result<ContinueChoice, HandoffError> {
        let launch = launchFirst(remote, candidates, on: desktop, activationToken: activationToken, failed: failed)
        if let result = launch.result { return result }
        if let choice = openInBrowserBridge(remote, activationToken: activationToken) { return .success(choice) }
        if let url = ActivityGate.webPage(remote.webpageURL) {
            do {
                try desktop.web.open(url.absoluteString, activationToken: activationToken)
                count { $0.webPagesOpened += 1 }
                log("web", "opened \(url.absoluteString) for \(remote.activityType) from \(remote.deviceName)",
                    ["activity": .string(remote.activityID.uuidString), "url": .string(url.absoluteString)])
                return .success(.webPage(url))
            } catch {
                log("web-failed", error.message, ["url": .string(url.absoluteString)])
                return .failure(HandoffError(.handoffFailed, error.message))
            }
        }
        if !launch.failed.isEmpty {
            // Installed, but it did not start: say so, not "no app".
            return .failure(HandoffError(.handoffFailed,
                                         "\(launch.failed.joined(separator: ", ")) did not start (see launch-failed above), and \(remote.activityType) has no web page"))
        }
        let why = undeclaredReason(remote).map { " (\($0))" } ?? ""
        return .failure(HandoffError(.handoffFailed,
                                     "no app here continues \(remote.activityType) of team \(remote.teamIdentifier), and it has no web page\(why)"))
    }

    /// Launches the first of `candidates` that starts (the choice kept for
    /// it): its result, or nil with the desktop ids that did not start.
    private func launchFirst(_ remote: RemoteActivity, _ candidates: ArraySlice<InstalledApp>, on desktop: AgentDesktop,
                             activationToken: String?, failed: [String] = []) -> (result: Result<ContinueChoice, HandoffError>?, failed: [String]) {
        let activityID = remote.activityID
        var failed = failed
        var rest = candidates
        while let app = rest.popFirst() {
            let others = rest
            do {
                let launch = try desktop.launcher.launch(app, activationToken: activationToken) { [unowned self] outcome in
                    self.launched(app, outcome, for: remote, others: others, on: desktop, activationToken: activationToken)
                }
                desktop.pending.add(remote, for: app.bundleIdentifier)
                count { $0.launches += 1 }
                let how: String = switch launch {
                case .dbus(let address): "D-Bus activation of \(address.busName)"
                case .process(let pid): "pid \(pid)"
                case .processInstead(let pid, let error): "pid \(pid); D-Bus activation failed: \(error.message)"
                }
                log("launch", "launched \(app.desktopID) (\(how)) to continue \(remote.activityType) from \(remote.deviceName)",
                    ["activity": .string(activityID.uuidString), "bundle": .string(app.bundleIdentifier),
                     "desktop": .string(app.desktopID), "how": .string(launch.word),
                     "token": .bool(ActivationToken.checked(activationToken) != nil)])
                return (.success(.launched(app.bundleIdentifier)), failed)
            } catch {
                failed.append(app.desktopID)
                log("launch-failed", "cannot launch \(app.desktopID): \(error.message)",
                    ["bundle": .string(app.bundleIdentifier), "desktop": .string(app.desktopID)])
            }
        }
        return (nil, failed)
    }

    /// What became of a D-Bus activation (on a later turn of the loop).
    private func launched(_ app: InstalledApp, _ outcome: Launcher.Outcome, for remote: RemoteActivity,
                          others: ArraySlice<InstalledApp>, on desktop: AgentDesktop, activationToken: String?) {
        let fields: KeyValuePairs<String, AgentLogEvent.Value> = [
            "activity": .string(remote.activityID.uuidString), "bundle": .string(app.bundleIdentifier),
            "desktop": .string(app.desktopID)]
        switch outcome {
        case .activated:
            log("activated", "\(app.desktopID) answered its D-Bus activation", fields)
        case .processInstead(let pid, let error):
            // Its Exec has the full time to connect.
            desktop.pending.renew(for: app.bundleIdentifier)
            log("launch-fallback", "D-Bus activation of \(app.desktopID) failed (\(error.message)): started its Exec, pid \(pid)",
                fields)
        case .failed(let error):
            log("launch-failed", "cannot launch \(app.desktopID): \(error.message)", fields)
            // Only while the choice still waits for this app: it may have
            // connected after all, or the person chose again.
            guard desktop.pending.choice(for: app.bundleIdentifier)?.activityID == remote.activityID else { return }
            _ = desktop.pending.take(for: app.bundleIdentifier)
            if case .failure(let error) = launchOrOpen(remote, others, on: desktop, activationToken: activationToken,
                                                       failed: [app.desktopID]) {
                log("choose-failed", "cannot continue \(remote.activityID.uuidString): \(error.message)",
                    ["activity": .string(remote.activityID.uuidString), "code": .int(Int64(error.code.rawValue))])
            }
        }
    }

    /// What became of a launched program's systemd scope.
    private func scoped(_ app: InstalledApp, _ pid: Int32, _ result: Result<String, HandoffError>) {
        switch result {
        case .success(let unit):
            log("scope", "pid \(pid) (\(app.desktopID)) runs in \(unit)", ["pid": .int(Int64(pid)), "unit": .string(unit)])
        case .failure(let error) where error.code == .connectionUnavailable:
            // No user manager is the normal case on many desktops: said once.
            guard !saidNoUserManager else { return }
            saidNoUserManager = true
            log("scope-none", "no systemd user manager: launched programs stay in the agent's cgroup "
                    + "(said once; \(error.message))", ["pid": .int(Int64(pid))])
        case .failure(let error):
            log("scope-failed", "pid \(pid) (\(app.desktopID)) stays in the agent's cgroup: \(error.message)",
                ["pid": .int(Int64(pid))])
        }
    }

    /// What would continue `remote` if the person chose it now, without
    /// doing it (the notification shows only what can be continued): the
    /// order of `choose`. Loop thread.
    func continuer(of remote: RemoteActivity, rescanning: Bool) -> ContinueTarget? {
        if let session = runningContinuers(of: remote, by: .webDomain).first {
            return ContinueTarget(desktop?.installed.app(bundleIdentifier: session.0.manifest.bundleIdentifier))
        }
        if let desktop {
            if rescanning { for warning in desktop.installed.rescan() { log("desktop", warning) } }
            if let app = installedClaimers(of: remote, on: desktop).first { return ContinueTarget(app) }
        }
        if let session = runningContinuers(of: remote, by: .declared).first {
            // A browser bridge continues a page by opening it: "Open in browser".
            if remote.activityType.utf8.elementsEqual(ActivityGate.browsingWebType.utf8),
               session.0.manifest.declares(ActivityGate.browsingWebType) {
                return .webPage
            }
            return ContinueTarget(desktop?.installed.app(bundleIdentifier: session.0.manifest.bundleIdentifier))
        }
        if let desktop, let app = desktop.installed.apps(continuing: remote.teamIdentifier, type: remote.activityType,
                                                         preferring: remote.bundleIdentifier).first {
            return ContinueTarget(app)
        }
        return ActivityGate.webPage(remote.webpageURL) != nil ? .webPage : nil
    }

    /// The running apps that may continue `remote` for the reason `match`
    /// (not for its web page only; a claim the person turned off does not
    /// count), in the order CHOOSE tries them: the sender's bundle id
    /// first, then the one connected longest.
    private func runningContinuers(of remote: RemoteActivity, by match: ActivityGate.Match) -> [(AgentSession, RemoteActivity)] {
        let settings = engine.settings
        return sessions.values
            .filter { $0.isRegistered && !$0.isObserver && ActivityGate.match(remote, $0.manifest) == match }
            .filter { match != .webDomain || settings.webDomainsAllowed(for: $0.manifest.bundleIdentifier) }
            .compactMap { session in
                ActivityGate.offer(remote, to: session.audience).flatMap { $0.isWebOnly ? nil : (session, $0) }
            }
            .sorted { a, b in
                let (sameA, sameB) = (a.0.manifest.bundleIdentifier == remote.bundleIdentifier,
                                      b.0.manifest.bundleIdentifier == remote.bundleIdentifier)
                return sameA != sameB ? sameA : a.0.connection.token < b.0.connection.token
            }
    }

    /// Applies `handoff device --name` while the agent runs: watches the
    /// device file in the account `directory` (`DeviceNameWatch`). Any thread.
    public func watchDeviceName(directory: String) {
        loop.post { [self] in
            guard let watch = DeviceNameWatch.start(server: self, directory: directory) else { return }
            self.sources.add(watch, token: self.takeToken())
            // A rename made between reading the configuration and now.
            watch.reload()
        }
    }

    /// The installed app of `bundle`, for a search result's or the tray's
    /// Recent entry's name and icon (nil: none here, or no desktop). The
    /// apps are looked at again at most every 10 seconds: a search asks at
    /// each key typed. Loop thread.
    func installedApp(bundle: String) -> InstalledApp? {
        guard let desktop else { return nil }
        let now = monotonicSeconds()
        if now - searchRescanned >= 10 {
            searchRescanned = now
            for warning in desktop.installed.rescan() { log("desktop", warning) }
        }
        return desktop.installed.app(bundleIdentifier: bundle)
    }

    /// Keeps the history in the database at `path` (docs/history.md). Any
    /// thread; a database that cannot be opened is logged and the agent
    /// carries on without history.
    public func startHistory(path: String) {
        loop.post { [self] in
            let engine = self.engine
            do throws(HandoffError) {
                let history = try AgentHistory(path: path, settings: { engine.settings },
                                               changed: { [weak self] in
                                                   guard let server = self else { return }
                                                   server.loop.post { server.trayStateChanged() }
                                               }) { [weak self] message in
                    self?.log("history", message)
                }
                self.history = history
                // The age limit's one timer (docs/history.md "Bounds and retention").
                self.sources.add(history.expiry, token: self.takeToken())
                // Other devices' activities, when the person turns that on.
                let watch = RemoteHistoryWatch(server: self, history: history)
                watch.start()
                self.sources.add(watch, token: self.takeToken())
            } catch {
                self.log("history", "no history is kept: \(error.message)")
            }
        }
    }

    /// The pause state or the devices changed outside the tray (the
    /// settings store, the roster): it shows them again. Loop thread.
    func trayStateChanged() {
        tray?.refresh()
    }

    /// A continuation chosen for an app being launched, if `bundle` has
    /// one kept (and not expired). Loop thread.
    func takePendingLaunch(for bundle: String) -> RemoteActivity? {
        guard let desktop else { return nil }
        for dropped in desktop.pending.expire() {
            log("launch-expired", "\(dropped.activityType): the launched app did not connect in time")
        }
        return desktop.pending.take(for: bundle)
    }

    /// `choose` from outside the loop (the notification's "Continue").
    public func choose(_ activityID: ActivityID, activationToken: String? = nil,
                       completion: @escaping @Sendable (Result<ContinueChoice, HandoffError>) -> Void) {
        loop.post { [self] in completion(self.choose(activityID, activationToken: activationToken)) }
    }

    // MARK: Counting and logging

    func count(_ body: (inout AgentCounters) -> Void) {
        shared.withLock { body(&$0.counters) }
    }

    func log(_ name: String, _ text: String, _ fields: KeyValuePairs<String, AgentLogEvent.Value> = [:]) {
        logSink(AgentLogEvent(name, text, fields))
    }
}

extension Launcher.Launch {
    /// For the log.
    var word: String {
        switch self {
        case .dbus: "dbus"
        case .process: "exec"
        case .processInstead: "exec-instead"
        }
    }
}

/// What CHOOSE did.
public enum ContinueChoice: Sendable, Equatable {
    /// CONTINUE went to the running app with this bundle id.
    case running(String)
    /// This installed app was launched; it gets CONTINUE when it connects.
    case launched(String)
    case webPage(URLReference)
}

/// A descriptor the agent's loop watches besides its own (the session
/// bus): polled for `pollEvents`, and `process()` runs when it is ready or
/// `timeoutMilliseconds` (−1: none) has passed. Loop thread only.
public protocol AgentLoopSource: AnyObject {
    var fd: Int32 { get }
    var pollEvents: Int16 { get }
    var timeoutMilliseconds: Int32 { get }
    func process()
    /// The loop stops: last words (close what was shown), then let go.
    func loopWillStop()
}

extension AgentLoopSource {
    public func loopWillStop() {}
}

/// What would continue an activity, for its notification.
struct ContinueTarget {
    /// The desktop id (without ".desktop") of the app that would, if known.
    var desktopEntry: String?
    /// Its `Name` and `Icon`, when known.
    var appName: String?
    var icon: String?
    /// Only the web page would open (no app here continues it).
    var webPageOnly = false

    init(_ app: InstalledApp?) {
        desktopEntry = app.map { String($0.desktopID.dropLast(".desktop".count)) }
        appName = app?.name
        icon = app?.icon
    }

    init(desktopEntry: String?, appName: String? = nil, icon: String? = nil) {
        self.desktopEntry = desktopEntry
        self.appName = appName
        self.icon = icon
    }

    static var webPage: ContinueTarget {
        var target = ContinueTarget(nil)
        target.webPageOnly = true
        return target
    }
}
