// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says under /proc/net: multicast memberships and UDP
/// sockets. Parsed leniently: a line that does not fit is skipped.
enum ProcNet {
    /// Interfaces whose IPv4 membership list (/proc/net/igmp) has `group`
    /// (dotted quad); nil when the file cannot be read.
    static func ipv4Members(of group: String, text: String? = readFile("/proc/net/igmp")) -> [String]? {
        guard let text else { return nil }
        var wanted = in_addr()
        guard inet_pton(AF_INET, group, &wanted) == 1 else { return [] }
        // The file prints the group's 32 bits as the host reads them: on a
        // little-endian machine 239.255.72.79 is "4F48FFEF".
        let hex = String(format8: wanted.s_addr)
        var members: [String] = []
        var device: String?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first else { continue }
            if line.first != "\t", fields.count >= 2, Int(first) != nil {
                // "4\teth0      :     1      V3": a device line.
                device = String(fields[1]).trimmingCharacters(":")
            } else if first.uppercased() == hex, let device, !members.contains(device) {
                members.append(device)
            }
        }
        return members
    }

    /// Interfaces whose IPv6 membership list (/proc/net/igmp6) has `group`.
    static func ipv6Members(of group: String, text: String? = readFile("/proc/net/igmp6")) -> [String]? {
        guard let text else { return nil }
        var wanted = in6_addr()
        guard inet_pton(AF_INET6, group, &wanted) == 1 else { return [] }
        let hex = withUnsafeBytes(of: &wanted) { $0.map { String(format2: $0) }.joined() }
        var members: [String] = []
        for line in text.split(separator: "\n") {
            // "4    eth0            ff020000000000000000000048414e44     1 00000004 0"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[2].lowercased() == hex else { continue }
            let device = String(fields[1])
            if !members.contains(device) { members.append(device) }
        }
        return members
    }

    /// How many UDP sockets (IPv4 and IPv6) are bound to local `port`.
    static func udpSockets(onPort port: UInt16) -> Int {
        let hex = String(port, radix: 16, uppercase: true)
        let suffix = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        var count = 0
        for path in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = readFile(path) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // "  12: 00000000:CCB2 00000000:0000 07 ...": the local address is field 2.
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 1, fields[1].hasSuffix(suffix) { count += 1 }
            }
        }
        return count
    }

    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 8 << 20 {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// A 32-bit value as 8 uppercase hex digits.
    init(format8 value: UInt32) {
        let hex = String(value, radix: 16, uppercase: true)
        self = String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// A byte as 2 lowercase hex digits.
    init(format2 value: UInt8) {
        let hex = String(value, radix: 16)
        self = hex.count == 1 ? "0" + hex : hex
    }

    func trimmingCharacters(_ character: Character) -> String {
        var s = Substring(self)
        while s.last == character { s.removeLast() }
        return String(s)
    }
}
