// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Opens an activity's web page in the person's browser with `xdg-open`
/// (docs/agent.md §5), detached like an app, never through a shell.
///
/// Only what cannot surprise a browser or a launcher script is passed: an
/// absolute `http://` or `https://` URL (scheme in any case) with a
/// non-empty host, at most `maxLength` bytes, made of the characters RFC
/// 3986 allows (letters, digits, `-._~:/?#[]@!$&'()*+,;=` and `%` followed
/// by two hex digits). No space, quote, backslash, backtick, control or
/// non-ASCII character gets through.
public struct WebOpener {
    public static let maxLength = 8192
    public var searchPath: [String]

    public init(searchPath: [String] = XDGDataDirectories.current().searchPath) {
        self.searchPath = searchPath
    }

    /// `activationToken` (the person's click) reaches the browser through
    /// xdg-open's environment, as for any `Exec` (`ActivationToken`).
    /// - Returns: the pid of `xdg-open`.
    /// - Throws: `.invalidValue` for a URL refused above; `.handoffFailed`
    ///   when `xdg-open` is not installed or does not start.
    @discardableResult
    public func open(_ url: String, activationToken: String? = nil) throws(HandoffError) -> Int32 {
        try Self.check(url)
        guard let tool = ExecutableLookup.find("xdg-open", in: searchPath) else {
            throw HandoffError(.handoffFailed, "cannot open \(url): xdg-open is not installed (Debian: apt install xdg-utils)")
        }
        return try DetachedProcess.spawn(tool, ["xdg-open", url], directory: nil, activationToken: activationToken)
    }

    static let allowed: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8))

    /// Whether `open` would pass `url` on (the agent asks before it decides
    /// that the web page is the way to continue).
    /// - Throws: `.invalidValue` saying what is wrong.
    public static func check(_ url: String) throws(HandoffError) {
        func refuse(_ why: String) -> HandoffError {
            HandoffError(.invalidValue, "web page URL \(DesktopEntry.quoted(url)) \(why); only http(s) URLs are opened")
        }
        let bytes = Array(url.utf8)
        guard bytes.count <= maxLength else { throw refuse("is \(bytes.count) bytes, over \(maxLength)") }
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            throw refuse("is not http:// or https://")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        guard !host.isEmpty, !host.hasPrefix(":") else { throw refuse("has no host") }
        for (i, b) in bytes.enumerated() {
            guard allowed.contains(b) else { throw refuse("contains a character a URL may not hold unencoded (byte 0x\(String(b, radix: 16)) at \(i))") }
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else {
                    throw refuse("has a % not followed by two hex digits")
                }
            }
        }
    }

    private static func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }
}
