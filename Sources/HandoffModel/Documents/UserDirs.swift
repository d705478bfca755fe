// SPDX-License-Identifier: MIT OR Apache-2.0

/// Reads `user-dirs.dirs` (xdg-user-dirs): shell assignments such as
/// `XDG_DOWNLOAD_DIR="$HOME/Downloads"`, a value either `$HOME/…` or an
/// absolute path. `$HOME/` alone means the folder is not wanted.
public enum UserDirs {
    public static let maxBytes = 64 << 10

    /// The folder `key` (`XDG_DOWNLOAD_DIR`) names, or nil.
    public static func directory(_ key: String, in bytes: [UInt8], home: String) -> String? {
        guard bytes.count <= maxBytes, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var found: String?
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(key + "=") else { continue }
            var value = trimmed.dropFirst(key.count + 1)
            guard value.hasPrefix("\""), let close = value.dropFirst().firstIndex(of: "\"") else { continue }
            value = value[value.index(after: value.startIndex)..<close]
            var path: String
            if value.hasPrefix("$HOME") {
                let rest = value.dropFirst(5)
                guard rest.hasPrefix("/"), rest.contains(where: { $0 != "/" }) else { found = nil; continue }
                path = home + rest
            } else {
                path = String(value)
            }
            guard path.hasPrefix("/"), !path.contains("\\"), !path.contains("$") else { continue }
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            found = path
        }
        return found
    }
}
