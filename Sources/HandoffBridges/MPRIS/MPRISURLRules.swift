// SPDX-License-Identifier: MIT OR Apache-2.0

/// Which track URLs may leave the device (docs/mpris.md "URL rules"), and
/// how a file under home travels: as the path relative to home, mapped to
/// the receiver's own home there.
public enum MPRISURLRules {
    public static let maxURLBytes = 4096

    public enum Offer: Equatable {
        /// Offer `url`; `homePath` for a file under home.
        case offer(url: String, homePath: String?)
        case refuse(String)
    }

    public static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let s = url[..<colon]
        guard let first = s.first, first.isASCII, first.isLetter,
              s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return s.lowercased()
    }

    public static func offer(_ url: String, home: String, playerSchemes: [String]) -> Offer {
        guard !url.isEmpty else { return .refuse("the player names no track URL") }
        guard url.utf8.count <= maxURLBytes else { return .refuse("the track URL is over \(maxURLBytes) bytes") }
        guard !url.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else { return .refuse("the track URL holds control characters") }
        guard let scheme = scheme(of: url) else { return .refuse("the track URL has no scheme") }
        switch scheme {
        case "http", "https":
            guard let rest = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(2).first,
                  !rest.isEmpty else { return .refuse("the track URL has no host") }
            if rest.contains("@") { return .refuse("the track URL carries credentials") }
            return .offer(url: url, homePath: nil)
        case "file":
            guard let path = filePath(url) else { return .refuse("the file URL is not a local absolute path") }
            guard let relative = relativeToHome(path, home: home) else {
                return .refuse("the file \(path) is not under the home directory")
            }
            return .offer(url: url, homePath: relative)
        default:
            guard playerSchemes.contains(scheme) else {
                return .refuse("the player does not list the scheme \(scheme) in SupportedUriSchemes")
            }
            return .offer(url: url, homePath: nil)
        }
    }

    /// `file:///a/b%20c` → `/a/b c`; `file://localhost/` too; another host: nil.
    public static func filePath(_ url: String) -> String? {
        var rest = Substring(url.dropFirst(5))  // "file:"
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            let host = rest[..<slash]
            guard host.isEmpty || host == "localhost" else { return nil }
            rest = rest[slash...]
        }
        guard rest.hasPrefix("/"), let decoded = percentDecode(rest) else { return nil }
        return decoded
    }

    /// The path below `home`, with no `.`/`..` segment and no NUL; nil if outside.
    public static func relativeToHome(_ path: String, home: String) -> String? {
        let base = home.hasSuffix("/") ? String(home.dropLast()) : home
        guard !base.isEmpty, path.hasPrefix(base + "/") else { return nil }
        let relative = String(path.dropFirst(base.count + 1))
        return cleanRelative(relative)
    }

    /// The receiver's side: `home_path` below its own home, or nil if it
    /// could climb out (absolute, `..`, empty segments, NUL).
    public static func mapToHome(_ homePath: String, home: String) -> String? {
        guard let relative = cleanRelative(homePath) else { return nil }
        let base = home.hasSuffix("/") ? String(home.dropLast()) : home
        guard !base.isEmpty else { return nil }
        return base + "/" + relative
    }

    public static func cleanRelative(_ relative: String) -> String? {
        guard !relative.isEmpty, !relative.hasPrefix("/"), !relative.contains("\0"), relative.utf8.count <= maxURLBytes else { return nil }
        for segment in relative.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty || segment == "." || segment == ".." { return nil }
        }
        return relative
    }

    /// A path as a file URL, bytes outside the unreserved set and `/` escaped.
    public static func fileURL(_ path: String) -> String {
        var out = "file://"
        for byte in path.utf8 {
            let c = Character(UnicodeScalar(byte))
            if byte < 0x80 && (c.isLetter || c.isNumber || "-._~/".contains(c)) {
                out.append(c)
            } else {
                let hex = Array("0123456789ABCDEF")
                out += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return out
    }

    public static func percentDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard iterator.count >= 2, let hi = hexValue(iterator.removeFirst()), let lo = hexValue(iterator.removeFirst())
                else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
