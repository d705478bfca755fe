// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import HandoffBase
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A connection knows whether the process that connected still runs: what
/// is read of /proc/PID is that process's only while it does.
@Suite struct AgentConnectionPeerTests {
    @Test func thePeerStopsRunningWhenItsProcessExits() throws {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0)
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let reactor = try Reactor()
        let connection = AgentConnection(fd: pair[0], peer: .init(pid: pid, uid: getuid(), gid: getgid()), token: 1,
                                         loop: reactor, maxQueued: 4)
        defer { connection.close(AgentConnection.CloseReason.stopping) }
        #expect(connection.peerStillRuns)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        // Reaped: its pid may now be any process's; the connection says so.
        #expect(!connection.peerStillRuns)
    }
}
