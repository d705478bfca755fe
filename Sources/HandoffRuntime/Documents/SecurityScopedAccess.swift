// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Apple's startAccessingSecurityScopedResource for a continued document's
/// `file:` URL: the path the app may open. Outside a Flatpak sandbox the
/// app reads the person's files as they are, so the URL's own path is the
/// answer and stopping is nothing. Inside one the file has to be added to
/// the document portal by someone outside the sandbox (the agent); that is
/// not built yet, and the call says so rather than hand out a path the app
/// cannot open.
public enum SecurityScopedAccess {
    /// The path to open for `url`.
    /// - Throws: `.invalidArgument` for anything but a `file:` URL of an
    ///   absolute local path; `.invalidState` inside a Flatpak sandbox.
    public static func start(_ url: String, root: String = "/") throws(HandoffError) -> [UInt8] {
        let path = try localPath(url)
        if isFlatpakSandbox(root: root) {
            throw HandoffError(.invalidState, "opening a continued document through the document portal is not supported inside a Flatpak sandbox yet; give the app access to the file's folder (flatpak override --filesystem=...) or run it outside the sandbox")
        }
        return path
    }

    /// Ends what `start` began: nothing, outside a sandbox and inside one
    /// (where nothing was granted).
    /// - Throws: `.invalidArgument` as `start`.
    public static func stop(_ url: String) throws(HandoffError) {
        _ = try localPath(url)
    }

    /// True inside a Flatpak sandbox: Flatpak puts `/.flatpak-info` there.
    static func isFlatpakSandbox(root: String) -> Bool {
        access(root + (root.hasSuffix("/") ? "" : "/") + ".flatpak-info", F_OK) == 0
    }

    private static func localPath(_ text: String) throws(HandoffError) -> [UInt8] {
        guard let url = URLReference(string: text), let path = FileURL.path(of: url) else {
            throw HandoffError(.invalidArgument, "\(KeyFile.quoted(text)) is not a file: URL of a local path (file:///home/...); only documents' file URLs are accessed")
        }
        return path
    }
}
