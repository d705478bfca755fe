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

    /// Drains while the descriptor is readable (100 at most): how many it took.
    static func drainsUntilQuiet(_ watch: AgentSocketWatch) -> Int {
        var drains = 0
        while readable(watch, seconds: 0), drains < 100 {
            watch.drain()
            drains += 1
        }
        return drains
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

    /// Moving the watch queues an IN_IGNORED for the old one: the watch
    /// must not take it for its directory going and move again, for ever
    /// (an idle agent spun a core once tailscaled's folder appeared). After
    /// the directory is made, and after other entries come and go in the
    /// parent, the descriptor goes quiet within a drain or two.
    @Test func goesQuietAfterItMoves() throws {
        let base = Self.freshBase()
        defer { _ = rmdirTree(base) }
        let path = base + "/handoff/agent.sock"
        let watch = try AgentSocketWatch(socketPath: path)
        // Another entry of the parent: nothing to do with the socket.
        let other = open(base + "/other", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        close(other)
        #expect(Self.readable(watch))
        #expect(!watch.drain())
        #expect(!Self.readable(watch, seconds: 0))

        #expect(mkdir(base + "/handoff", 0o700) == 0)
        #expect(Self.readable(watch))
        #expect(Self.drainsUntilQuiet(watch) <= 2)
        #expect(!Self.readable(watch, seconds: 0))

        // The directory moved away and made again: quiet once more.
        #expect(rename(base + "/handoff", base + "/handoff.old") == 0)
        #expect(Self.readable(watch))
        #expect(Self.drainsUntilQuiet(watch) <= 3)
        #expect(mkdir(base + "/handoff", 0o700) == 0)
        #expect(Self.readable(watch))
        #expect(Self.drainsUntilQuiet(watch) <= 3)
        let listener = try LocalSocket.listen(at: path)
        defer { close(listener) }
        #expect(Self.readable(watch))
        #expect(watch.drain())
        #expect(watch.socketExists)
        _ = rmdirTree(base + "/handoff.old")
    }
}
