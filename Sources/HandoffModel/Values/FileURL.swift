// SPDX-License-Identifier: MIT OR Apache-2.0
/// `file:` URLs of local paths: what the document helper puts under
/// `NSUserActivityDocumentURLKey`, and what `handoff_url_start_accessing`
/// reads back. Paths are bytes (Linux names need not be UTF-8).
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
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file://".utf8)
        for byte in path {
            if byte < 0x80, kept.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        // Only ASCII was written, so the text is valid and reads as itself.
        return URLReference(string: String(decoding: out, as: UTF8.self))!
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

    private static let kept: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
}
