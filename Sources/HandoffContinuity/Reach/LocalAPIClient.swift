// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// One `GET` to tailscaled's LocalAPI over its Unix socket, written by hand:
/// HTTP/1.1, `Host: local-tailscaled.sock` (what tailscaled's own client
/// sends), no Origin header (tailscaled refuses browser-made requests),
/// `Connection: close`, so the answer ends where the connection does.
/// Bounded: the whole exchange within `timeout` seconds (a full listen
/// backlog included: the connect is tried again until then), at most
/// `maxBytes` read. Blocking (poll with a deadline): run it off the
/// engine's hot threads (`PeerSources` does, on its own).
public enum LocalAPIClient {
    public enum Outcome: Sendable, Equatable {
        /// Nothing at the path (ENOENT, ENOTDIR): tailscaled is not here.
        case absent
        /// The socket is there and refuses (ECONNREFUSED: tailscaled
        /// stopped; EACCES: not allowed), with the system's words.
        case refused(String)
        /// It did not connect in time (the backlog stayed full), or it
        /// connected and the exchange failed: a timeout, too many bytes, a
        /// read error.
        case failed(String)
        /// Everything the server sent before it closed.
        case response([UInt8])
    }

    public static let host = "local-tailscaled.sock"

    public static func get(_ path: String, socket socketPath: String, timeout: Double = 3,
                           maxBytes: Int = TailnetStatus.maxBodyBytes + HTTPResponse.maxHeaderBytes) -> Outcome {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        guard !pathBytes.isEmpty, pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            return .refused("the socket path is empty or too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failed("cannot open a Unix socket: \(errnoText())") }
        defer { close(fd) }
        let deadline = monotonicSeconds() + timeout
        if let failure = connect(fd, to: &address, until: deadline, timeout: timeout) { return failure }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: libhandoff\r\nAccept: application/json\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return .failed("tailscaled did not take the request within \(seconds(timeout)) s") }
                continue
            }
            return .failed("cannot send the request: \(errnoText())")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return .response(received) }
            if n > 0 {
                guard received.count + n <= maxBytes else { return .failed("the answer is over \(maxBytes) bytes") }
                received.append(contentsOf: buffer[0..<n])
                continue
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                guard wait(fd, for: Int16(POLLIN), until: deadline) else {
                    return .failed("no complete answer within \(seconds(timeout)) s (\(received.count) bytes)")
                }
                continue
            }
            return .failed("cannot read the answer: \(errnoText())")
        }
    }

    /// The first wait after EAGAIN, and the longest (doubling in between).
    static let backlogRetryFirst = 0.005
    static let backlogRetryLongest = 0.1

    /// Connects `fd` within `deadline`; nil when connected, else the outcome.
    ///
    /// A non-blocking connect on a Unix socket whose listener's backlog is
    /// full fails with EAGAIN and leaves the socket unconnected: no poll
    /// event ever says there is room (POLLOUT is not for that), so the
    /// connect is tried again after a short wait (5 ms doubling to 100 ms),
    /// until the deadline.
    private static func connect(_ fd: Int32, to address: inout sockaddr_un, until deadline: Double,
                                timeout: Double) -> Outcome? {
        var pause = backlogRetryFirst
        while true {
            let r = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if r == 0 { return nil }
            let e = errno
            switch e {
            case EINTR:
                continue
            case ENOENT, ENOTDIR:
                return .absent
            case EAGAIN:
                let left = deadline - monotonicSeconds()
                guard left > 0 else {
                    return .failed("tailscaled did not accept the connection within \(seconds(timeout)) s (its backlog stayed full)")
                }
                sleepSeconds(min(pause, left))
                pause = min(pause * 2, backlogRetryLongest)
            case EINPROGRESS:
                // Not what Linux does for AF_UNIX, but the documented way for a socket that does it.
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else {
                    return .failed("tailscaled did not accept the connection within \(seconds(timeout)) s")
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                return soError == 0 ? nil : .refused(String(cString: strerror(soError)))
            default:
                return .refused(String(cString: strerror(e)))
            }
        }
    }

    /// `3` or `0.5`: a timeout as people read it.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    private static func sleepSeconds(_ value: Double) {
        var request = timespec(tv_sec: Int(value), tv_nsec: Int((value - value.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }

    /// Waits for `events` until `deadline` (monotonic); false when it passed.
    private static func wait(_ fd: Int32, for events: Int16, until deadline: Double) -> Bool {
        // An error: the next call says what went wrong.
        HandoffBase.wait(fd, for: events, until: Deadline(at: deadline)) != .timedOut
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
