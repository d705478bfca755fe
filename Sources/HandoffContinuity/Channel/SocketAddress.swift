// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A numeric host and port: IPv4 `127.0.0.1`, IPv6 `::1` or link-local
/// `fe80::1%veth0` (the scope is an interface name or index). No DNS: the
/// channel only ever talks to addresses learned from beacons or given by
/// the user.
///
/// A channel reached over another `PeerPath` (the relay) is one too: its
/// `path` names the device there, and its host is that name's text (the
/// key rate limits and tallies count it by).
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// The path the channel is reached over, nil for the link (TCP).
    public private(set) var path: PeerPathAddress?

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The channel of the device at `path`, whose beacons announce `port`.
    public init(path: PeerPathAddress, port: UInt16 = 0) {
        host = path.description
        self.port = port
        self.path = path
    }

    /// Parses `127.0.0.1:5000`, `[::1]:5000` or `[fe80::1%veth0]:5000`.
    public init(parsing text: String) throws(HandoffError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw HandoffError(.invalidArgument, "'\(text)' has no closing ']': write an IPv6 address as [::1]:5000")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw HandoffError(.invalidArgument, "'\(text)' has no port: write it as [\(host)]:5000")
            }
            portText = rest.dropFirst()
            guard host.contains(":") else {
                throw HandoffError(.invalidArgument, "'\(text)' puts an IPv4 address in brackets: write it as \(host):5000")
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw HandoffError(.invalidArgument, "'\(text)' has no port: write it as 127.0.0.1:5000")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") {
                throw HandoffError(.invalidArgument, "'\(text)' looks like an IPv6 address without brackets: write it as [::1]:5000")
            }
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = UInt16(portText)
        else {
            throw HandoffError(.invalidArgument, "'\(portText)' in '\(text)' is not a port number (0...65535)")
        }
        let address = SocketAddress(host: String(host), port: port)
        try address.checkNumericHost()
        self = address
    }

    public var description: String {
        // A device on another path has no port to show.
        if let path { return path.description }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether the host is an IPv6 address (possibly with a scope).
    var isIPv6: Bool { host.contains(":") }

    /// Checks the syntax of the host (without looking up a scope's interface).
    func checkNumericHost() throws(HandoffError) {
        let (address, _) = splitScope()
        if isIPv6 {
            var scratch = in6_addr()
            guard inet_pton(AF_INET6, address, &scratch) == 1 else {
                throw HandoffError(.invalidArgument, "'\(host)' is not a numeric IPv6 address (the channel does no DNS)")
            }
        } else {
            var scratch = in_addr()
            guard inet_pton(AF_INET, address, &scratch) == 1 else {
                throw HandoffError(.invalidArgument, "'\(host)' is not a numeric IPv4 or IPv6 address (the channel does no DNS)")
            }
        }
    }

    private func splitScope() -> (address: String, scope: String?) {
        guard isIPv6, let percent = host.firstIndex(of: "%") else { return (host, nil) }
        return (String(host[..<percent]), String(host[host.index(after: percent)...]))
    }

    /// The kernel's form of this address.
    func resolved() throws(HandoffError) -> ResolvedSocketAddress {
        try checkNumericHost()
        let (address, scopeName) = splitScope()
        if !isIPv6 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, address, &sin.sin_addr)
            return .v4(sin)
        }
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        sin6.sin6_port = port.bigEndian
        _ = inet_pton(AF_INET6, address, &sin6.sin6_addr)
        if let scopeName {
            if let index = UInt32(scopeName) {
                sin6.sin6_scope_id = index
            } else {
                let index = if_nametoindex(scopeName)
                guard index != 0 else {
                    throw HandoffError(.invalidArgument, "there is no network interface named '\(scopeName)' (in \(self))")
                }
                sin6.sin6_scope_id = index
            }
        }
        let bytes = sin6.sin6_addr.__in6_u.__u6_addr8
        let isLinkLocal = bytes.0 == 0xfe && (bytes.1 & 0xc0) == 0x80
        if isLinkLocal && sin6.sin6_scope_id == 0 {
            throw HandoffError(.invalidArgument, "the link-local address \(self) needs an interface: write it as [\(host)%eth0]:\(port)")
        }
        return .v6(sin6)
    }

    /// The address the kernel reports for a socket (accept, getsockname).
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            var addr = sin.sin_addr
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &addr, &text, socklen_t(text.count)) != nil else { return nil }
            self.init(host: cBufferString(text), port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            var addr = sin6.sin6_addr
            let b = addr.__in6_u.__u6_addr8
            let isV4Mapped = b.0 == 0 && b.1 == 0 && b.2 == 0 && b.3 == 0 && b.4 == 0 && b.5 == 0 && b.6 == 0 && b.7 == 0
                && b.8 == 0 && b.9 == 0 && b.10 == 0xff && b.11 == 0xff
            if isV4Mapped {
                // An IPv4 peer of a dual-stack socket (::ffff:a.b.c.d) is
                // named as the IPv4 address it is.
                self.init(host: "\(b.12).\(b.13).\(b.14).\(b.15)", port: UInt16(bigEndian: sin6.sin6_port))
                return
            }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count)) != nil else { return nil }
            var host = cBufferString(text)
            if sin6.sin6_scope_id != 0 {
                var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
                if if_indextoname(sin6.sin6_scope_id, &name) != nil {
                    host += "%" + cBufferString(name)
                } else {
                    host += "%\(sin6.sin6_scope_id)"
                }
            }
            self.init(host: host, port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }
}

/// A `sockaddr_in` or `sockaddr_in6`, ready for bind and connect.
enum ResolvedSocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    var family: Int32 {
        switch self {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch self {
        case .v4(var sin):
            withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6(var sin6):
            withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }
}

/// The NUL-terminated string in a C buffer filled by a libc call.
func cBufferString(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
