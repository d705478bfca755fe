// SPDX-License-Identifier: MIT OR Apache-2.0

/// The rules the places' readers share: which roots can travel, and how a
/// configured folder's path is made absolute.
public enum DocumentRoots {
    /// A root the wire carries (docs/documents.md §3): 1–255 bytes of
    /// UTF-8 without control characters.
    public static func isWireRoot(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// `~` and `~/…` expanded against `home`; trailing `/` dropped (but
    /// `/` itself); nil unless the result is absolute and free of NUL.
    public static func expand(_ path: String, home: String?) -> String? {
        var full = path
        if path == "~" || path.hasPrefix("~/") {
            guard let home, home.hasPrefix("/") else { return nil }
            full = home + path.dropFirst()
        }
        guard full.hasPrefix("/"), !full.utf8.contains(0) else { return nil }
        while full.count > 1, full.hasSuffix("/") { full.removeLast() }
        return full
    }
}
