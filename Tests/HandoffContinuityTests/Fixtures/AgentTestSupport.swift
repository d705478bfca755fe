// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport

/// A stand-in for the handoff agent: a thread listening on a socket in a
/// fresh 0700 directory, speaking the local protocol with `AgentFrame`. It
/// answers HELLO with WELCOME (unless told not to), records everything the
/// app sends, and sends what a test tells it to.
final class FakeAgent: @unchecked Sendable {
    // @unchecked: mutable state is in `state`; descriptors are closed only
    // on the agent's thread (or after it ended).
    struct Received {
        let connection: Int
        let frame: AgentFrame
        let descriptors: [Int32]
    }

    private struct State {
        var connections: [Int32] = []
        var received: [Received] = []
        /// Datagrams that did not decode as the app's messages.
        var undecodable = 0
        var commands: [@Sendable () -> Void] = []
        var stopped = false
        var finished = false
    }

    let path: String
    let directory: String
    var accountID: String
    let welcomes: Bool
    /// The protocol revision WELCOME agrees on.
    let revision: Int
    private let listener: Int32
    private let pipe: (read: Int32, write: Int32)
    private let state = Awaitable(State())

    static let counter = Locked(0)

    /// An agent in a new directory, or at `path` (a restarted agent).
    init(path: String? = nil, accountID: String = testAccount.derived.accountID, welcomes: Bool = true,
         revision: Int = ProtocolRevision.current) throws {
        if let path {
            self.path = path
            directory = AgentSocketPath.parent(of: path)
        } else {
            let n = Self.counter.withLock { c in c += 1; return c }
            directory = "/tmp/handoff-agent-test-\(getpid())-\(n)"
            _ = rmdirTree(directory)
            guard mkdir(directory, 0o700) == 0 else { throw HandoffError(.io, "mkdir \(directory)") }
            self.path = directory + "/agent.sock"
        }
        self.accountID = accountID
        self.welcomes = welcomes
        self.revision = revision
        listener = try LocalSocket.listen(at: self.path)
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw HandoffError(.io, "pipe") }
        pipe = (fds[0], fds[1])
        _ = fcntl(pipe.read, F_SETFL, O_NONBLOCK)
        _ = startDetachedThread { [self] in loop() }
    }

    /// Stops the thread and closes every connection and the listener.
    /// `removeDirectory`: false keeps the directory, for a restarted agent.
    func stop(removeDirectory: Bool = true) {
        let already = state.update { s in defer { s.stopped = true }; return s.stopped }
        guard !already else { return }
        poke()
        state.wait(until: { $0.finished }, seconds: 30) { _, _ in }
        close(listener)
        close(pipe.read)
        close(pipe.write)
        state.update { s in
            s.received.flatMap(\.descriptors).forEach { _ = close($0) }
            s.received.removeAll()
        }
        if removeDirectory { _ = rmdirTree(directory) }
    }

    deinit { stop() }

    // MARK: What the app sent

    var received: [Received] { state.update { $0.received } }
    var connectionCount: Int { state.update { $0.connections.count } }
    var undecodable: Int { state.update { $0.undecodable } }

    func all(_ kind: AgentMessage.Kind) -> [Received] { received.filter { $0.frame.message.kind == kind } }

    /// Waits (at most `seconds`) until `count` messages of `kind` arrived;
    /// returns them all (fewer when time ran out).
    @discardableResult
    func wait(for kind: AgentMessage.Kind, count: Int = 1, seconds: Double = 20) -> [Received] {
        state.wait(until: { s in s.received.filter { $0.frame.message.kind == kind }.count >= count }, seconds: seconds) { s, _ in
            s.received.filter { $0.frame.message.kind == kind }
        }
    }

    /// Waits until `count` connections were accepted.
    @discardableResult
    func waitForConnections(_ count: Int, seconds: Double = 20) -> Bool {
        state.wait(until: { $0.connections.count >= count }, seconds: seconds) { _, ok in ok }
    }

    /// Waits until the app closed connection `index` (the agent read EOF).
    @discardableResult
    func waitForClose(of index: Int, seconds: Double = 20) -> Bool {
        state.wait(until: { $0.connections.count > index && $0.connections[index] < 0 }, seconds: seconds) { _, ok in ok }
    }

    // MARK: Sending

    /// Sends `frame` (with `descriptor`) on connection `index` (default:
    /// the latest).
    func send(_ frame: AgentFrame, passing descriptor: Int32? = nil, on index: Int? = nil) throws {
        try sendRaw(try frame.encoded(), passing: descriptor, on: index)
    }

    func sendRaw(_ bytes: [UInt8], passing descriptor: Int32? = nil, on index: Int? = nil) throws {
        let fd = state.update { s in
            let i = index ?? (s.connections.count - 1)
            return i >= 0 && i < s.connections.count ? s.connections[i] : -1
        }
        guard fd >= 0 else { throw HandoffError(.connectionUnavailable, "no such connection") }
        try LocalSocket.send(fd, bytes, passing: descriptor, timeout: 10)
    }

    /// Closes every connection (an agent that went away, listener kept).
    func dropConnections() {
        run { [self] in
            state.update { s in
                for i in s.connections.indices where s.connections[i] >= 0 {
                    close(s.connections[i])
                    s.connections[i] = -1
                }
            }
        }
    }

    /// Runs `command` on the agent's thread and waits for it.
    private func run(_ command: @escaping @Sendable () -> Void) {
        let done = Awaitable(false)
        state.update { $0.commands.append { command(); done.update { $0 = true } } }
        poke()
        done.wait(until: { $0 }, seconds: 30) { _, _ in }
    }

    private func poke() {
        var one: UInt8 = 1
        _ = write(pipe.write, &one, 1)
    }

    // MARK: The agent's thread

    private func loop() {
        while true {
            let (stopped, connections, commands) = state.update { s in
                defer { s.commands.removeAll() }
                return (s.stopped, s.connections, s.commands)
            }
            commands.forEach { $0() }
            if stopped {
                state.update { s in
                    s.connections.filter { $0 >= 0 }.forEach { _ = close($0) }
                    s.connections = s.connections.map { _ in -1 }
                    s.finished = true
                }
                return
            }
            var fds = [pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            fds += connections.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 5000)
            if fds[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                while read(pipe.read, &bytes, bytes.count) > 0 {}
            }
            if fds[1].revents != 0, let fd = LocalSocket.accept(listener) {
                state.update { $0.connections.append(fd) }
            }
            for (i, fd) in connections.enumerated() where fd >= 0 && fds[i + 2].revents != 0 {
                readAll(fd, index: i)
            }
        }
    }

    private func readAll(_ fd: Int32, index: Int) {
        while true {
            switch LocalSocket.receive(fd) {
            case .message(let bytes, let descriptors):
                guard let frame = try? AgentFrame(decoding: bytes, from: .app) else {
                    state.update { $0.undecodable += 1 }
                    descriptors.forEach { _ = close($0) }
                    continue
                }
                state.update { $0.received.append(Received(connection: index, frame: frame, descriptors: descriptors)) }
                if case .hello = frame.message, welcomes {
                    let welcome = AgentWelcome(agentVersion: "test", deviceID: Array(repeating: 0xAB, count: 16),
                                               deviceName: "Fake agent", role: .full, accountID: accountID,
                                               revision: revision)
                    if let bytes = try? AgentFrame(.welcome(welcome), requestID: frame.requestID).encoded() {
                        _ = try? LocalSocket.send(fd, bytes, timeout: 10)
                    }
                }
            case .wouldBlock:
                return
            case .closed, .truncated, .failed:
                state.update { s in
                    close(s.connections[index])
                    s.connections[index] = -1
                }
                return
            }
        }
    }
}

/// Removes a test directory and what is in it (one level: the socket).
@discardableResult
func rmdirTree(_ directory: String) -> Bool {
    _ = unlink(directory + "/agent.sock")
    return rmdir(directory) == 0
}

/// An endpoint that records what the client reports, and answers the
/// agent's requests as the test says.
final class RecordingEndpoint: ContinuityEndpoint, @unchecked Sendable {
    enum Event: Equatable {
        case available(ActivityID), updated(ActivityID), withdrawn(ActivityID), continued(ActivityID), chosen(ActivityID)
    }

    let manifest: Manifest
    private let state = Awaitable<[Event]>([])
    /// How PROVIDE is answered: nil leaves it unanswered (kept in `pendingProvide`).
    let provideAnswer: Locked<Result<[UInt8], HandoffError>?> = Locked(.success([1, 2, 3]))
    let acceptAnswer: Locked<Result<Void, HandoffError>?> = Locked(.success(()))
    let provideReplies = Locked<[Bool]>([])
    let acceptReplies = Locked<[Bool]>([])
    let pendingProvide = Locked<[@Sendable (Result<[UInt8], HandoffError>) -> Bool]>([])
    let streams = Locked<[ContinuationStream]>([])

    init(manifest: Manifest) { self.manifest = manifest }

    var events: [Event] { state.update { $0 } }

    @discardableResult
    func wait(count: Int, seconds: Double = 20) -> [Event] {
        state.wait(until: { $0.count >= count }, seconds: seconds) { e, _ in e }
    }

    func remoteActivityChanged(_ change: RemoteActivityChange) {
        state.update { e in
            switch change {
            case .available(let r): e.append(.available(r.activityID))
            case .updated(let r): e.append(.updated(r.activityID))
            case .withdrawn(let r): e.append(.withdrawn(r.activityID))
            }
        }
    }

    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        guard let answer = provideAnswer.withLock({ $0 }) else {
            pendingProvide.withLock { $0.append(reply) }
            return
        }
        let taken = reply(answer)
        provideReplies.withLock { $0.append(taken) }
    }

    func activityWasContinued(_ activityID: ActivityID) { state.update { $0.append(.continued(activityID)) } }

    func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                      reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool) {
        guard let answer = acceptAnswer.withLock({ $0 }) else { return }
        // Kept before the reply goes out: the test reads it once the agent has the OK.
        if case .success = answer { streams.withLock { $0.append(stream) } }
        let taken = reply(answer)
        if !taken { streams.withLock { $0.removeAll { $0 === stream } } }
        acceptReplies.withLock { $0.append(taken) }
    }

    func continueChosen(_ remote: RemoteActivity) { state.update { $0.append(.chosen(remote.activityID)) } }
}

/// A client of `agent`, attached to a recording endpoint.
func agentClient(_ agent: FakeAgent, fetchTimeout: Double = 5, requestMargin: Double = 3, maxBackoff: Double = 5,
                 accountID: String? = testAccount.derived.accountID) throws -> (AgentClient, RecordingEndpoint) {
    var options = AgentClient.Options(socketPath: agent.path, accountID: accountID)
    options.fetchTimeout = fetchTimeout
    options.backoff.max = maxBackoff
    options.requestMargin = requestMargin
    let manifest = try manifest(types: ["com.example.app.edit", "com.example.app.view"])
    let client = try AgentClient(options: options, manifest: manifest)
    let endpoint = RecordingEndpoint(manifest: manifest)
    client.attach(endpoint)
    return (client, endpoint)
}

/// A remote activity as an agent reports it.
func agentRemote(_ n: UInt8 = 1, streams: Bool = true) -> RemoteActivity {
    RemoteActivity(deviceID: "00112233445566778899aabbccddeeff", deviceName: "Laptop",
                   activityID: ActivityID(bytes: [UInt8](repeating: n, count: 16)), activityType: "com.example.app.edit",
                   title: "Notes \(n)", supportsContinuationStreams: streams,
                   firstSeen: Timestamp(timeIntervalSince1970: 1_700_000_000 + Double(n)),
                   teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app")
}

/// Waits for a one-shot result delivered on another thread.
final class Outcome<Value: Sendable>: @unchecked Sendable {
    private let slot = Awaitable<Value?>(nil)
    func set(_ v: Value) { slot.update { $0 = v } }
    func wait(seconds: Double = 30) -> Value? { slot.wait(until: { $0 != nil }, seconds: seconds) { v, _ in v } }
    var value: Value? { slot.update { $0 } }
}

/// Checks `condition` every few milliseconds until it holds (true) or
/// `seconds` pass (false): for state no event announces.
func waitUntil(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let end = monotonicSeconds() + seconds
    while !condition() {
        guard monotonicSeconds() < end else { return false }
        usleep(5000)
    }
    return true
}
