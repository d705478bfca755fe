// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
@testable import HandoffRuntime
import Testing

/// The agent client's reader thread as one `Reactor` (docs/agent.md §8):
/// what wakes it, counted. App threads arm the request deadlines and queue
/// output without waking it more than the work needs; a socket with room
/// is watched for room only while output waits.
@Suite struct AgentClientLoopTests {
    /// A FETCH's deadline is armed on the loop's timer from the caller's
    /// thread: no eventfd write, no job; the answer arrives on the socket.
    /// Once nothing waits the timer is disarmed: it never fires.
    @Test func aFetchNeitherWakesTheReaderNorLeavesATimerBehind() throws {
        let agent = try FakeAgent()
        defer { agent.stop() }
        var options = AgentClient.Options(socketPath: agent.path, accountID: testAccount.derived.accountID)
        (options.fetchTimeout, options.connectTimeout, options.requestMargin) = (0.1, 0.1, 0.1)  // a 0.3 s deadline
        let manifest = try manifest(types: ["com.example.app.edit"])
        let client = try AgentClient(options: options, manifest: manifest)
        let endpoint = RecordingEndpoint(manifest: manifest)
        client.attach(endpoint)
        defer { client.detach() }
        for round in 1...3 {
            let outcome = Outcome<Result<[UInt8], HandoffError>>()
            client.fetch(agentRemote()) { outcome.set($0) }
            let fetches = agent.wait(for: .fetch, count: round)
            try #require(fetches.count == round)
            try agent.send(AgentFrame(.payload([UInt8(round)]), requestID: fetches[round - 1].frame.requestID))
            #expect((try outcome.wait()?.get()) == [UInt8(round)])
        }
        // Past every deadline: a timer left armed would have fired by now.
        usleep(600_000)  // an observation window, not a synchronisation
        let counts = client.loopCounts
        #expect(counts.wakes == 0 && counts.jobs == 0, "\(counts)")
        #expect(counts.timerFires == 0, "\(counts)")
        #expect(counts.waits <= 3, "\(counts)")  // one turn per answer at most
    }

    /// Output the socket does not take waits in the outbox; the loop waits
    /// for room then, and only then: once flushed it goes back to waiting
    /// for input alone (a socket with room is always writable, so a loop
    /// still watching for room would turn without end).
    @Test func theSocketIsWatchedForRoomOnlyWhileOutputWaits() throws {
        let agent = try StalledAgent()
        defer { agent.stop() }
        let options = AgentClient.Options(socketPath: agent.path, accountID: testAccount.derived.accountID)
        let manifest = try manifest(types: ["com.example.app.edit"])
        let welcomed = ChannelTest.onThread { agent.welcome() }
        let client = try AgentClient(options: options, manifest: manifest)
        try #require(welcomed.wait(seconds: 20) == true)
        let endpoint = RecordingEndpoint(manifest: manifest)
        client.attach(endpoint)
        defer { client.detach() }
        // INDEX payloads large enough that the agent's unread queue fills.
        let id = ActivityID(bytes: [UInt8](repeating: 5, count: 16))
        var sent = 0
        while client.state.withLock({ $0.outbox.isEmpty }), sent < 200 {
            client.index(id, payload: [UInt8](repeating: UInt8(sent % 256), count: 48 * 1024))
            sent += 1
        }
        try #require(!client.state.withLock { $0.outbox.isEmpty }, "the socket took \(sent) messages")
        for _ in 0..<3 { client.index(id, payload: [1]) }  // queued behind: one job posted for all
        // The agent reads everything: the outbox flushes as room appears.
        var read = 0
        let drained = waitUntil(seconds: 30) {
            read += agent.readAll()
            return client.state.withLock { $0.outbox.isEmpty } && read == sent + 3
        }
        #expect(drained, "read \(read) of \(sent + 3)")
        let before = client.loopCounts
        usleep(300_000)  // an observation window, not a synchronisation
        let after = client.loopCounts
        #expect(after.waits - before.waits <= 1, "\(before) → \(after)")
        #expect(after.jobs <= 2, "\(after)")  // the outbox filling posts one settle, not one per message
        #expect(client.isConnected)
    }
}

/// An agent that welcomes the app, then reads only when the test says so:
/// what the app sends backs up into its outbox.
final class StalledAgent: @unchecked Sendable {
    let directory: String
    let path: String
    private let listener: Int32
    private let connection = Locked<Int32>(-1)

    init() throws {
        let n = FakeAgent.counter.withLock { c in c += 1; return c }
        directory = "/tmp/handoff-stalled-agent-\(getpid())-\(n)"
        _ = rmdirTree(directory)
        guard mkdir(directory, 0o700) == 0 else { throw HandoffError(.io, "mkdir \(directory)") }
        path = directory + "/agent.sock"
        listener = try LocalSocket.listen(at: path)
    }

    /// Accepts the app's connection and answers its HELLO (within 20 s each).
    func welcome() -> Bool {
        guard Self.waitReadable(listener), let fd = LocalSocket.accept(listener) else { return false }
        connection.withLock { $0 = fd }
        guard Self.waitReadable(fd), case .message(let bytes, _) = LocalSocket.receive(fd),
              let hello = try? AgentFrame(decoding: bytes, from: .app) else { return false }
        let welcome = AgentWelcome(agentVersion: "test", deviceID: Array(repeating: 0xAB, count: 16), deviceName: "Stalled agent",
                                   role: .full, accountID: testAccount.derived.accountID, revision: ProtocolRevision.current)
        guard let answer = try? AgentFrame(.welcome(welcome), requestID: hello.requestID).encoded() else { return false }
        return (try? LocalSocket.send(fd, answer, timeout: 10)) != nil
    }

    /// Reads what waits now; returns how many messages.
    func readAll() -> Int {
        let fd = connection.withLock { $0 }
        var count = 0
        while case .message(_, let descriptors) = LocalSocket.receive(fd) {
            descriptors.forEach { _ = close($0) }
            count += 1
        }
        return count
    }

    func stop() {
        connection.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
        close(listener)
        _ = rmdirTree(directory)
    }

    private static func waitReadable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 20_000) == 1
    }
}
