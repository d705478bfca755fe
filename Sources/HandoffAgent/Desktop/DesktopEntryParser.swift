// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Reads a desktop entry file: the key-file syntax (`KeyFileParser`, in
/// HandoffModel, shared with the settings file) with the Desktop Entry
/// Specification's one addition: the first group must be
/// `[Desktop Entry]` (only comments before it), and a file without it is
/// not a desktop entry.
public struct DesktopEntryParser: Sendable {
    /// Bounds checked while reading (real entries are a few KiB; one with
    /// every translation of several actions stays under 64 KiB).
    public typealias Limits = KeyFileParser.Limits

    static let kind = KeyFileParser.Kind(singular: "desktop entry", plural: "desktop entries",
                                         firstGroup: DesktopEntry.mainGroup)

    let source: String
    let limits: Limits

    public init(source: String, limits: Limits = .default) {
        self.source = source
        self.limits = limits
    }

    public func parse(_ bytes: [UInt8]) throws(HandoffError) -> DesktopEntry {
        let file = try KeyFileParser(source: source, kind: Self.kind, limits: limits).parse(bytes)
        return DesktopEntry(source: file.source, groupNames: file.groupNames, groups: file.groups)
    }
}
