// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffAgent
import HandoffModel
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Socket activation as sd_listen_fds(3) defines it, read without
/// libsystemd: which variables mean what, what is refused, and which
/// descriptors pass for the agent's listening socket.
@Suite struct ActivatedSocketTests {
    let pid: Int32 = 4242

    @Test func withoutOrForAnotherProcessThereAreNoSockets() throws {
        #expect(try ActivatedSocket.parse([:], pid: pid) == [])
        #expect(try ActivatedSocket.parse(["LISTEN_FDS": "1"], pid: pid) == [])
        #expect(try ActivatedSocket.parse(["LISTEN_PID": "4243", "LISTEN_FDS": "1"], pid: pid) == [])
        #expect(try ActivatedSocket.parse(["LISTEN_PID": "4242"], pid: pid) == [])
        #expect(try ActivatedSocket.parse(["LISTEN_PID": "4242", "LISTEN_FDS": "0"], pid: pid) == [])
    }

    @Test func socketsStartAtDescriptorThreeWithTheirNames() throws {
        let one = try ActivatedSocket.parse(["LISTEN_PID": "4242", "LISTEN_FDS": "1",
                                             "LISTEN_FDNAMES": "handoff-agent.socket"], pid: pid)
        #expect(one == [ActivatedSocket(fd: 3, name: "handoff-agent.socket")])
        let two = try ActivatedSocket.parse(["LISTEN_PID": "4242", "LISTEN_FDS": "2"], pid: pid)
        #expect(two.map(\.fd) == [3, 4])
        #expect(two.map(\.name) == ["unknown", "unknown"])
        let named = try ActivatedSocket.parse(["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "a:"], pid: pid)
        #expect(named.map(\.name) == ["a", ""])
    }

    @Test(arguments: [
        ["LISTEN_PID": "", "LISTEN_FDS": "1"],
        ["LISTEN_PID": "0", "LISTEN_FDS": "1"],
        ["LISTEN_PID": "42x", "LISTEN_FDS": "1"],
        ["LISTEN_PID": "+4242", "LISTEN_FDS": "1"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": "-1"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": " 1"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": "17"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": "99999999999"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "only-one"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "a:b"],
        ["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": String(repeating: "n", count: 256)],
    ])
    func whatSystemdNeverWritesIsRefused(_ environment: [String: String]) {
        #expect(throws: HandoffError.self) { try ActivatedSocket.parse(environment, pid: pid) }
    }

    /// A Unix socket of `type`, bound to a fresh path; listening if asked.
    func unixSocket(_ type: Int32, listening: Bool) throws -> Int32 {
        let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket") }
        guard listening else { return fd }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = "/tmp/handoff-activated-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        unlink(path)
        guard bound == 0, listen(fd, 4) == 0 else { close(fd); throw TestFailure("bind/listen") }
        return fd
    }

    @Test func aListeningSequentialPacketSocketIsTheAgentsKind() throws {
        let fd = try unixSocket(Int32(SOCK_SEQPACKET.rawValue), listening: true)
        defer { close(fd) }
        #expect(throws: Never.self) { try ActivatedSocket.checkListening(fd) }
    }

    @Test func otherDescriptorsAreRefused() throws {
        let stream = try unixSocket(Int32(SOCK_STREAM.rawValue), listening: true)
        defer { close(stream) }
        let unlistened = try unixSocket(Int32(SOCK_SEQPACKET.rawValue), listening: false)
        defer { close(unlistened) }
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        defer { close(udp) }
        var pipeEnds: [Int32] = [-1, -1]
        #expect(clinux_pipe2(&pipeEnds, O_CLOEXEC) == 0)
        defer { pipeEnds.forEach { close($0) } }
        for fd in [stream, unlistened, udp, pipeEnds[0], 999] {
            #expect(throws: HandoffError.self, "fd \(fd)") { try ActivatedSocket.checkListening(fd) }
        }
    }
}
