// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// A Handoff manifest installed beside the desktop entries:
/// `<data dir>/handoff/<bundle-id>.plist`, an Info.plist (XML or binary)
/// read with `Manifest(infoPlist:)` (`CFBundleIdentifier`,
/// `HandoffTeamIdentifier`, `NSUserActivityTypes`), plus
/// `HandoffDesktopEntry`: the desktop-file id of the entry that starts the
/// app (`org.example.Notes.desktop`; the `.desktop` may be left out).
///
/// The file name must be the bundle identifier the plist holds, so one
/// bundle id has one manifest per data directory, and the first data
/// directory wins as for desktop entries. At most `maxBytes` per file.
struct HandoffManifestFile: Sendable {
    static let desktopEntryKey = "HandoffDesktopEntry"
    static let maxBytes = 64 << 10
    /// Manifests looked at per data directory.
    static let maxFiles = 1024

    let path: String
    let manifest: Manifest
    /// A desktop-file id, always ending in `.desktop`.
    let desktopID: String

    /// - Throws: `.io` or `.malformedData`, the message starting with the path.
    init(path: String) throws(HandoffError) {
        let bytes = try BoundedFile.read(path, maxBytes: Self.maxBytes)
        do {
            manifest = try Manifest(infoPlist: bytes)
        } catch {
            var message = error.message
            if message.hasPrefix("Info.plist: ") { message.removeFirst("Info.plist: ".count) }
            throw HandoffError(error.code, "\(path): \(message)")
        }
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        guard fileName == manifest.bundleIdentifier + ".plist" else {
            throw HandoffError(.malformedData, "\(path): its CFBundleIdentifier is \(DesktopEntry.quoted(manifest.bundleIdentifier)); the file must be named \(manifest.bundleIdentifier).plist")
        }
        // Read as the manifest was: it loaded, so this cannot fail.
        let plist = try? PropertyListFile.decode(bytes).value
        guard case .dictionary(let keys)? = plist, case .string(var id)? = keys[Self.desktopEntryKey] else {
            throw HandoffError(.malformedData, "\(path): no \(Self.desktopEntryKey) string; name the app's desktop entry, e.g. <key>\(Self.desktopEntryKey)</key><string>\(manifest.bundleIdentifier).desktop</string>")
        }
        if !id.hasSuffix(".desktop") { id += ".desktop" }
        guard !id.contains("/"), id.count > ".desktop".count else {
            throw HandoffError(.malformedData, "\(path): \(Self.desktopEntryKey) \(DesktopEntry.quoted(id)) is not a desktop-file id (a file name such as \(manifest.bundleIdentifier).desktop; a/b.desktop is a-b.desktop)")
        }
        self.path = path
        self.desktopID = id
    }
}
