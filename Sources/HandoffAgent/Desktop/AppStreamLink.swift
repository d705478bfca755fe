// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The "Install" of a "No app here continues …" notice
/// (docs/agent.md §6): `appstream://<id>` opened through the desktop's
/// handler (`xdg-open`, which hands it to the software centre: GNOME
/// Software, KDE Discover), for the sending app's bundle identifier.
///
/// Offered only when the bundle id looks like an AppStream component id:
/// reverse-DNS, 2–255 bytes of `A-Za-z0-9._-`, at least two non-empty
/// dot-separated elements, the first not starting with a digit. Whether
/// the catalogue knows it is the software centre's to say: reading the
/// catalogue (swcatalog, app-info) would cost a parse of megabytes on
/// every offer for a case a person meets rarely.
public enum AppStreamLink {
    public static var maxBytes: Int { 255 }

    /// `appstream://<bundle>` when `bundle` looks like a component id, else nil.
    public static func url(for bundle: String) -> String? {
        let bytes = Array(bundle.utf8)
        guard bytes.count >= 3, bytes.count <= maxBytes,
              bytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F }),
              let first = bytes.first, !(first >= 0x30 && first <= 0x39) else { return nil }
        let elements = bundle.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 2, elements.allSatisfy({ !$0.isEmpty }) else { return nil }
        return "appstream://" + bundle
    }
}

extension WebOpener {
    /// Opens the software centre at the component `bundle` (see
    /// `AppStreamLink`), detached, with the click's activation token.
    /// - Throws: `.invalidValue` for an id that is no component id;
    ///   `.handoffFailed` when `xdg-open` is missing or does not start.
    @discardableResult
    public func openAppStream(_ bundle: String, activationToken: String? = nil) throws(HandoffError) -> Int32 {
        guard let url = AppStreamLink.url(for: bundle) else {
            throw HandoffError(.invalidValue, "\(DesktopEntry.quoted(bundle)) is not an AppStream component id")
        }
        guard let tool = ExecutableLookup.find("xdg-open", in: searchPath) else {
            throw HandoffError(.handoffFailed, "cannot open \(url): xdg-open is not installed (Debian: apt install xdg-utils)")
        }
        return try DetachedProcess.spawn(tool, ["xdg-open", url], directory: nil, activationToken: activationToken)
    }
}
