// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The agent before this device has an account (docs/agent.md §10): it
/// holds its socket and answers each app's first request (HELLO) with
/// ERROR 4 (`HANDOFF_E_NOT_FOUND`, "not paired yet"), closing the
/// connection after it; it watches the account directory with inotify (no
/// polling: the directory is created 0700 if missing) and returns as soon
/// as `isReady` says the account is there (`handoff pair` or `handoff
/// account create` in another process, or the pairing its tray starts),
/// so the caller starts the engine on the same socket without a restart.
/// The person meets a `WaitingSurface`: a notification that explains once,
/// the tray's "not set up" and its "Pair this device…".
///
/// One thread (the caller's), one `Reactor`: the listener, the inotify
/// descriptor, `cancelFD` (readable: stop waiting), the session-bus
/// connections, the app connections; their handlers set the outcome and
/// stop it. Bounded: at most `limits.maxClients` connections, each closed
/// after one answer or `limits.helloTimeout` (one timer, at the earliest).
/// Idle, it makes no wake-up.
public enum AccountWait {
    public enum Outcome: Equatable, Sendable {
        /// The account is there: start the engine.
        case ready
        /// `cancelFD` turned readable (SIGINT, SIGTERM).
        case cancelled
    }

    /// What an app's first request is answered while the agent waits.
    public static var notPairedMessage: String {
        "this device is not paired yet: the agent waits for an account (account: none); "
            + "pair it with `handoff pair` (or `handoff account create` for a first device)"
    }

    /// What the person is shown while it waits.
    public struct Surface {
        /// The "not set up" notification, and the pairing's comparison.
        public var notify: Bool
        /// The tray in its "not set up" state.
        public var tray: Bool
        /// The session bus (nil: the one the environment names).
        public var busAddress: String?
        /// How the tray's "Pair this device…" joins another device's
        /// account; nil: it only says to run `handoff pair`.
        public var join: Join?

        public init(notify: Bool, tray: Bool, busAddress: String? = nil, join: Join? = nil) {
            self.notify = notify
            self.tray = tray
            self.busAddress = busAddress
            self.join = join
        }
    }

    /// What a pairing from the tray needs (`PairingJoiner.run`'s).
    public struct Join {
        public var config: PairingConfiguration
        public var deviceName: String
        public var store: AccountStore

        public init(config: PairingConfiguration, deviceName: String, store: AccountStore) {
            self.config = config
            self.deviceName = deviceName
            self.store = store
        }
    }

    /// Waits. `listener` stays open (the caller's); `isReady` runs at the
    /// start, after each change in `directory` and when a pairing from the
    /// tray ends (the engine starts only once that pairing is over).
    public static func run(listener: Int32, directory: String, cancelFD: Int32, surface: Surface,
                           limits: AgentLimits = AgentLimits(), isReady: @escaping () -> Bool,
                           log: @escaping AgentLogSink) throws(HandoffError) -> Outcome {
        let loop: Reactor
        do {
            loop = try Reactor()
        } catch {
            throw HandoffError(.io, "cannot create the agent's event loop: \(error)")
        }
        let watch = try DirectoryWatch(directory)
        defer { watch.close() }
        // Checked after the watch is in place: an account made in between is seen.
        if isReady() { return .ready }
        let wait = Waiting(loop: loop, listener: listener, watch: watch, limits: limits, isReady: isReady, log: log)
        return wait.run(cancelFD: cancelFD, surface: surface, directory: directory)
    }

    /// The first request gets ERROR 4 and the connection closes once it
    /// is written; anything unreadable closes it at once.
    fileprivate static func answer(_ connection: AgentConnection) {
        switch connection.receive() {
        case .wouldBlock:
            connection.flush()
        case .message(let bytes, let descriptors):
            descriptors.forEach { close($0) }
            guard let frame = try? AgentFrame(decoding: bytes, from: .app), frame.requestID != 0,
                  let reply = try? AgentFrame(.error(HandoffError(.notFound, notPairedMessage)),
                                              requestID: frame.requestID).encoded() else {
                return connection.close(.malformed("not a request"))
            }
            connection.enqueue(reply)
            connection.closeWhenFlushed()
        default:
            connection.close(.peer)
        }
    }
}

/// One wait's state on its loop: the connections answered, the outcome
/// once a handler set it. Loop thread (the caller's).
private final class Waiting: @unchecked Sendable {
    // @unchecked: the caller's thread only (the reactor's loop thread).
    private let loop: Reactor
    private let listener: Int32
    private let watch: DirectoryWatch
    private let limits: AgentLimits
    private let isReady: () -> Bool
    private let log: AgentLogSink
    private let sources: LoopSources
    private var connections: [UInt64: (connection: AgentConnection, deadline: UInt64)] = [:]
    private var nextToken: UInt64 = 0
    private var helloTimer: Reactor.Timer?
    private var helloArmed: UInt64?
    /// The account a pairing from the tray stored counts once that
    /// pairing has ended (its last notification said).
    private var accountSeen = false
    private var outcome: AccountWait.Outcome?

    init(loop: Reactor, listener: Int32, watch: DirectoryWatch, limits: AgentLimits, isReady: @escaping () -> Bool,
         log: @escaping AgentLogSink) {
        self.loop = loop
        self.listener = listener
        self.watch = watch
        self.limits = limits
        self.isReady = isReady
        self.log = log
        sources = LoopSources(reactor: loop)
    }

    func run(cancelFD: Int32, surface: AccountWait.Surface, directory: String) -> AccountWait.Outcome {
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, (flags < 0 ? 0 : flags) | O_NONBLOCK)
        var watches = [loop.watch(listener, .readable) { [unowned self] _ in self.acceptAll() },
                       loop.watch(watch.fd, .readable) { [unowned self] _ in
                           if self.watch.drain() { self.accountSeen = true }
                       }]
        if cancelFD >= 0 {
            watches.append(loop.watch(cancelFD, .readable) { [unowned self] _ in self.finish(.cancelled) })
        }
        let me = WeakBox(self)
        helloTimer = loop.timer { me.value?.expireHellos() }
        log(AgentLogEvent("waiting", "no account yet: waiting for this device to be paired (`handoff pair`); "
                            + "apps are told it is not paired yet", ["directory": .string(directory)]))
        let person = WaitingSurface(surface, loop: loop, sources: sources, log: log)
        person.onJoinEnded = { [unowned self] in self.accountSeen = true }
        loop.beforeEachWait { [unowned self, unowned person] in
            if self.accountSeen, !person.isJoining {
                self.accountSeen = false
                if self.isReady() {
                    self.log(AgentLogEvent("account", "the account is there: starting"))
                    self.finish(.ready)
                }
            }
            self.sources.beforeWait()
            self.armHelloTimer()
        }
        loop.run()
        // A pairing under way ends first (its last job is then queued,
        // and dropped with the rest); then the notifications and the
        // tray say their last words.
        person.stop()
        _ = loop.close()
        sources.loopWillStop()
        sources.removeAll()
        for entry in connections.values { entry.connection.close(.stopping) }
        for watch in watches { loop.unwatch(watch) }
        if let helloTimer { loop.release(helloTimer) }
        return outcome ?? .cancelled
    }

    /// The first outcome stands; the loop returns after this turn (woken:
    /// from a `beforeEachWait` hook the turn's wait is still ahead).
    private func finish(_ outcome: AccountWait.Outcome) {
        if self.outcome == nil { self.outcome = outcome }
        loop.stop()
        loop.wake()
    }

    private func acceptAll() {
        for _ in 0..<limits.maxClients {
            guard let fd = LocalSocket.accept(listener) else { break }
            guard connections.count < limits.maxClients, let peer = LocalSocket.credentials(of: fd),
                  peer.uid == getuid() else {
                close(fd)
                continue
            }
            nextToken += 1
            let token = nextToken
            let connection = AgentConnection(fd: fd, peer: peer, token: token, loop: loop, maxQueued: 4)
            connection.watch { [unowned connection] in AccountWait.answer(connection) }
            connection.onClose = { [unowned self] _ in self.connections[token] = nil }
            connections[token] = (connection, Monotonic.after(seconds: limits.helloTimeout))
        }
    }

    private func armHelloTimer() {
        let earliest = connections.values.map(\.deadline).min()
        guard earliest != helloArmed, let helloTimer else { return }
        helloArmed = earliest
        loop.arm(helloTimer, at: earliest)
    }

    private func expireHellos() {
        helloArmed = nil   // fired: disarmed
        let now = Monotonic.now()
        for entry in Array(connections.values) where entry.deadline <= now { entry.connection.close(.helloTimeout) }
    }
}

/// inotify on the account directory (created 0700 with its missing
/// parents if absent): any entry created, moved in or written there, or
/// the directory itself going (then it is made and watched again).
private final class DirectoryWatch {
    let fd: Int32
    private let directory: String
    private var watch: Int32 = -1
    private static let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)

    init(_ directory: String) throws(HandoffError) {
        self.directory = directory
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw HandoffError(.io, "cannot watch \(directory): \(String(cString: strerror(errno)))") }
        do {
            try rewatch()
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private func rewatch() throws(HandoffError) {
        if watch >= 0 { _ = inotify_rm_watch(fd, watch) }
        try AccountStore(directory: directory).ensureDirectory()
        watch = inotify_add_watch(fd, directory, Self.mask)
        guard watch >= 0 else { throw HandoffError(.io, "cannot watch \(directory): \(String(cString: strerror(errno)))") }
    }

    /// Reads what is queued; true when something changed (worth a look).
    /// Only the current watch's events count: `rewatch` removing the old
    /// watch queues an IN_IGNORED for it, which must not move it again.
    func drain() -> Bool {
        let events = InotifyEvents.drain(fd).filter { $0.watch == watch }
        if events.contains(where: { $0.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) }) { try? rewatch() }
        return !events.isEmpty
    }

    func close() {
        Glibc.close(fd)
    }
}
