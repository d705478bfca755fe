// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The broker tried before libmosquitto connects (docs/agent.md §12
/// "Reaching the broker"): libmosquitto connects with MQTT 5 properties
/// only in a blocking call, which an unreachable broker would hold for the
/// kernel's SYN retries (minutes). Here the TCP connection is made without
/// blocking, within a timeout; for mqtts:// a TLS handshake follows, the
/// broker's chain and name are verified as libmosquitto will (so a failure
/// is named: which certificate, which name, OpenSSL's reason), and the
/// connection ends with a close_notify: the broker logs a client that
/// closed, not a failed handshake. A plain mqtt:// connection just closes.
package enum BrokerProbe {
    /// What to check the broker's certificate against (mqtts://).
    package struct Trust: Sendable {
        /// PEM CA certificates; nil: the system's.
        package var caFile: String?

        package init(caFile: String?) { self.caFile = caFile }
    }

    /// What a successful check saw: the broker's certificate (mqtts://).
    package struct Checked: Sendable {
        package var subject: String?
        package var issuer: String?
    }

    /// Throws `.connectionUnavailable` naming the broker when no address
    /// of `host` accepts a connection on `port`, or the TLS handshake does
    /// not complete, within `timeout` seconds; `.permission` when the
    /// broker's certificate fails verification (the message names it and
    /// says what to do).
    @discardableResult
    package static func check(host: String, port: Int, timeout: Double, name: String, trust: Trust?) throws(HandoffError) -> Checked {
        let end = monotonicSeconds() + timeout
        let fd = try connect(host: host, port: port, end: end, name: name)
        defer { close(fd) }
        guard let trust else { return Checked() }
        return try BrokerTLSCheck.run(fd: fd, host: host, trust: trust, end: end, name: name)
    }

    /// A connected non-blocking TCP socket to `host`:`port`.
    private static func connect(host: String, port: Int, end: Double, name: String) throws(HandoffError) -> Int32 {
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
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastError = errno
                close(fd)
                continue
            }
            // Each address its share of what is left: a dead first one (an
            // IPv6 address without a route) does not take all of it.
            let share = max(0, end - monotonicSeconds()) / Double(max(1, count - index + 1))
            guard wait(fd, for: Int16(POLLOUT), until: Deadline(after: share)) == .ready else {
                lastError = ETIMEDOUT
                close(fd)
                continue
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            if code == 0 { return fd }
            lastError = code
            close(fd)
        }
        throw HandoffError(.connectionUnavailable, "cannot reach the relay broker \(name): \(String(cString: strerror(lastError)))")
    }
}
