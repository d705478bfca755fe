// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The watch AUTO mode uses to notice the agent's socket appear
/// (docs/agent.md §3 "Choosing the mode"): its directory made later, the
/// socket made and removed, the directory removed and made again.
@Suite struct AgentSocketWatchTests {
    /// Whether the watch's descriptor turns readable within `seconds`.
    static func readable(_ watch: AgentSocketWatch, seconds: Int32 = 10) -> Bool {
        var fds = [pollfd(fd: watch.fd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, seconds * 1000) == 1
    }

    static func freshBase() -> String {
        let n = FakeAgent.counter.withLock { c in c += 1; return c }
        let base = "/tmp/handoff-watch-test-\(getpid())-\(n)"
        _ = rmdirTree(base)
        #expect(mkdir(base, 0o700) == 0)
        return base
    }

    @Test func noticesTheDirectoryMadeLaterThenTheSocketThenItsRemoval() throws {
        let base = Self.freshBase()
        defer { _ = rmdirTree(base) }
        let path = base + "/handoff/agent.sock"
        let watch = try AgentSocketWatch(socketPath: path)
        #expect(!watch.socketExists)
        #expect(!Self.readable(watch, seconds: 0))  // nothing happened: nothing to read

        #expect(mkdir(base + "/handoff", 0o700) == 0)
        #expect(Self.readable(watch))
        #expect(watch.drain())
        #expect(!watch.socketExists)

        let listener = try LocalSocket.listen(at: path)
        defer { close(listener) }
        #expect(Self.readable(watch))
        #expect(watch.drain())
        #expect(watch.socketExists)

        #expect(unlink(path) == 0)
        #expect(!watch.socketExists)
        #expect(!watch.drain() || !watch.socketExists)
    }

    @Test func followsTheDirectoryRemovedAndMadeAgain() throws {
        let base = Self.freshBase()
        defer { _ = rmdirTree(base) }
        let directory = base + "/handoff"
        #expect(mkdir(directory, 0o700) == 0)
        let path = directory + "/agent.sock"
        let watch = try AgentSocketWatch(socketPath: path)
        #expect(rmdir(directory) == 0)
        #expect(Self.readable(watch))
        watch.drain()  // now on the parent
        #expect(mkdir(directory, 0o700) == 0)
        #expect(Self.readable(watch))
        watch.drain()  // back on the directory
        let listener = try LocalSocket.listen(at: path)
        defer { close(listener) }
        #expect(Self.readable(watch))
        watch.drain()
        #expect(watch.socketExists)
    }
}
