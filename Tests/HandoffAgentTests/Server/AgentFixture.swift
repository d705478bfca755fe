// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import HandoffTestSupport

let agentTestAccount = try! AccountKey(bytes: Array(repeating: 9, count: 32))

/// A real agent for a test: its own socket in a temporary folder, an
/// engine on loopback (beacons on a free port, unicast to `peers`, the
/// channel on 127.0.0.1), and its log kept. Stopped when let go.
final class AgentFixture {
    let tree = TemporaryTree("handoff-agent-server")
    let socketPath: String
    let agent: Agent
    let log = LogRecorder()

    init(peers: [UInt16] = [], limits: AgentLimits = AgentLimits(), desktop: AgentDesktop? = nil,
         fetchTimeout: Double = 5, listener: Agent.Listener? = nil, notifications: Agent.Notifications = .off,
         documentEnvironment: [String: String]? = nil) throws {
        socketPath = tree.path("run/agent.sock")
        var config = ContinuityConfiguration(
            account: agentTestAccount, device: try DeviceIdentity.generate(name: "agent device"),
            beacons: BeaconTransportConfig(port: 0, multicast: false, peers: peers.map { UDPAddress(host: "127.0.0.1", port: $0)! }))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.fetchTimeout = fetchTimeout
        config.documentEnvironment = documentEnvironment
        let log = self.log
        agent = try Agent(configuration: config, listener: listener ?? .path(socketPath), agentVersion: "test",
                          limits: limits, desktop: desktop, notifications: notifications, log: { log.add($0) })
    }

    deinit { agent.stop() }

    var counters: AgentCounters { agent.server.counters }

    func connect() throws -> AgentTestClient { try AgentTestClient(socketPath) }

    /// A client that said HELLO.
    func app(_ manifest: Manifest, observer: Bool = false) throws -> AgentTestClient {
        let client = try connect()
        guard try client.hello(manifest, observer: observer) != nil else {
            throw HandoffError(.handoffFailed, "no WELCOME for \(manifest.bundleIdentifier)")
        }
        return client
    }
}

/// The agent's log events, waited on by tests.
final class LogRecorder: @unchecked Sendable {
    private let events = Awaitable<[AgentLogEvent]>([])

    func add(_ event: AgentLogEvent) { events.update { $0.append(event) } }

    var all: [AgentLogEvent] { events.update { $0 } }

    /// Waits until `count` events satisfy `matches`.
    func wait(for count: Int = 1, within seconds: Double = 30, _ matches: @escaping (AgentLogEvent) -> Bool) -> Bool {
        events.wait(until: { $0.filter(matches).count >= count }, seconds: seconds) { _, ok in ok }
    }

    /// Waits for `count` "closed" events with this reason.
    func waitClosed(_ reason: String, count: Int = 1) -> Bool {
        wait(for: count) { $0.name == "closed" && $0.field("reason") == .string(reason) }
    }
}

// MARK: The other device

/// Another device of the account on loopback: a real engine and a real
/// application on it, dispatched by `pump`.
final class RemoteDevice {
    let engine: ContinuityEngine
    let app: Application
    let delegate = RemoteDelegate()

    init(_ manifest: Manifest, peers: [UInt16] = [], fetchTimeout: Double = 5, name: String = "other device",
         documentEnvironment: [String: String]? = nil) throws {
        engine = try loopbackEngine(account: agentTestAccount, peers: peers, fetchTimeout: fetchTimeout, name: name,
                                    documentEnvironment: documentEnvironment)
        app = try Application(manifest: manifest, delegate: delegate, continuity: engine)
    }

    deinit {
        app.stopContinuity()
        engine.detach()
    }

    var beaconPort: UInt16 { engine.beaconPort }

    /// Dispatches the app until `done` holds (at most `seconds`).
    func pump(seconds: Double = 30, until done: () -> Bool) throws -> Bool {
        try HandoffTestSupport.pump([app], seconds: seconds, until: done)
    }
}

/// Records an application's callbacks as short strings (any thread).
final class RemoteDelegate: ApplicationDelegate, @unchecked Sendable {
    private let lock = Locked<(events: [String], restored: UserActivity?, available: [RemoteActivity])>(([], nil, []))

    var events: [String] { lock.withLock { $0.events } }
    var restored: UserActivity? { lock.withLock { $0.restored } }
    var available: [RemoteActivity] { lock.withLock { $0.available } }
    private func add(_ s: String) { lock.withLock { $0.events.append(s) } }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        add("willContinue")
        return true
    }
    func application(_ application: Application, continue userActivity: UserActivity, restorationHandler: RestorationHandler) -> Bool {
        lock.withLock { $0.restored = userActivity }
        add("continue")
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        add("didFail:\(error.code.rawValue)")
    }
    func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) {
        lock.withLock { $0.available.append(remote) }
        add("available")
    }
}

// MARK: Bytes on sockets

/// Writes all of `bytes` to `fd` (a stream socket), within 30 s.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var sent = 0
    for _ in 0..<3000 where sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n > 0 { sent += n } else if n < 0 && errno != EAGAIN && errno != EINTR { return false }
        if sent < bytes.count {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 10)
        }
    }
    return sent == bytes.count
}

/// Reads from `fd` until `count` bytes came, EOF, an error, or 30 s.
func readBytes(_ fd: Int32, count: Int) -> [UInt8] {
    var got: [UInt8] = []
    for _ in 0..<300 where got.count < count {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 100) > 0 else { continue }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, min(buffer.count, count - got.count))
        guard n > 0 else { break }
        got += buffer[0..<n]
    }
    return got
}
