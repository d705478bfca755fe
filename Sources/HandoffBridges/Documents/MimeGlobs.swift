// SPDX-License-Identifier: MIT OR Apache-2.0

/// A file's MIME type from its name, as shared-mime-info's `globs2` says
/// (`WEIGHT:TYPE:GLOB[:FLAGS]` lines; the `*.EXT` and literal globs, which
/// are nearly all of them), so that the receiver decides how a file it got
/// is opened from the file itself, never from what a peer said.
public struct MimeGlobs: Sendable {
    public static let maxBytes = 1 << 20
    public static let unknown = "application/octet-stream"

    private var byExtension: [String: (weight: Int, type: String)] = [:]
    private var byName: [String: (weight: Int, type: String)] = [:]

    public init() {}

    /// Adds a `globs2` file's lines (a later file does not override an
    /// earlier one at the same weight: XDG_DATA_DIRS order).
    public mutating func read(_ bytes: [UInt8]) {
        for line in bytes.prefix(Self.maxBytes).split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard fields.count >= 3, fields[0].first != UInt8(ascii: "#"),
                  let weight = Int(String(decoding: fields[0], as: UTF8.self)) else { continue }
            let type = String(decoding: fields[1], as: UTF8.self)
            let glob = String(decoding: fields[2], as: UTF8.self).lowercased()
            if glob.hasPrefix("*."), !glob.dropFirst(2).contains(where: { "*?[".contains($0) }) {
                let ext = String(glob.dropFirst(2))
                if (byExtension[ext]?.weight ?? -1) < weight { byExtension[ext] = (weight, type) }
            } else if !glob.contains(where: { "*?[".contains($0) }) {
                if (byName[glob]?.weight ?? -1) < weight { byName[glob] = (weight, type) }
            }
        }
    }

    /// The type of a file named `name` (the longest matching extension,
    /// `archive.tar.gz` before `.gz`), `unknown` when nothing matches.
    public func type(ofName name: String) -> String {
        let lower = name.lowercased()
        if let exact = byName[lower] { return exact.type }
        var rest = Substring(lower)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if let found = byExtension[String(rest)] { return found.type }
        }
        return Self.unknown
    }

    /// Types whose "opening" runs what is in the file (launchers, programs,
    /// archives a runtime executes): a document brought from another
    /// device is never opened as one of these.
    public static func runs(_ type: String) -> Bool {
        runnable.contains(type) || type.hasPrefix("application/x-executable") || type.hasSuffix("-executable")
            || type.hasSuffix("script") || type.hasPrefix("application/x-ms")
    }

    static let runnable: Set<String> = [
        "application/x-desktop", "application/x-executable", "application/x-sharedlib", "application/x-pie-executable",
        "application/x-shellscript", "application/x-java-archive", "application/x-java-jnlp-file", "application/java-archive",
        "application/vnd.appimage", "application/x-iso9660-appimage", "application/x-msdownload", "application/x-msi",
        "application/x-ms-dos-executable", "application/x-ms-shortcut", "application/vnd.microsoft.portable-executable",
        "application/x-perl", "application/x-ruby", "text/x-python", "text/x-python3", "application/x-python-code",
        "application/x-deb", "application/x-rpm", "application/vnd.flatpak.ref", "application/vnd.flatpak",
        "application/x-bat", "application/x-csh", "application/javascript", "text/javascript",
    ]
}
