// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The agent's wait for an account (docs/agent.md §10), without a bus:
/// an account that appears ends it, also after the watched folder was
/// removed and made again; the cancel descriptor ends it; the apps that
/// connect meanwhile hear "not paired yet".
@Suite struct AccountWaitTests {
    /// Runs the wait on a thread; its outcome when it ends.
    final class Waiting: @unchecked Sendable {
        let outcome = Awaitable<AccountWait.Outcome?>(nil)

        init(listener: Int32, directory: String, cancelFD: Int32, limits: AgentLimits = AgentLimits()) {
            let outcome = self.outcome
            _ = startDetachedThread {
                let result = try? AccountWait.run(listener: listener, directory: directory, cancelFD: cancelFD,
                                                  surface: AccountWait.Surface(notify: false, tray: false), limits: limits,
                                                  isReady: { access(directory + "/account", F_OK) == 0 }, log: { _ in })
                outcome.update { $0 = result ?? .cancelled }
            }
        }

        func result(within seconds: Double = 20) -> AccountWait.Outcome? {
            outcome.wait(until: { $0 != nil }, seconds: seconds) { value, _ in value }
        }
    }

    static func eventually(_ check: () -> Bool) -> Bool {
        for _ in 0..<400 where !check() { usleep(10_000) }
        return check()
    }

    @Test func anAccountThatAppearsEndsTheWaitEvenAfterTheFolderWasRemoved() throws {
        let tree = TemporaryTree()
        let directory = tree.path("config/handoff")
        let listener = try LocalSocket.listen(at: tree.path("agent.sock"))
        defer { close(listener) }
        let waiting = Waiting(listener: listener, directory: directory, cancelFD: -1)
        // The folder is made (0700) to be watched.
        #expect(Self.eventually { access(directory, F_OK) == 0 })
        var info = stat()
        #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        // An app hears "not paired yet" (ERROR 4 to its HELLO).
        let client = try LocalSocket.connect(to: tree.path("agent.sock"), timeout: 5)
        defer { close(client) }
        let hello = try AgentFrame(.statusRequest, requestID: 9).encoded()
        #expect(send(client, hello, hello.count, 0) == hello.count)
        var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 10_000) == 1)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(client, &buffer, buffer.count, 0)
        let reply = try AgentFrame(decoding: Array(buffer.prefix(max(0, n))), from: .agent)
        guard case .error(let error) = reply.message else { Issue.record("\(reply)"); return }
        #expect(error.code == .notFound && reply.requestID == 9 && error.message.contains("not paired yet"))

        // Removed while watched: made again, and still watched.
        rmdir(directory)
        #expect(Self.eventually { access(directory, F_OK) == 0 })
        tree.write("config/handoff/account", "key\n", mode: 0o600)
        #expect(waiting.result() == .ready)
    }

    @Test func theCancelDescriptorEndsTheWait() throws {
        let tree = TemporaryTree()
        let listener = try LocalSocket.listen(at: tree.path("agent.sock"))
        defer { close(listener) }
        var pipe: [Int32] = [-1, -1]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { pipe.forEach { close($0) } }
        let waiting = Waiting(listener: listener, directory: tree.path("handoff"), cancelFD: pipe[0])
        #expect(Self.eventually { tree.exists("handoff") })
        var byte: UInt8 = 15
        #expect(write(pipe[1], &byte, 1) == 1)
        #expect(waiting.result() == .cancelled)
    }

    /// A connection that says nothing is closed at the HELLO deadline (the
    /// wait's one timer), each in turn, and the wait goes on.
    @Test func silentConnectionsAreClosedAtTheHelloDeadline() throws {
        let tree = TemporaryTree()
        let listener = try LocalSocket.listen(at: tree.path("agent.sock"))
        defer { close(listener) }
        var pipe: [Int32] = [-1, -1]
        #expect(Glibc.pipe(&pipe) == 0)
        defer { pipe.forEach { close($0) } }
        var limits = AgentLimits()
        limits.helloTimeout = 0.3
        let waiting = Waiting(listener: listener, directory: tree.path("handoff"), cancelFD: pipe[0], limits: limits)
        for _ in 0..<3 {
            let silent = try LocalSocket.connect(to: tree.path("agent.sock"), timeout: 5)
            defer { close(silent) }
            var entry = pollfd(fd: silent, events: Int16(POLLIN), revents: 0)
            #expect(poll(&entry, 1, 20_000) == 1, "closed by the deadline")
            var byte: UInt8 = 0
            #expect(recv(silent, &byte, 1, 0) == 0, "the end, no answer")
        }
        var byte: UInt8 = 15
        #expect(write(pipe[1], &byte, 1) == 1)
        #expect(waiting.result() == .cancelled)
    }
}
