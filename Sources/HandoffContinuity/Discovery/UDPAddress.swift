// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A numeric UDP endpoint: an IPv4 or IPv6 address (IPv6 optionally with a
/// `%scope`, an interface name or index, as link-local addresses need) and
/// a port. Host names are not resolved: beacons never wait on DNS.
public struct UDPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in canonical text form (inet_ntop), IPv6 with its
    /// `%scope` suffix when it has one: `127.0.0.1`, `fe80::1%eth0`.
    public let host: String
    public let port: UInt16
    public let isIPv6: Bool
    /// Interface index of an IPv6 scope; 0 for none.
    public let scopeID: UInt32
    private let raw: [UInt8]   // 4 or 16 address bytes

    /// nil unless `host` is a numeric IPv4 or IPv6 address (IPv6 may end in
    /// `%scope`: an interface name that exists now, or a number).
    public init?(host: String, port: UInt16) {
        var text = host
        var scope = ""
        if let percent = host.firstIndex(of: "%") {
            text = String(host[..<percent])
            scope = String(host[host.index(after: percent)...])
            guard !scope.isEmpty else { return nil }
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        if scope.isEmpty, inet_pton(AF_INET, text, &v4) == 1 {
            let bytes = withUnsafeBytes(of: &v4) { Array($0) }
            self.init(raw: bytes, scopeID: 0, scopeName: nil, port: port)
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            var scopeID: UInt32 = 0
            var scopeName: String?
            if !scope.isEmpty {
                if let n = UInt32(scope), n > 0 {
                    scopeID = n
                } else {
                    scopeID = if_nametoindex(scope)
                    guard scopeID != 0 else { return nil }
                    scopeName = scope
                }
            }
            self.init(raw: bytes, scopeID: scopeID, scopeName: scopeName, port: port)
        } else {
            return nil
        }
    }

    /// Parses `1.2.3.4:52370`, `[::1]:52370` or `[fe80::1%eth0]:52370`.
    public init?(_ text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            portPart = after.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard !portPart.isEmpty, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = UInt16(portPart),
              let address = UDPAddress(host: String(hostPart), port: port),
              address.isIPv6 == text.hasPrefix("[")   // brackets for IPv6 only
        else { return nil }
        self = address
    }

    private init(raw: [UInt8], scopeID: UInt32, scopeName: String?, port: UInt16) {
        let isIPv6 = raw.count == 16
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        raw.withUnsafeBytes { _ = inet_ntop(isIPv6 ? AF_INET6 : AF_INET, $0.baseAddress, &text, socklen_t(text.count)) }
        var host = String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if scopeID != 0 {
            host += "%" + (scopeName ?? UDPAddress.interfaceName(scopeID) ?? String(scopeID))
        }
        self.host = host
        self.raw = raw
        self.port = port
        self.isIPv6 = isIPv6
        self.scopeID = scopeID
    }

    /// `1.2.3.4:52370` or `[fe80::1%eth0]:52370`.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    // Equality is the endpoint (address bytes, scope index, port), not the
    // spelling of the scope.
    public static func == (a: UDPAddress, b: UDPAddress) -> Bool {
        a.raw == b.raw && a.scopeID == b.scopeID && a.port == b.port
    }

    public func hash(into h: inout Hasher) {
        h.combine(raw)
        h.combine(scopeID)
        h.combine(port)
    }

    // MARK: - sockaddr conversions (internal to the transport)

    /// Calls `body` with this address as a sockaddr and its length.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        if isIPv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            sa.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &sa.sin6_addr) { $0.copyBytes(from: raw) }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &sa.sin_addr) { $0.copyBytes(from: raw) }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    /// The address in a sockaddr_storage filled by recvfrom; nil for other
    /// families. `names` caches interface names by index.
    init?(storage: sockaddr_storage, names: inout [UInt32: String]) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sa = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            var addr = sa.sin_addr
            self.init(raw: withUnsafeBytes(of: &addr) { Array($0) }, scopeID: 0, scopeName: nil,
                      port: UInt16(bigEndian: sa.sin_port))
        case AF_INET6:
            let sa = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            var addr = sa.sin6_addr
            let scope = sa.sin6_scope_id
            var name: String?
            if scope != 0 {
                if let cached = names[scope] {
                    name = cached
                } else if let found = UDPAddress.interfaceName(scope) {
                    if names.count > 256 { names.removeAll() }
                    names[scope] = found
                    name = found
                }
            }
            self.init(raw: withUnsafeBytes(of: &addr) { Array($0) }, scopeID: scope, scopeName: name,
                      port: UInt16(bigEndian: sa.sin6_port))
        default:
            return nil
        }
    }

    static func interfaceName(_ index: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
