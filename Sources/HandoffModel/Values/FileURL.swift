// SPDX-License-Identifier: MIT OR Apache-2.0

/// `file:` URLs of local paths and the paths they name: the one conversion
/// every part uses (the document helper, documents on the wire, the MPRIS
/// bridge). Paths are bytes (Linux names need not be UTF-8); the `String`
/// forms are for the parts that only handle UTF-8 names.
public enum FileURL {
    /// The userInfo key of a document's file URL (Apple's name).
    public static let documentURLKey = "NSUserActivityDocumentURLKey"
    /// The userInfo key under which the receiving engine says where each
    /// local file URL came from: `same`, `synced` or `brought`.
    public static let documentOriginsKey = "HandoffDocumentOrigins"

    /// `file://` and the absolute path, every byte escaped but the
    /// unreserved characters, the sub-delimiters, `:`, `@` and `/`: GLib's
    /// `g_filename_to_uri` writes the same text, so a URL from a GTK app's
    /// recently-used list compares equal.
    public static func url(forPath path: [UInt8]) -> URLReference {
        // Only ASCII is written, so the text is valid and reads as itself.
        URLReference(string: text(forPath: path))!
    }

    /// `url(forPath:)`'s text for a UTF-8 path.
    public static func url(forPath path: String) -> String {
        text(forPath: Array(path.utf8))
    }

    /// The absolute path a `file:` URL names, percent-decoded; nil for
    /// another scheme, a host other than none or `localhost`, a query or a
    /// fragment, a relative path or one holding a NUL.
    public static func path(of url: URLReference) -> [UInt8]? {
        guard url.scheme?.lowercased() == "file", url.parts.query == nil, url.parts.fragment == nil,
              !url.hasCredentials, url.parts.port == nil else { return nil }
        if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" { return nil }
        let bytes = Array(url.absoluteString.utf8)[url.parts.path]
        guard let decoded = URLReference.percentDecoded(bytes), decoded.first == UInt8(ascii: "/"),
              !decoded.contains(0) else { return nil }
        return decoded
    }

    /// `path(of:)` for URL text, as UTF-8 (nil when the name is not).
    public static func path(of url: String) -> String? {
        guard let reference = URLReference(string: url), let bytes = path(of: reference) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `text` is a `file:` URL (scheme in any case).
    public static func isFileURL(_ text: String) -> Bool {
        text.utf8.count >= 5 && text.prefix(5).lowercased() == "file:"
    }

    /// A relative path that cannot climb out of where it is joined: not
    /// empty, not absolute, no NUL, no empty, `.` or `..` component, at
    /// most `maxBytes` bytes and each component at most 255. Nil otherwise.
    public static func cleanRelative(_ relative: String, maxBytes: Int = 4096) -> String? {
        guard !relative.isEmpty, !relative.hasPrefix("/"), !relative.utf8.contains(0),
              relative.utf8.count <= maxBytes else { return nil }
        for part in relative.split(separator: "/", omittingEmptySubsequences: false) {
            if part.isEmpty || part == "." || part == ".." || part.utf8.count > 255 { return nil }
        }
        return relative
    }

    /// `path` below `base` as a relative path (see `cleanRelative`), or nil
    /// when it is not strictly below it.
    public static func relative(_ path: String, below base: String) -> String? {
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard !root.isEmpty, path.hasPrefix(root + "/") else { return nil }
        return cleanRelative(String(path.dropFirst(root.count + 1)))
    }

    /// Percent-decodes `text`; nil for a bad escape, a NUL or non-UTF-8 bytes.
    public static func percentDecode(_ text: Substring) -> String? {
        guard let bytes = URLReference.percentDecoded(Array(text.utf8)[...]), !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func text(forPath path: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file://".utf8)
        for byte in path {
            if byte < 0x80, kept.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let kept: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
}
