// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Helpers for the channel tests: real sockets on 127.0.0.1 only.
enum ChannelTest {
    static let key: [UInt8] = Array(0..<32)
    static let otherKey: [UInt8] = Array(repeating: 0x42, count: 32)
    static let anyPort = SocketAddress(host: "127.0.0.1", port: 0)

    static func limits(handshakeTimeout: Double = 3, maxPending: Int = 8, maxConnections: Int = 64,
                       firstBytes: Double? = nil) -> ChannelLimits {
        var limits = ChannelLimits()
        limits.handshakeTimeout = handshakeTimeout
        limits.firstBytesTimeout = firstBytes ?? handshakeTimeout
        limits.maxPendingHandshakes = maxPending
        limits.maxConnections = maxConnections
        return limits
    }

    static func address(_ server: ChannelServer) -> SocketAddress {
        SocketAddress(host: "127.0.0.1", port: server.port)
    }

    /// Echoes every frame until the peer goes.
    static let echo: @Sendable (ChannelConnection) -> Void = { connection in
        while let frame = try? connection.receive(timeout: 10) {
            do { try connection.send(frame, timeout: 10) } catch { return }
        }
    }

    /// Seconds since `start` on the monotonic clock.
    static func since(_ start: Double) -> Double { monotonicSeconds() - start }

    /// Polls `condition` every 10 ms for up to `timeout` seconds.
    static func eventually(_ timeout: Double = 5, _ condition: () -> Bool) -> Bool {
        let end = monotonicSeconds() + timeout
        while monotonicSeconds() < end {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// The error a throwing call fails with, or nil when it succeeds.
    static func failure<T>(_ body: () throws(HandoffError) -> T) -> HandoffError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// A port nothing listens on (bound once, then released).
    static func closedPort() -> UInt16 {
        let fd = rawListener()
        let port = localPort(fd)
        close(fd)
        return port
    }

    /// A listening TCP socket on 127.0.0.1 that never accepts or speaks.
    static func rawListener() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(bound == 0 && listen(fd, 16) == 0)
        return fd
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var sin = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: sin.sin_port)
    }

    /// A plain blocking TCP connection to 127.0.0.1:port, from 127.0.0.`from`
    /// (loopback answers for all of 127/8: distinct sources on one host).
    static func rawConnect(_ port: UInt16, from: UInt8 = 1) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        if from != 1 {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = (UInt32(0x7f00_0000) | UInt32(from)).bigEndian
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            precondition(bound == 0, "bind to 127.0.0.\(from) failed: \(errno)")
        }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        sin.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(connected == 0, "raw connect failed: \(errno)")
        return fd
    }

    static func rawSend(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the peer closed `fd` (end of stream or reset) within
    /// `timeout` seconds; whatever it sent before is read and dropped.
    static func peerCloses(_ fd: Int32, within timeout: Double) -> Bool {
        let end = monotonicSeconds() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = end - monotonicSeconds()
            if left <= 0 { return false }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(left * 1000) + 1)
            if ready <= 0 { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return true }
        }
    }

    /// Open file descriptors of this process.
    static func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count - 3  // ".", ".." and the directory's own descriptor
    }

    /// Runs `body` on a new thread; its result arrives in the OneShot.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> OneShot<T> {
        let result = OneShot<T>()
        startDetachedThread { result.fulfil(body()) }
        return result
    }
}

/// A thread-safe list the handlers append to.
final class ChannelRecorder<T: Sendable>: Sendable {
    private let items = Locked<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

extension Result where Failure == HandoffError {
    var channelErrorCode: HandoffError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
