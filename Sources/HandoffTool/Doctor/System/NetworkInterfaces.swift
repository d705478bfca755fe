// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The machine's network interfaces and their addresses (getifaddrs).
struct NetworkInterface {
    var name: String
    var isUp: Bool
    var isLoopback: Bool
    var hasMulticast: Bool
    /// "192.0.2.2/24", "fe80::1/64", in the kernel's order.
    var addresses: [String] = []

    static func all() -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [NetworkInterface] = []
        var entry = list
        while let e = entry {
            entry = e.pointee.ifa_next
            let name = String(cString: e.pointee.ifa_name)
            let flags = e.pointee.ifa_flags
            var index = found.firstIndex { $0.name == name }
            if index == nil {
                found.append(NetworkInterface(name: name, isUp: flags & UInt32(IFF_UP) != 0,
                                              isLoopback: flags & UInt32(IFF_LOOPBACK) != 0,
                                              hasMulticast: flags & UInt32(IFF_MULTICAST) != 0))
                index = found.count - 1
            }
            if let address = e.pointee.ifa_addr, let text = Self.text(address, mask: e.pointee.ifa_netmask) {
                found[index!].addresses.append(text)
            }
        }
        return found
    }

    /// Up, not loopback, with an address: a way to other devices.
    var reachesOthers: Bool { isUp && !isLoopback && !addresses.isEmpty }

    /// An IPv4 or IPv6 address with its prefix length; nil for other families.
    private static func text(_ address: UnsafeMutablePointer<sockaddr>, mask: UnsafeMutablePointer<sockaddr>?) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var prefix = 0
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var a = sin.pointee.sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            }
            if let mask {
                mask.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    prefix = UInt32(bigEndian: $0.pointee.sin_addr.s_addr).nonzeroBitCount
                }
            }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                var a = sin6.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
            }
            if let mask {
                mask.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    prefix = withUnsafeBytes(of: sin6.pointee.sin6_addr) { $0.reduce(0) { $0 + $1.nonzeroBitCount } }
                }
            }
        default:
            return nil
        }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(text)/\(prefix)"
    }
}
