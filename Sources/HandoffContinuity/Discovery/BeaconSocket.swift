// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Socket and interface helpers of the beacon transport.
enum BeaconSocket {
    // MARK: - Sockets

    enum IPv6Open {
        case opened(Int32)
        case unavailable
        case portTaken
    }

    static func openIPv4(port: UInt16, share: Bool) throws(HandoffError) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HandoffError(.io, "cannot open a UDP socket for beacons: \(errnoText())") }
        var one: Int32 = 1
        var ttl: Int32 = 1
        if share {
            _ = setOption(fd, SOL_SOCKET, SO_REUSEADDR, &one)
            _ = setOption(fd, SOL_SOCKET, SO_REUSEPORT, &one)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            let text = errnoText()
            close(fd)
            throw HandoffError(.io,
                "cannot bind the beacon socket to UDP port \(port): \(text); another program may hold the port without sharing it (choose another port)")
        }
        _ = setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl)
        _ = setOption(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &one)
        return fd
    }

    static func openIPv6(port: UInt16, share: Bool) -> IPv6Open {
        let fd = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unavailable }
        var one: Int32 = 1
        var hops: Int32 = 1
        guard setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one) else {
            close(fd)
            return .unavailable
        }
        if share {
            _ = setOption(fd, SOL_SOCKET, SO_REUSEADDR, &one)
            _ = setOption(fd, SOL_SOCKET, SO_REUSEPORT, &one)
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        address.sin6_addr = in6addr_any
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        guard ok == 0 else {
            let e = errno
            close(fd)
            return e == EADDRINUSE ? .portTaken : .unavailable
        }
        _ = setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &hops)
        _ = setOption(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, &one)
        return .opened(fd)
    }

    /// A netlink socket subscribed to link and IPv4/IPv6 address changes;
    /// -1 when the kernel refuses (the periodic rescan still applies).
    static func openNetlink() -> Int32 {
        let fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                        0 /* NETLINK_ROUTE */)
        guard fd >= 0 else { return -1 }
        // struct sockaddr_nl (linux/netlink.h, not in Glibc's module):
        // family u16, pad u16, pid u32, groups u32.
        var address: (UInt16, UInt16, UInt32, UInt32) =
            (UInt16(AF_NETLINK), 0, 0, 0x1 | 0x10 | 0x100)  // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR
        let ok = withUnsafeBytes(of: &address) {
            bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), 12)
        }
        guard ok == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func setOption<T>(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: inout T) -> Bool {
        guard fd >= 0 else { return false }
        return withUnsafeBytes(of: &value) { setsockopt(fd, level, name, $0.baseAddress, socklen_t($0.count)) } == 0
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    // MARK: - Interfaces

    struct Interface {
        var name: String
        var index: UInt32
        var hasIPv4: Bool
    }

    /// The interfaces to use: those named (that exist), or every UP, MULTICAST,
    /// non-loopback one.
    static func scanInterfaces(named names: [String]?) -> [Interface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var flagsByName: [String: UInt32] = [:]
        var withIPv4: Set<String> = []
        var order: [String] = []
        var entry = list
        while let e = entry {
            let name = String(cString: e.pointee.ifa_name)
            if flagsByName[name] == nil { order.append(name) }
            flagsByName[name, default: 0] |= e.pointee.ifa_flags
            if let address = e.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET {
                withIPv4.insert(name)
            }
            entry = e.pointee.ifa_next
        }
        let wanted: [String]
        if let names {
            wanted = names
        } else {
            let up = UInt32(IFF_UP), multicast = UInt32(IFF_MULTICAST), loopback = UInt32(IFF_LOOPBACK)
            wanted = order.filter {
                let f = flagsByName[$0] ?? 0
                return f & up != 0 && f & multicast != 0 && f & loopback == 0
            }
        }
        return wanted.compactMap { name in
            let index = if_nametoindex(name)
            guard index != 0 else { return nil }
            return Interface(name: name, index: index, hasIPv4: withIPv4.contains(name))
        }
    }
}
