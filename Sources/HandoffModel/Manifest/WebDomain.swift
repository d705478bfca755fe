// SPDX-License-Identifier: MIT OR Apache-2.0
/// A web domain an app claims (Apple's associated domains): `example.com`
/// matches that host only, `*.example.com` every host under it but not
/// `example.com` itself (the dot after the star is Apple's rule). Stored in
/// lowercase; hosts are compared in lowercase (docs/agent.md §13).
public struct WebDomain: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The host part, lowercase, without the `*.`.
    public let host: String
    /// Written `*.host`: every host under it.
    public let isWildcard: Bool

    /// Longest host name (RFC 1035), and longest label.
    public static let maxHostBytes = 253
    static let maxLabelBytes = 63

    /// - Throws: `.invalidValue` naming what is wrong: empty, a scheme,
    ///   path or port written in, a character other than letters, digits,
    ///   `-` and dots, an empty or over-long label, a star anywhere but
    ///   as `*.` in front.
    public init(_ text: String) throws(HandoffError) {
        var rest = Substring(text)
        let wildcard = rest.hasPrefix("*.")
        if wildcard { rest = rest.dropFirst(2) }
        let host = String(rest).lowercased()
        guard !host.isEmpty else {
            throw HandoffError(.invalidValue, "a web domain is a host name such as example.com or *.example.com, not \(Identifier.quoted(text))")
        }
        guard host.utf8.count <= Self.maxHostBytes else {
            throw HandoffError(.invalidValue, "the web domain \(Identifier.quoted(text)) is longer than \(Self.maxHostBytes) bytes")
        }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= Self.maxLabelBytes else {
                throw HandoffError(.invalidValue,
                                   "the web domain \(Identifier.quoted(text)) has an empty or over-long part (each part between dots is 1–63 bytes)")
            }
            guard label.utf8.allSatisfy(Self.isHostByte), label.utf8.first != UInt8(ascii: "-"), label.utf8.last != UInt8(ascii: "-") else {
                throw HandoffError(.invalidValue,
                                   "the web domain \(Identifier.quoted(text)) is not a host name: write only the host (letters, digits, '-', dots; *. in front for every host under it), without scheme, path or port")
            }
        }
        self.host = host
        isWildcard = wildcard
    }

    private static func isHostByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-")
    }

    /// Whether a page on `host` belongs to this domain (`host` in any case;
    /// a trailing dot, as in `example.com.`, is the same host; a host of
    /// other bytes than a host name's matches nothing).
    public func matches(host other: String) -> Bool {
        var candidate = other.lowercased()
        if candidate.hasSuffix(".") { candidate.removeLast() }
        // Only a plain host name can be on a domain (not an IP literal,
        // nor bytes a browser would never send as a host).
        guard candidate.utf8.allSatisfy({ Self.isHostByte($0) || $0 == UInt8(ascii: ".") }) else { return false }
        guard isWildcard else { return candidate == host }
        return candidate.utf8.count > host.utf8.count + 1 && candidate.hasSuffix("." + host)
    }

    public var description: String { isWildcard ? "*." + host : host }
}
