// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
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
/// account create` in another process), so the caller starts the engine on
/// the same socket without a restart. A notification explains once.
///
/// One thread (the caller's), one epoll set: the listener, the inotify
/// descriptor, `cancelFD` (readable: stop waiting), the session bus, the
/// connections. Bounded: at most `limits.maxClients` connections, each
/// closed after one answer or `limits.helloTimeout`.
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

    private static let listenerToken: EventLoop.Token = 1
    private static let inotifyToken: EventLoop.Token = 2
    private static let cancelToken: EventLoop.Token = 3
    private static let busToken: EventLoop.Token = 4

    /// Waits. `listener` stays open (the caller's); `isReady` runs at the
    /// start and after each change in `directory`. `busAddress`: where the
    /// notification goes (nil: the environment's session bus); `notify`
    /// false shows none.
    public static func run(listener: Int32, directory: String, cancelFD: Int32, notify: Bool, busAddress: String? = nil,
                           limits: AgentLimits = AgentLimits(), isReady: () -> Bool,
                           log: @escaping AgentLogSink) throws(HandoffError) -> Outcome {
        let loop = try EventLoop()
        let watch = try DirectoryWatch(directory)
        defer { watch.close() }
        let flags = fcntl(listener, F_GETFL)
        _ = fcntl(listener, F_SETFL, (flags < 0 ? 0 : flags) | O_NONBLOCK)
        try loop.add(listener, token: listenerToken, events: EPOLLIN.rawValue)
        defer { loop.remove(listener) }
        try loop.add(watch.fd, token: inotifyToken, events: EPOLLIN.rawValue)
        if cancelFD >= 0 { try loop.add(cancelFD, token: cancelToken, events: EPOLLIN.rawValue) }
        defer { if cancelFD >= 0 { loop.remove(cancelFD) } }

        var connections: [EventLoop.Token: (connection: AgentConnection, deadline: Double)] = [:]
        var nextToken: EventLoop.Token = 16
        defer { for entry in connections.values { entry.connection.close(.stopping) } }
        // Checked after the watch is in place: an account made in between is seen.
        if isReady() { return .ready }
        log(AgentLogEvent("waiting", "no account yet: waiting for this device to be paired (`handoff pair`); "
                            + "apps are told it is not paired yet", ["directory": .string(directory)]))
        let notice = notify ? NotPairedNotice(busAddress: busAddress, log: log) : nil
        defer { notice?.close() }
        var busWatched: (fd: Int32, events: UInt32)?

        while true {
            if let notice {
                let wanted = notice.fd >= 0 ? (notice.fd, UInt32(UInt16(bitPattern: notice.pollEvents))) : nil
                if wanted?.0 != busWatched?.fd || wanted?.1 != busWatched?.events {
                    if let old = busWatched { loop.remove(old.fd) }
                    busWatched = nil
                    if let wanted, (try? loop.add(wanted.0, token: busToken, events: wanted.1)) != nil { busWatched = wanted }
                }
            }
            var timeout: Int32 = notice?.timeoutMilliseconds ?? -1
            let now = monotonicSeconds()
            if let first = connections.values.map(\.deadline).min() {
                let ms = Int32(min(Double(Int32.max), max(0, (first - now) * 1000).rounded(.up)))
                timeout = timeout < 0 ? ms : min(timeout, ms)
            }
            for (token, _) in loop.wait(milliseconds: timeout) {
                switch token {
                case cancelToken:
                    return .cancelled
                case inotifyToken:
                    if watch.drain(), isReady() {
                        log(AgentLogEvent("account", "the account is there: starting"))
                        return .ready
                    }
                case listenerToken:
                    for _ in 0..<limits.maxClients {
                        guard let fd = LocalSocket.accept(listener) else { break }
                        guard connections.count < limits.maxClients, let peer = LocalSocket.credentials(of: fd),
                              peer.uid == getuid() else {
                            close(fd)
                            continue
                        }
                        nextToken += 1
                        let connection = AgentConnection(fd: fd, peer: peer, token: nextToken, loop: loop,
                                                         maxQueued: 4)
                        guard (try? loop.add(fd, token: nextToken, events: EPOLLIN.rawValue)) != nil else {
                            close(fd)
                            continue
                        }
                        let token = nextToken
                        connection.onClose = { _ in connections[token] = nil }
                        connections[token] = (connection, monotonicSeconds() + limits.helloTimeout)
                    }
                case busToken:
                    notice?.process()
                case let token:
                    guard let connection = connections[token]?.connection else { continue }
                    answer(connection)
                }
            }
            if let notice, notice.timeoutMilliseconds == 0 { notice.process() }
            let late = monotonicSeconds()
            for entry in connections.values where entry.deadline <= late { entry.connection.close(.helloTimeout) }
        }
    }

    /// The first request gets ERROR 4 and the connection closes once it
    /// is written; anything unreadable closes it at once.
    private static func answer(_ connection: AgentConnection) {
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
    func drain() -> Bool {
        let events = InotifyEvents.drain(fd)
        if events.contains(where: { $0.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) }) { try? rewatch() }
        return !events.isEmpty
    }

    func close() {
        Glibc.close(fd)
    }
}

/// The one notification of the wait ("Handoff is not set up"), on the
/// session bus; without a bus or a server it logs that once and the wait
/// goes on without it.
private final class NotPairedNotice {
    private var bus: SessionBus?
    private var notifier: Notifier<Int>?

    init(busAddress: String?, log: @escaping AgentLogSink) {
        do {
            let bus = try SessionBus(address: busAddress)
            self.bus = bus
            let notifier = try Notifier<Int>(bus: bus) { event in
                if case .unavailable(let error) = event {
                    log(AgentLogEvent("notifications", "no notification server: \(error.message) (the agent works without it)",
                                      ["available": .bool(false)]))
                }
            }
            notifier.show(AgentNotifications.notSetUpContent(), for: 0)
            self.notifier = notifier
        } catch {
            log(AgentLogEvent("notifications", "no notifications: \(error.message) (the agent works without them)",
                              ["available": .bool(false)]))
            bus = nil
        }
    }

    var fd: Int32 { bus?.fd ?? -1 }
    var pollEvents: Int16 { bus?.events ?? 0 }
    var timeoutMilliseconds: Int32 { bus?.timeoutMilliseconds ?? -1 }

    func process() {
        guard let bus, !bus.process() else { return }
        close()
    }

    /// The wait is over: the notice goes (the engine's notifications take
    /// over). The bus stays until CloseNotification is answered (at most
    /// a second): a server may ignore a call whose sender has already left.
    func close() {
        notifier?.close(0)
        notifier = nil
        if let bus {
            let end = monotonicSeconds() + 1
            while bus.pendingCallCount > 0, bus.fd >= 0 {
                let left = Int32(max(0, (end - monotonicSeconds()) * 1000))
                guard left > 0 else { break }
                var entry = pollfd(fd: bus.fd, events: bus.events, revents: 0)
                let busTimeout = bus.timeoutMilliseconds
                _ = poll(&entry, 1, busTimeout >= 0 ? min(left, busTimeout) : left)
                guard bus.process() else { break }
            }
            bus.close()
        }
        bus = nil
    }
}
