// SPDX-License-Identifier: MIT OR Apache-2.0

/// `file:` URLs and the local paths they name: the one conversion every
/// part uses (documents, the MPRIS bridge, the document helper).
public enum FileURL {
    /// Whether `text` is a `file:` URL (scheme in any case).
    public static func isFileURL(_ text: String) -> Bool {
        text.utf8.count >= 5 && text.prefix(5).lowercased() == "file:"
    }

    /// `file:///a/b%20c` → `/a/b c`; `file://localhost/…` too. Nil for
    /// another host, a relative path, a query or fragment, a NUL, or bytes
    /// that are not UTF-8 once decoded.
    public static func path(of url: String) -> String? {
        guard isFileURL(url) else { return nil }
        var rest = Substring(url.dropFirst(5))
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            let host = rest[..<slash]
            guard host.isEmpty || host.lowercased() == "localhost" else { return nil }
            rest = rest[slash...]
        }
        guard rest.hasPrefix("/"), !rest.contains("?"), !rest.contains("#"),
              let decoded = percentDecode(rest) else { return nil }
        return decoded
    }

    /// An absolute path as a `file://` URL: bytes outside the unreserved
    /// set and `/` are percent-encoded (uppercase hex).
    public static func url(forPath path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array("file://".utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
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
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard rest.count >= 2, let hi = hexValue(rest.removeFirst()), let lo = hexValue(rest.removeFirst())
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
