// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to the broker tried without blocking, within a
/// timeout, then closed: libmosquitto connects with MQTT 5 properties only
/// in a blocking call, which an unreachable broker would hold for the
/// kernel's SYN retries (minutes). Once this has reached the broker, that
/// call returns at once.
enum BrokerProbe {
    /// Throws `.connectionUnavailable` naming the broker when no address of
    /// `host` accepts a connection on `port` within `timeout` seconds.
    static func reach(host: String, port: Int, timeout: Double, name: String) throws(HandoffError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let found = getaddrinfo(host, String(port), &hints, &list)
        guard found == 0, let first = list else {
            let why = found == 0 ? "no address" : String(cString: gai_strerror(found))
            throw HandoffError(.connectionUnavailable, "cannot reach the relay broker \(name): \(why)")
        }
        defer { freeaddrinfo(first) }
        let end = monotonicSeconds() + timeout
        var lastError = ETIMEDOUT
        var count = 0
        var walk: UnsafeMutablePointer<addrinfo>? = first
        while let a = walk { count += 1; walk = a.pointee.ai_next }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        var index = 0
        while let a = entry {
            entry = a.pointee.ai_next
            index += 1
            let fd = socket(a.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return }
            guard errno == EINPROGRESS else {
                lastError = errno
                continue
            }
            // Each address its share of what is left: a dead first one (an
            // IPv6 address without a route) does not take all of it.
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let share = max(0, end - monotonicSeconds()) / Double(max(1, count - index + 1))
            guard poll(&p, 1, Int32((share * 1000).rounded(.up))) > 0 else {
                lastError = ETIMEDOUT
                continue
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            if code == 0 { return }
            lastError = code
        }
        throw HandoffError(.connectionUnavailable, "cannot reach the relay broker \(name): \(String(cString: strerror(lastError)))")
    }
}
