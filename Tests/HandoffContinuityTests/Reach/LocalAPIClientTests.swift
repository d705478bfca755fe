// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The LocalAPI client against a real Unix listener whose backlog is
/// full: a non-blocking connect then fails with EAGAIN and no poll event
/// says when there is room, so the client tries again until its deadline.
@Suite struct LocalAPIClientTests {
    static let counter = Locked(0)

    /// A listener with a backlog of 0 and one connection waiting in it
    /// (never accepted by itself): the next connect finds it full.
    final class FullListener: @unchecked Sendable {
        let path: String
        let listener: Int32
        let filler: Int32

        init() throws {
            let n = LocalAPIClientTests.counter.withLock { c in c += 1; return c }
            path = "/tmp/handoff-localapi-test-\(getpid())-\(n).sock"
            unlink(path)
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            filler = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = Self.address(path)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard listener >= 0, filler >= 0, bound == 0, listen(listener, 0) == 0,
                  Self.connect(filler, path) == 0 else {
                throw HandoffError(.io, "cannot set up the listener at \(path): \(String(cString: strerror(errno)))")
            }
        }

        deinit {
            close(filler)
            close(listener)
            unlink(path)
        }

        static func address(_ path: String) -> sockaddr_un {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            return address
        }

        static func connect(_ fd: Int32, _ path: String) -> Int32 {
            var address = address(path)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }

        /// What a non-blocking connect meets now: the errno, 0 when it connected.
        func probe() -> Int32 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            defer { close(fd) }
            return Self.connect(fd, path) == 0 ? 0 : errno
        }

        /// Accepts the filler and then one client; reads its request and
        /// answers `{}`. Returns the request line.
        func serveOne() -> String {
            let first = clinux_accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            close(first)
            let client = clinux_accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            guard client >= 0 else { return "" }
            defer { close(client) }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.suffix(4).elementsEqual([13, 10, 13, 10]) && request.count < 65536 {
                let n = recv(client, &buffer, buffer.count, 0)
                guard n > 0 else { break }
                request += buffer[0..<n]
            }
            let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".utf8)
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
        }
    }

    @Test func aFullBacklogIsWaitedOutWhenTheListenerAcceptsLater() throws {
        let server = try FullListener()
        // The condition under test exists: the backlog is full now.
        #expect(server.probe() == EAGAIN)
        let served = ChannelTest.onThread { () -> String in
            // Later than the client's first tries (no assertion rests on when).
            usleep(300_000)
            return server.serveOne()
        }
        let outcome = LocalAPIClient.get("/localapi/v0/status", socket: server.path, timeout: 20)
        guard case .response(let bytes) = outcome else {
            Issue.record("expected an answer, got \(outcome)")
            return
        }
        #expect(try HTTPResponse(bytes: bytes).body == Array("{}".utf8))
        #expect(served.wait(seconds: 20) == "GET /localapi/v0/status HTTP/1.1")
    }

    @Test func aBacklogThatStaysFullIsATimeoutThatSaysSo() throws {
        let server = try FullListener()
        #expect(server.probe() == EAGAIN)
        let outcome = LocalAPIClient.get("/localapi/v0/status", socket: server.path, timeout: 0.3)
        guard case .failed(let message) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(message == "tailscaled did not accept the connection within 0.3 s (its backlog stayed full)")
    }
}
