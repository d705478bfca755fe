// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing

/// The agent's bounds (docs/agent.md §3 "Bounds"): each misbehaving client
/// is closed (or refused) alone, and a client connected beside it keeps
/// being served.
@Suite(.serialized) struct AgentServerTests {
    static let app = try! Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])
    static let other = try! Manifest(bundleIdentifier: "com.b.app", teamIdentifier: "TEAMB", activityTypes: ["com.b.view"])

    /// Serves `client` a STATUS round trip: it is still up and served.
    func served(_ client: AgentTestClient) throws -> Bool {
        try client.status() != nil
    }

    @Test func garbageClosesOnlyThatConnection() throws {
        let f = try AgentFixture()
        let bystander = try f.app(Self.app)
        let hello = try AgentFrame(.hello(AgentHello(manifest: Self.app, pid: getpid())), requestID: 1).encoded()
        var bad: [(String, [UInt8])] = [
            ("too short", [1, 1, 0]),
            ("wrong version", [9] + hello.dropFirst()),
            ("flags set", [1, 1, 0, 1] + hello.dropFirst(4)),
            ("a body that is no property list", [1, 1, 0, 0, 0, 0, 0, 1] + Array("bplist00garbage!".utf8)),
            ("an event with a request id", [1, 3, 0, 0, 0, 0, 0, 7]),
            ("a type only the agent sends", [1, 2, 0, 0, 0, 0, 0, 1]),
            ("over 64 KiB", [UInt8](repeating: 0, count: 70_000)),
        ]
        bad.append(("random bytes", (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 197 &+ 13) }))
        for (index, (what, bytes)) in bad.enumerated() {
            // Before HELLO and after it: both close.
            for afterHello in [false, true] {
                let client = try f.connect()
                if afterHello { #expect(try client.hello(Self.app) != nil, "\(what)") }
                try client.sendRaw(bytes)
                #expect(client.waitUntilClosed(), "\(what) (after HELLO: \(afterHello))")
                #expect(f.log.wait(for: 2 * index + (afterHello ? 2 : 1)) { $0.name == "closed" && $0.field("reason") == .string("malformed") })
            }
            #expect(try served(bystander), "\(what)")
        }
        #expect(f.counters.closedMalformed == 2 * bad.count)

        // A descriptor on a message that takes none.
        let passer = try f.app(Self.app)
        let status = try AgentFrame(.statusRequest, requestID: 9).encoded()
        try passer.sendRaw(status, passing: passer.fd)
        #expect(passer.waitUntilClosed())
        #expect(f.counters.closedMalformed == 2 * bad.count + 1)
        #expect(try served(bystander))
    }

    @Test func aFirstMessageOtherThanHelloCloses() throws {
        let f = try AgentFixture()
        let bystander = try f.app(Self.app)
        for (message, id): (AgentMessage, UInt32) in [(.statusRequest, 1), (.fetch(ActivityID()), 2), (.advertise(nil), 0)] {
            let client = try f.connect()
            try client.send(message, requestID: id)
            #expect(client.waitUntilClosed())
        }
        // Only revisions this agent does not speak: ERROR, then the end.
        let future = try f.connect()
        guard case .error(let version)? = try future.request(.hello(AgentHello(revisions: (ProtocolRevision.current + 1)...(ProtocolRevision.current + 2), manifest: Self.app, pid: getpid())))?.frame.message else {
            Issue.record("HELLO of revisions above this agent's only was not refused")
            return
        }
        #expect(version.code == .invalidState && future.waitUntilClosed())
        // HELLO twice closes too.
        let twice = try f.app(Self.app)
        _ = try twice.request(.hello(AgentHello(manifest: Self.app, pid: getpid())), within: 1)
        #expect(twice.waitUntilClosed())
        #expect(f.log.waitClosed("no-hello", count: 3) && f.log.waitClosed("malformed"))
        #expect(f.counters.closedNoHello == 3 && f.counters.closedMalformed == 1)
        #expect(try served(bystander))
    }

    @Test func noHelloInTimeCloses() throws {
        var limits = AgentLimits()
        limits.helloTimeout = 3
        let f = try AgentFixture(limits: limits)
        let bystander = try f.app(Self.app)
        let silent = try f.connect()
        #expect(silent.waitUntilClosed())
        #expect(f.log.waitClosed("hello-timeout") && f.counters.closedHelloTimeout == 1)
        #expect(try served(bystander))
    }

    /// Sixteen FETCHes wait for an app of the other device that is not
    /// dispatching; the 17th is answered ERROR 4609 at once; the
    /// connection stays, and is served again once they are answered.
    @Test func aSeventeenthRequestInFlightIsRefused() throws {
        let f = try AgentFixture(fetchTimeout: 60)
        let sender = try RemoteDevice(Self.app, peers: [f.agent.engine.beaconPort], fetchTimeout: 60)
        let activity = try UserActivity(activityType: "com.a.edit")
        try sender.app.becomeCurrent(activity)
        let client = try f.app(Self.app)
        let bystander = try f.app(Self.other)
        #expect(client.waitOffered { $0.keys.contains(activity.activityID) })
        let ids = (0..<17).map { _ in client.takeID() }
        for id in ids { try client.send(.fetch(activity.activityID), requestID: id) }
        let refused = try #require(client.next(within: 30) { $0.requestID == ids[16] })
        guard case .error(let error) = refused.frame.message else {
            Issue.record("the 17th got \(refused.frame.message)")
            return
        }
        #expect(error.code == .connectionUnavailable && f.counters.refusedInFlight == 1)
        #expect(try served(bystander))
        // The other device's app answers: all sixteen get their payload.
        client.whileWaiting = { _ = try? sender.app.dispatch() }
        for id in ids.prefix(16) {
            let reply = try #require(client.next(within: 60) { $0.requestID == id })
            guard case .payload = reply.frame.message else {
                Issue.record("request \(id) got \(reply.frame.message)")
                return
            }
        }
        client.whileWaiting = nil
        #expect(try served(client))
    }

    /// A client that sends requests and never reads what comes back is
    /// closed once 256 messages wait for it; nothing is dropped before: the
    /// replies it can still read are those of its first requests, in order.
    @Test func aClientThatNeverReadsIsClosedAtTheQueueBound() throws {
        let f = try AgentFixture()
        let bystander = try f.app(Self.app)
        let greedy = try f.app(Self.other)
        var sent: UInt32 = 0
        sending: for _ in 0..<100_000 {
            let request = try AgentFrame(.statusRequest, requestID: 1000 + sent).encoded()
            switch Result(catching: { () throws(HandoffError) in try LocalSocket.send(greedy.fd, request) }) {
            case .success(true): sent += 1
            case .success(false):
                var p = pollfd(fd: greedy.fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 100)
                if f.counters.closedQueueFull == 1 { break sending }
            case .failure: break sending  // closed
            }
        }
        #expect(f.log.waitClosed("queue-full") && f.counters.closedQueueFull == 1)
        #expect(Int(sent) > f.agent.server.limits.maxQueuedMessages)
        // What the socket still holds: replies to the first requests, in
        // order (the end may read as a reset first: unread requests were lost).
        var answered: [UInt32] = []
        var ends = 0, idle = 0
        reading: for _ in 0..<100_000 {
            switch LocalSocket.receive(greedy.fd) {
            case .message(let bytes, _):
                guard let frame = try? AgentFrame(decoding: bytes, from: .agent), case .status = frame.message else {
                    Issue.record("not a STATUS reply")
                    break reading
                }
                answered.append(frame.requestID)
                ends = 0
            case .closed, .failed, .truncated:
                ends += 1
                if ends == 2 { break reading }
            case .wouldBlock:
                idle += 1
                if idle > 50 { break reading }
                var p = pollfd(fd: greedy.fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, 100)
            }
        }
        #expect(ends >= 1 && !answered.isEmpty && answered.count < Int(sent))
        #expect(answered == Array(1000..<(1000 + UInt32(answered.count))))
        #expect(try served(bystander))
    }

    @Test func anUnknownTypeIsAnsweredWithError() throws {
        let f = try AgentFixture()
        let client = try f.app(Self.app)
        try client.sendRaw([1, 99, 0, 0, 0, 0, 0, 42])
        let reply = try #require(client.next { $0.requestID == 42 })
        guard case .error(let error) = reply.frame.message else {
            Issue.record("got \(reply.frame.message)")
            return
        }
        #expect(error.message.contains("99"))
        // As an event (id 0): nothing to answer; still served.
        try client.sendRaw([1, 200, 0, 0, 0, 0, 0, 0])
        #expect(try served(client))
        #expect(f.counters.unknownTypes == 2 && f.counters.closedMalformed == 0)
    }

    /// At most 8 connections from one process, 64 in all (here: 3).
    @Test func connectionsAreBoundedPerProcessAndInAll() throws {
        let f = try AgentFixture()
        let eight = try (0..<8).map { _ in try f.app(Self.app) }
        let ninth = try f.connect()
        #expect(ninth.waitUntilClosed())
        #expect(f.counters.refusedFull == 1 && f.log.wait { $0.name == "refused" && $0.field("reason") == .string("full") })
        for client in eight { #expect(try served(client)) }

        var limits = AgentLimits()
        limits.maxClients = 3
        let g = try AgentFixture(limits: limits)
        var three = try (0..<3).map { _ in try g.app(Self.app) }
        let fourth = try g.connect()
        #expect(fourth.waitUntilClosed() && g.counters.refusedFull == 1)
        // One leaves: the next one is taken.
        three.removeFirst()
        #expect(g.log.waitClosed("peer"))
        let next = try g.app(Self.app)
        #expect(try served(next) && g.counters.refusedFull == 1)
        for client in three { #expect(try served(client)) }
    }

    /// A client of another user (uid 65534, from a child process) is
    /// closed at accept, whatever it sends; the agent counts and logs it.
    @Test func aClientOfAnotherUserIsRefused() throws {
        guard getuid() == 0 else { return }  // only root can be someone else
        // A socket the other user may reach (the agent's own directory is 0700).
        let tree = TemporaryTree("handoff-agent-uid")
        chmod(tree.root, 0o755)
        let path = tree.path("agent.sock")
        let listener = try LocalSocket.listen(at: path)
        chmod(path, 0o777)
        let f = try AgentFixture(listener: .activated(fd: listener, path: path))
        let bystander = try AgentTestClient(path)
        #expect(try bystander.hello(Self.app) != nil)
        let hello = try AgentFrame(.hello(AgentHello(manifest: Self.app, pid: getpid())), requestID: 1).encoded()
        let script = """
            import os, socket, sys
            os.setgroups([]); os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(sys.argv[1])
            try:
                s.send(bytes.fromhex(sys.argv[2]))
            except OSError:
                pass
            s.settimeout(30)
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                data = b""
            print("closed" if data == b"" else "answered")
            """
        let output = try runPython(script, [path, hello.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()])
        #expect(output == "closed\n")
        #expect(f.counters.refusedUser == 1 && f.counters.hellos == 1)
        #expect(f.log.wait { $0.name == "refused" && $0.field("uid") == .int(65534) })
        #expect(try served(bystander))
        // An activated socket's file is not the agent's to remove.
        f.agent.stop()
        #expect(access(path, F_OK) == 0)
    }

    /// Stopping: connections closed, the socket file it made removed, and
    /// a new agent can listen there.
    @Test func stopClosesConnectionsAndRemovesTheSocket() throws {
        let f = try AgentFixture()
        let client = try f.app(Self.app)
        f.agent.stop()
        #expect(client.waitUntilClosed())
        #expect(access(f.socketPath, F_OK) != 0)
        f.agent.stop()  // idempotent
    }
}

/// Runs `python3 -c script args...` and returns its stdout.
func runPython(_ script: String, _ arguments: [String]) throws -> String {
    var fds: [Int32] = [-1, -1]
    guard clinux_pipe2(&fds, O_CLOEXEC) == 0 else { throw HandoffError(.io, "pipe") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    let argv = ["python3", "-c", script] + arguments
    var cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, "python3", &actions, nil, &cArgs, environ)
    close(fds[1])
    defer { close(fds[0]) }
    guard spawned == 0 else { throw HandoffError(.io, "cannot start python3: \(String(cString: strerror(spawned)))") }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return String(decoding: out, as: UTF8.self)
}
