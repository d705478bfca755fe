// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

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
    public static func filePath(_ url: String) -> String? { FileURL.path(of: url) }

    /// The path below `home`, with no `.`/`..` segment and no NUL; nil if outside.
    public static func relativeToHome(_ path: String, home: String) -> String? {
        FileURL.relative(path, below: home).flatMap(cleanRelative)
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
        FileURL.cleanRelative(relative, maxBytes: maxURLBytes)
    }

    /// A path as a file URL, bytes outside the unreserved set and `/` escaped.
    public static func fileURL(_ path: String) -> String { FileURL.url(forPath: path) }
}
