// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffContinuity
import HandoffModel

/// Where the relay's broker is and how to log in (PROTOCOL.md §11,
/// docs/cli.md "handoff relay"): one URL, `mqtts://[user@]host[:port]` or
/// `mqtt://…`, plus the password, a CA file and the plain-text consent.
///
/// The URL never holds the password (`user:pass@` is refused: a URL is
/// typed on command lines, kept in shell histories and shown by `ps`).
/// `mqtt://` sends the password and every message in clear, so it is
/// accepted only to a loopback host (127.0.0.0/8, ::1, `localhost`) unless
/// `allowPlain` says the person knows. `mqtts://` with no `caFile` checks
/// the broker's certificate against the OS's certificates; with `caFile`,
/// against that file.
public struct RelayConfiguration: Sendable, Equatable {
    public enum Scheme: String, Sendable {
        case mqtt, mqtts

        public var defaultPort: Int { self == .mqtt ? 1883 : 8883 }
    }

    /// Limits of what the URL and the password may hold.
    public static let maxURLLength = 1024
    public static let maxUsernameLength = 256
    public static let maxPasswordLength = 1024

    public var scheme: Scheme
    /// A lower-case host name, an IPv4 address, or an IPv6 address
    /// (canonical, without brackets).
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    /// An absolute path to a PEM file of CA certificates (mqtts:// only).
    public var caFile: String?
    public var allowPlain: Bool

    /// Parses `url` and checks the whole configuration.
    /// - Throws: `.invalidArgument` with a message a person can act on.
    public init(url: String, password: String?, caFile: String? = nil, allowPlain: Bool = false) throws(HandoffError) {
        func refuse(_ why: String) -> HandoffError {
            HandoffError(.invalidArgument, "\(AccountEncoding.quoted(url)) is not a relay URL: \(why)")
        }
        guard url.utf8.count <= Self.maxURLLength else {
            throw refuse("it is longer than \(Self.maxURLLength) bytes")
        }
        guard !url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw refuse("it holds a space or a control character")
        }
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else {
            throw refuse("give it as mqtts://[USER@]HOST[:PORT] (or mqtt:// to this machine)")
        }
        guard let scheme = Scheme(rawValue: url[..<colon].lowercased()) else {
            throw refuse("the scheme is \(AccountEncoding.quoted(String(url[..<colon]))), not mqtts or mqtt")
        }
        var rest = url[colon...].dropFirst(3)
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            // "host/" is the same place as "host"; anything after it is not.
            guard rest[end] == "/", rest.index(after: end) == rest.endIndex else {
                throw refuse("a relay URL has no path, query or fragment: only [USER@]HOST[:PORT]")
            }
            rest = rest[..<end]
        }
        var username: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            guard !userinfo.contains(":") else {
                throw HandoffError(
                    .invalidArgument,
                    "a relay URL never holds the password (it would be seen in the shell's history and by ps): "
                        + "give the URL with the user name only (mqtts://USER@HOST) and the password at the prompt "
                        + "or with --password-file FILE")
            }
            guard let decoded = Self.percentDecoded(userinfo), !decoded.isEmpty else {
                throw refuse("the user name before @ is empty or badly %-encoded")
            }
            guard decoded.utf8.count <= Self.maxUsernameLength,
                  !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw refuse("the user name is longer than \(Self.maxUsernameLength) bytes or holds a control character")
            }
            username = decoded
            rest = rest[rest.index(after: at)...]
        }
        let (host, portText) = try Self.splitHostPort(rest, refuse)
        var port = scheme.defaultPort
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(portText), (1...65535).contains(number) else {
                throw refuse("the port \(AccountEncoding.quoted(String(portText))) is not a number from 1 to 65535")
            }
            port = number
        }
        try self.init(scheme: scheme, host: host, port: port, username: username, password: password,
                      caFile: caFile, allowPlain: allowPlain)
    }

    /// The configuration from its parts (the host already canonical, as
    /// `host` returns it); checks the same rules as `init(url:…)`.
    public init(scheme: Scheme, host: String, port: Int, username: String?, password: String?,
                caFile: String?, allowPlain: Bool) throws(HandoffError) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.caFile = caFile
        self.allowPlain = allowPlain
        if let password {
            guard username != nil else {
                throw HandoffError(.invalidArgument, "a relay password needs a user name: give the URL as mqtts://USER@HOST")
            }
            guard !password.isEmpty, password.utf8.count <= Self.maxPasswordLength,
                  !password.unicodeScalars.contains(where: { $0.value == 0 || $0 == "\n" || $0 == "\r" }) else {
                throw HandoffError(
                    .invalidArgument,
                    "a relay password has 1 to \(Self.maxPasswordLength) bytes and no line break or NUL")
            }
        }
        if let caFile {
            guard caFile.hasPrefix("/"), caFile.utf8.count <= 4096,
                  !caFile.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw HandoffError(
                    .invalidArgument, "the CA file must be an absolute path without control characters: \(AccountEncoding.quoted(caFile))")
            }
            guard scheme == .mqtts else {
                throw HandoffError(.invalidArgument, "a CA file is for TLS: use an mqtts:// URL with --ca-file")
            }
        }
        if scheme == .mqtt, !allowPlain, !Self.isLoopback(host) {
            throw HandoffError(
                .invalidArgument,
                "mqtt:// to \(host) would send the broker password and every relay message across the network in "
                    + "clear: use mqtts:// (TLS), or add --allow-plain if the network between you and the broker "
                    + "is yours (a VPN, a test network)")
        }
    }

    /// The canonical URL, without the password: what is stored and shown.
    public var url: String {
        let user = username.map { Self.percentEncoded($0) + "@" } ?? ""
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(scheme.rawValue)://\(user)\(host):\(port)"
    }

    /// True for 127.0.0.0/8, ::1 (and ::ffff:127.x.y.z) and `localhost`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        let mapped = bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped && bytes[12] == 127
    }

    // MARK: Parts of the URL

    /// `host`, `host:port`, `[v6]` or `[v6]:port`; the host made canonical.
    private static func splitHostPort(
        _ text: Substring, _ refuse: (String) -> HandoffError
    ) throws(HandoffError) -> (String, Substring?) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw refuse("the IPv6 address has no closing ]") }
            let literal = String(text[text.index(after: text.startIndex)..<close])
            var address = in6_addr()
            guard inet_pton(AF_INET6, literal, &address) == 1 else {
                throw refuse("\(AccountEncoding.quoted(literal)) is not an IPv6 address (a scope such as %eth0 is not supported)")
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else {
                throw refuse("\(AccountEncoding.quoted(literal)) is not an IPv6 address")
            }
            let canonical = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let after = text[text.index(after: close)...]
            if after.isEmpty { return (canonical, nil) }
            guard after.hasPrefix(":") else { throw refuse("after ] comes :PORT or nothing") }
            return (canonical, after.dropFirst())
        }
        var host = text
        var port: Substring?
        if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !port!.contains(":") else { throw refuse("write an IPv6 address in brackets: mqtts://[2001:db8::1]:8883") }
        }
        var name = host.lowercased()
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        guard isHostName(name) else {
            throw refuse("the host \(AccountEncoding.quoted(String(host))) is not a host name or an IP address")
        }
        return (name, port)
    }

    /// RFC 1123 names (letters, digits, hyphens, dots; labels of 1-63) and
    /// dotted IPv4 addresses, at most 253 bytes.
    private static func isHostName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }
        }
    }

    /// The user name as the URL holds it: `@ : / % ? #` and non-ASCII %-encoded.
    private static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let plain = (byte >= 0x21 && byte < 0x7F) && !"@:/%?#[]".utf8.contains(byte)
            if plain {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == 0x25 else {
                bytes.append(byte)
                continue
            }
            guard iterator.count >= 2,
                  let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            iterator = iterator.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
