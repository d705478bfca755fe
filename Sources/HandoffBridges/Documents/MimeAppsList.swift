// SPDX-License-Identifier: MIT OR Apache-2.0

/// The person's default app for a MIME type, from `mimeapps.list` (the
/// MIME Applications Associations specification): `[Default
/// Applications]` lines `text/plain=org.xfce.mousepad.desktop;…`. Read
/// line by line, not with the key-file lexer: its keys are MIME types
/// (`/`, `+`, `.`), which desktop-entry keys may not hold.
public enum MimeAppsList {
    public static let maxBytes = 256 << 10

    /// The desktop ids the file names as defaults for `mimeType`, in order.
    public static func defaults(_ bytes: [UInt8], mimeType: String) -> [String] {
        guard bytes.count <= maxBytes, let text = String(validating: bytes, as: UTF8.self) else { return [] }
        var inDefaults = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inDefaults = line.hasPrefix("[Default Applications]")
                continue
            }
            guard inDefaults, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingBlanks
            guard key == mimeType else { continue }
            return line[line.index(after: equals)...].split(separator: ";").map { String($0.trimmingBlanks) }
                .filter(DocumentActivityInfo.isDesktopID)
        }
        return []
    }
}

extension Substring {
    fileprivate var trimmingBlanks: Substring {
        var s = self.drop { $0 == " " || $0 == "\t" }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}
