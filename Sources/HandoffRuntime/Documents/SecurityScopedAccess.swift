// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Apple's startAccessingSecurityScopedResource for a continued document's
/// `file:` URL: the path the app may open. Outside a Flatpak sandbox the
/// app reads the person's files as they are, so the URL's own path is the
/// answer and stopping is nothing. Inside one only a process outside the
/// sandbox can add the file to the document portal for the app: the agent
/// does (GRANT and REVOKE, docs/agent.md §3), for documents it delivered to
/// this app; an app whose continuity is embedded cannot.
public enum SecurityScopedAccess {
    /// What an app in a sandbox hears without an agent.
    public static let needsAgent = HandoffError(.invalidState,
        "inside a Flatpak sandbox a continued document is opened through the document portal, which the handoff agent asks for: start continuity in agent mode with the agent running (handoff agent, the app given --filesystem=xdg-run/handoff), or give the app the file's folder (flatpak override --filesystem=...)")

    /// How long a grant may take at most: the agent's client answers within
    /// its request timeout, this only bounds the wait if it did not.
    static let longestWait = 60.0

    /// The path to open for `url`: its own path outside a sandbox, else
    /// the one the agent had the document portal give (blocking until the
    /// agent answers).
    /// - Throws: `.invalidArgument` for anything but a `file:` URL of an
    ///   absolute local path; inside a Flatpak sandbox, `.invalidState`
    ///   without an agent and the agent's refusal otherwise.
    public static func start(_ url: String, service: (any ContinuityService)? = nil,
                             root: String = "/") throws(HandoffError) -> [UInt8] {
        let path = try localPath(url)
        guard isFlatpakSandbox(root: root) else { return path }
        guard let service else { throw needsAgent }
        return try wait { service.grantDocumentAccess(url, completion: $0) }
    }

    /// Ends what `start` began: nothing outside a sandbox; inside one, the
    /// agent revokes the app's access (when no other start of the same URL
    /// remains).
    /// - Throws: `.invalidArgument` as `start`; inside a sandbox as `start`.
    public static func stop(_ url: String, service: (any ContinuityService)? = nil,
                            root: String = "/") throws(HandoffError) {
        _ = try localPath(url)
        guard isFlatpakSandbox(root: root) else { return }
        guard let service else { throw needsAgent }
        try wait { service.revokeDocumentAccess(url, completion: $0) }
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

    /// Runs `ask` and waits for its completion, which runs on another thread.
    private static func wait<T: Sendable>(_ ask: (@escaping @Sendable (Result<T, HandoffError>) -> Void) -> Void) throws(HandoffError) -> T {
        let answer = Awaitable<Result<T, HandoffError>?>(nil)
        ask { result in answer.update { $0 = result } }
        let result = answer.wait(until: { $0 != nil }, seconds: longestWait) { value, _ in value }
        guard let result else { throw HandoffError(.timedOut, "the handoff agent did not answer within \(Int(longestWait)) s") }
        return try result.get()
    }
}
