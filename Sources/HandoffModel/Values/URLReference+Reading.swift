// SPDX-License-Identifier: MIT OR Apache-2.0
/// Reading a URL reference (RFC 3986 §3, §4.1) with the rules of
/// Foundation's `URL(string:)` (swift-foundation's RFC3986Parser, invalid
/// characters encoded, an empty scheme allowed): first split the text into
/// components at their delimiters, then percent-encode each component that
/// holds a character its grammar does not allow, then split the result.
extension URLReference {
    /// Where each component lies in the text, as UTF-8 offsets.
    struct Parts: Sendable {
        var scheme: Range<Int>?
        var user: Range<Int>?
        var password: Range<Int>?
        var host: Range<Int>?
        var port: Range<Int>?
        var path: Range<Int> = 0 ..< 0
        var query: Range<Int>?
        var fragment: Range<Int>?
        /// The host is `[...]` (IPv6 or IPvFuture).
        var isIPLiteral = false

        var hasAuthority: Bool { user != nil || password != nil || host != nil || port != nil }
    }

    enum Component {
        struct Set: OptionSet, Sendable {
            let rawValue: UInt8
            static let user = Set(rawValue: 1 << 0)
            static let password = Set(rawValue: 1 << 1)
            static let host = Set(rawValue: 1 << 2)
            static let path = Set(rawValue: 1 << 3)
            static let query = Set(rawValue: 1 << 4)
            static let fragment = Set(rawValue: 1 << 5)
        }
    }

    /// The ASCII characters a component allows as they are (RFC 3986 §2–3);
    /// `%` followed by two hexadecimal digits is allowed where `percent` says.
    struct Allowed: Sendable {
        private let low: UInt64, high: UInt64

        init(_ characters: String) {
            var low: UInt64 = 0, high: UInt64 = 0
            for c in characters.utf8 { if c < 64 { low |= 1 << c } else { high |= 1 << (c - 64) } }
            self.low = low
            self.high = high
        }

        func contains(_ c: UInt8) -> Bool {
            c < 64 ? low >> c & 1 == 1 : c < 128 && high >> (c - 64) & 1 == 1
        }

        static let alphaDigit = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        static let unreservedText = alphaDigit + "-._~"
        static let subDelims = "!$&'()*+,;="
        static let scheme = Allowed(alphaDigit + "+-.")
        /// userinfo, and an IP literal's address.
        static let userinfo = Allowed(unreservedText + subDelims + ":")
        /// reg-name
        static let host = Allowed(unreservedText + subDelims)
        /// An IPv6 zone identifier (RFC 6874), after its "%25".
        static let zoneID = Allowed(unreservedText)
        static let path = Allowed(unreservedText + subDelims + ":@/")
        /// The first segment of a path without a scheme cannot hold ":".
        static let firstSegment = Allowed(unreservedText + subDelims + "@/")
        static let query = Allowed(unreservedText + subDelims + ":@/?")
    }

    /// The text as read, its components and which of them were encoded;
    /// nil for text that cannot be split or encoded into a URL reference.
    static func read(_ string: String) -> (String, Parts, Component.Set)? {
        let bytes = Array(string.utf8)
        guard let parts = split(bytes) else { return nil }
        let invalid = invalidComponents(bytes, parts)
        if invalid.isEmpty { return (string, parts, []) }
        guard let encoded = encode(bytes, parts, invalid), let again = split(encoded) else { return nil }
        return (String(decoding: encoded, as: UTF8.self), again, invalid)
    }

    // MARK: Splitting at the delimiters

    static func split(_ b: [UInt8]) -> Parts? {
        var p = Parts()
        let end = b.count
        guard end > 0 else { return p }
        var i = 0
        // Scheme: what comes before the first ":", unless one of "/?#[]@"
        // comes first (then it is a relative reference).
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: ":") {
                p.scheme = 0 ..< i
                i += 1
                if i == end {
                    guard validScheme(b[0 ..< i - 1]) else { return nil }
                    p.path = end ..< end
                    return p
                }
                break
            } else if c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
                        || c == UInt8(ascii: "[") || c == UInt8(ascii: "]") || c == UInt8(ascii: "@") {
                i = 0
                break
            }
            i += 1
        }
        if let scheme = p.scheme, !validScheme(b[scheme]) { return nil }
        if i == end { i = 0 }

        // Authority: after "//", up to "/", "?" or "#".
        if i + 1 < end && b[i] == UInt8(ascii: "/") && b[i + 1] == UInt8(ascii: "/") {
            i += 2
            let start = i
            while i < end && b[i] != UInt8(ascii: "/") && b[i] != UInt8(ascii: "?") && b[i] != UInt8(ascii: "#") { i += 1 }
            if start == i {
                p.host = start ..< start
            } else {
                guard splitAuthority(b, start ..< i, into: &p) else { return nil }
                if let port = p.port, !b[port].allSatisfy(isDigit), !schemeIgnoresPort(b, p.scheme) { return nil }
            }
        }

        // Path, then "?" query, then "#" fragment.
        let pathStart = i
        while i < end && b[i] != UInt8(ascii: "?") && b[i] != UInt8(ascii: "#") { i += 1 }
        p.path = pathStart ..< i
        guard i < end else { return p }
        if b[i] == UInt8(ascii: "?") {
            let queryStart = i + 1
            if let hash = b[queryStart...].firstIndex(of: UInt8(ascii: "#")) {
                p.query = queryStart ..< hash
                p.fragment = hash + 1 ..< end
            } else {
                p.query = queryStart ..< end
            }
        } else {
            p.fragment = i + 1 ..< end
        }
        return p
    }

    /// [user[:password]@]host[:port]; the last "@" ends the user information.
    private static func splitAuthority(_ b: [UInt8], _ authority: Range<Int>, into p: inout Parts) -> Bool {
        var hostStart = authority.lowerBound
        var hostEnd = authority.upperBound
        if let at = b[authority].lastIndex(of: UInt8(ascii: "@")) {
            if let colon = b[authority.lowerBound ..< at].firstIndex(of: UInt8(ascii: ":")) {
                p.user = authority.lowerBound ..< colon
                p.password = colon + 1 ..< at
            } else {
                p.user = authority.lowerBound ..< at
            }
            hostStart = at + 1
        }
        if hostStart != authority.upperBound && b[hostStart] == UInt8(ascii: "["),
           let close = b[hostStart ..< authority.upperBound].firstIndex(of: UInt8(ascii: "]")) {
            p.isIPLiteral = true
            hostEnd = close + 1
            if hostEnd != authority.upperBound {
                guard b[hostEnd] == UInt8(ascii: ":") else { return false }
                p.port = hostEnd + 1 ..< authority.upperBound
            }
        } else if let colon = b[hostStart ..< authority.upperBound].firstIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
            p.port = colon + 1 ..< authority.upperBound // present even when empty
        }
        p.host = hostStart ..< hostEnd
        return true
    }

    /// A scheme starts with a letter; an empty one is allowed.
    private static func validScheme(_ s: ArraySlice<UInt8>) -> Bool {
        guard let first = s.first else { return true }
        return first >= UInt8(ascii: "A") && s.allSatisfy(Allowed.scheme.contains)
    }

    /// `addressbook:` URLs may carry anything as their port.
    private static func schemeIgnoresPort(_ b: [UInt8], _ scheme: Range<Int>?) -> Bool {
        guard let scheme else { return false }
        return b[scheme].map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 } == Array("addressbook".utf8)
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    // MARK: Validating

    private static func invalidComponents(_ b: [UInt8], _ p: Parts) -> Component.Set {
        var invalid: Component.Set = []
        if let r = p.user, !valid(b[r], .userinfo) { invalid.insert(.user) }
        if let r = p.password, !valid(b[r], .userinfo) { invalid.insert(.password) }
        if let r = p.host, !validHost(b[r], knownIPLiteral: p.isIPLiteral) { invalid.insert(.host) }
        if !valid(b[p.path], .path) { invalid.insert(.path) }
        if let r = p.query, !valid(b[r], .query) { invalid.insert(.query) }
        if let r = p.fragment, !valid(b[r], .query) { invalid.insert(.fragment) }
        return invalid
    }

    /// Every character allowed, and with `percent`, `%` followed by two
    /// hexadecimal digits.
    private static func valid(_ s: ArraySlice<UInt8>, _ allowed: Allowed, percent: Bool = true) -> Bool {
        guard percent else { return s.allSatisfy(allowed.contains) }
        var hexDigitsDue = 0
        for c in s {
            if c >= 128 { return false }
            if c == UInt8(ascii: "%") {
                guard hexDigitsDue == 0 else { return false }
                hexDigitsDue = 2
            } else if !allowed.contains(c) {
                return false
            } else if hexDigitsDue > 0 {
                guard hexValue(c) != nil else { return false }
                hexDigitsDue -= 1
            }
        }
        return hexDigitsDue == 0
    }

    private static func looksLikeIPLiteral(_ h: ArraySlice<UInt8>) -> Bool {
        h.first == UInt8(ascii: "[") && h.count > 1 && h.last == UInt8(ascii: "]")
    }

    private static func validHost(_ h: ArraySlice<UInt8>, knownIPLiteral: Bool) -> Bool {
        knownIPLiteral || looksLikeIPLiteral(h) ? validIPLiteral(h) : valid(h, .host)
    }

    /// `[address]` or `[address%25zone]` (RFC 6874).
    private static func validIPLiteral(_ h: ArraySlice<UInt8>) -> Bool {
        let inner = h.dropFirst().dropLast()
        guard let percent = h.firstIndex(of: UInt8(ascii: "%")) else { return valid(inner, .userinfo, percent: false) }
        guard percent + 2 < h.endIndex, h[percent + 1] == UInt8(ascii: "2"), h[percent + 2] == UInt8(ascii: "5") else {
            return false
        }
        return valid(inner[..<percent], .userinfo, percent: false) && valid(inner[zoneStart(h, percent)...], .zoneID)
    }

    /// Where the zone starts after "%25": after the "5" and, as Foundation
    /// steps over it by Character, any combining marks that follow it.
    private static func zoneStart(_ h: ArraySlice<UInt8>, _ percent: Int) -> Int {
        let text = String(decoding: h, as: UTF8.self)
        let utf8 = text.utf8
        let inner = text[utf8.index(after: utf8.startIndex) ..< utf8.index(utf8.startIndex, offsetBy: h.count - 1)]
        let five = utf8.index(utf8.startIndex, offsetBy: percent + 2 - h.startIndex)
        return h.startIndex + utf8.distance(from: utf8.startIndex, to: inner.index(after: five))
    }

    // MARK: Encoding

    /// The text again, each invalid component percent-encoded; a port
    /// written as the number it reads as (none when it reads as none).
    private static func encode(_ b: [UInt8], _ p: Parts, _ invalid: Component.Set) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(b.count * 3)
        func part(_ r: Range<Int>, _ component: Component.Set, _ allowed: Allowed) {
            if invalid.contains(component) { out += percentEncoded(b[r], allowed) } else { out += b[r] }
        }
        if let r = p.scheme { out += b[r]; out.append(UInt8(ascii: ":")) }
        if p.hasAuthority { out += [UInt8(ascii: "/"), UInt8(ascii: "/")] }
        if let r = p.user {
            part(r, .user, .userinfo)
            if let r = p.password { out.append(UInt8(ascii: ":")); part(r, .password, .userinfo) }
            out.append(UInt8(ascii: "@"))
        }
        if let r = p.host {
            if !invalid.contains(.host) {
                out += b[r]
            } else {
                guard let host = percentEncodedHost(b[r]) else { return nil }
                if p.isIPLiteral && !validHost(host[...], knownIPLiteral: true) { return nil }
                out += host
            }
        }
        if let r = p.port, let port = Int(String(decoding: b[r], as: UTF8.self)) {
            out.append(UInt8(ascii: ":"))
            out += Array(String(port).utf8)
        }
        if invalid.contains(.path) { out += percentEncodedPath(b[p.path]) } else { out += b[p.path] }
        if let r = p.query { out.append(UInt8(ascii: "?")); part(r, .query, .query) }
        if let r = p.fragment { out.append(UInt8(ascii: "#")); part(r, .fragment, .query) }
        return out
    }

    /// Each byte not allowed as `%XX` (uppercase hexadecimal), `%` included.
    private static func percentEncoded(_ s: ArraySlice<UInt8>, _ allowed: Allowed) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.count * 3)
        for c in s {
            if allowed.contains(c) { out.append(c) } else { out += [UInt8(ascii: "%"), hex[Int(c >> 4)], hex[Int(c & 0xF)]] }
        }
        return out
    }

    /// A reg-name host encoded whole; an IP literal only in its zone
    /// ("%" becomes "%25"), and refused if its address is invalid.
    private static func percentEncodedHost(_ h: ArraySlice<UInt8>) -> [UInt8]? {
        guard looksLikeIPLiteral(h) else { return percentEncoded(h, .host) }
        guard let percent = h.firstIndex(of: UInt8(ascii: "%")) else {
            return validIPLiteral(h) ? Array(h) : nil
        }
        return Array(h[..<percent]) + percentEncoded(h[percent ..< h.endIndex - 1], .zoneID) + [UInt8(ascii: "]")]
    }

    private static func percentEncodedPath(_ path: ArraySlice<UInt8>) -> [UInt8] {
        guard let slash = path.firstIndex(of: UInt8(ascii: "/")) else { return percentEncoded(path, .firstSegment) }
        if slash == path.startIndex { return percentEncoded(path, .path) }
        return percentEncoded(path[..<slash], .firstSegment) + percentEncoded(path[slash...], .path)
    }
}
