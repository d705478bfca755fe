// SPDX-License-Identifier: MIT OR Apache-2.0
/// A URL as the library carries it (web page and referrer URLs, URL values
/// in userInfo): an RFC 3986 URI reference, read as Foundation's
/// `URL(string:)` reads it, without linking Foundation into libhandoff.so.
///
/// Reading keeps the text when it is valid; otherwise each component with
/// a character RFC 3986 does not allow there is percent-encoded (its UTF-8
/// bytes as `%XX`), so `https://a/b c` reads as `https://a/b%20c`
/// (docs/PROTOCOL.md §2). Text that cannot be split into components (an
/// invalid scheme or port, a bad IP literal) and empty text are refused.
/// Hosts are percent-encoded, never converted to IDNA, as Foundation does
/// without FoundationInternationalization.
///
/// Two references are equal when their text is.
public struct URLReference: Sendable, Hashable, CustomStringConvertible {
    /// The text as read, invalid characters percent-encoded.
    public let absoluteString: String
    let parts: Parts
    /// Components that were percent-encoded while reading.
    let encoded: Component.Set

    public init?(string: String) {
        guard !string.isEmpty, let (text, parts, encoded) = Self.read(string) else { return nil }
        absoluteString = text
        self.parts = parts
        self.encoded = encoded
    }

    public var description: String { absoluteString }

    public static func == (a: URLReference, b: URLReference) -> Bool { a.absoluteString == b.absoluteString }
    public func hash(into hasher: inout Hasher) { hasher.combine(absoluteString) }

    /// The scheme as written (`https`), or nil for a relative reference.
    public var scheme: String? { parts.scheme.map(text) }

    /// Whether the URL names a user or password (`https://user:pass@host/`).
    public var hasCredentials: Bool { parts.user != nil || parts.password != nil }

    /// The host, percent-decoded, an IP literal without its brackets; nil
    /// without an authority, for an empty host alone (`https:///a`), or when
    /// the decoded bytes are not UTF-8. As Foundation's `URL.host`.
    public var host: String? {
        guard let range = parts.host else { return nil }
        if range.isEmpty && parts.user == nil && parts.password == nil && parts.port == nil { return nil }
        guard var decoded = Self.percentDecoded(Array(absoluteString.utf8)[range]) else { return nil }
        if decoded.starts(with: [0xEF, 0xBB, 0xBF]) { decoded.removeFirst(3) }
        guard String(validating: decoded, as: UTF8.self) != nil else { return nil }
        if parts.isIPLiteral { decoded = Array(decoded.dropFirst().dropLast()) }
        return String(decoding: decoded, as: UTF8.self)
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: Array(absoluteString.utf8)[range], as: UTF8.self)
    }

    /// The bytes `%XX` stand for; nil when a `%` is not followed by two
    /// hexadecimal digits.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] == UInt8(ascii: "%") else { out.append(bytes[i]); i += 1; continue }
            guard i + 2 < bytes.endIndex, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
            out.append(high << 4 | low)
            i += 3
        }
        return out
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
