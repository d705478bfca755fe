// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Who an endpoint is, as far as other devices' activities go.
public enum ActivityAudience: Sendable, Equatable {
    /// An application: offered its team's activities of the types it
    /// declares, and others only for their web page.
    case application(Manifest)
    /// Sees every activity of the account, whatever its team and type, each
    /// as continuable (`isWebOnly` false: an observer fetches any payload,
    /// e.g. `handoff continue` printing it). Whether an app of this device
    /// could continue it is for the observer to judge from the activity's
    /// `teamIdentifier` and `activityType`; `webpageURL` is there when the
    /// advert has an http(s) one. Used by the agent and the `handoff`
    /// command (docs/agent.md §2).
    case observer
}

/// The per-endpoint half of gating (PROTOCOL §7 "Gating", rules 3–5): what
/// one endpoint is offered of an activity another device offers. Rules 1–2
/// (a send-only device is offered nothing; nothing expired) hold for the
/// whole device and are applied before, once, by the engine's table: the
/// `remote` given here already passed them. Pure.
public enum ActivityGate {
    /// The activity as `audience` is offered it, or nil when it is not.
    /// `remote` is ungated: any team and type, `webpageURL` only if http(s),
    /// `isWebOnly` ignored (it is decided here).
    public static func offer(_ remote: RemoteActivity, to audience: ActivityAudience) -> RemoteActivity? {
        var offered = remote
        offered.webpageURL = webPage(remote.webpageURL)
        switch audience {
        case .observer:
            offered.isWebOnly = false
        case .application(let manifest):
            let continuable = match(remote, manifest) != nil
            guard continuable || offered.webpageURL != nil else { return nil }
            offered.isWebOnly = !continuable
        }
        return offered
    }

    /// Why `manifest`'s app may continue `remote` (rule 3), or nil.
    public enum Match: Sendable, Equatable {
        /// Its team, and a type it declares.
        case declared
        /// A browsing-web page on a domain it claims, whatever the team.
        case webDomain
    }

    /// Apple's type for a web page a browser shows.
    public static let browsingWebType = "NSUserActivityTypeBrowsingWeb"

    /// Rule 3: the sender's team and a declared type (team compared as the
    /// beacon carries it; types byte for byte, Manifest.declares), or a
    /// browsing-web page on a claimed domain.
    public static func match(_ remote: RemoteActivity, _ manifest: Manifest) -> Match? {
        if remote.teamIdentifier == manifest.teamIdentifier && manifest.declares(remote.activityType) { return .declared }
        if claimedPage(remote, by: manifest) { return .webDomain }
        return nil
    }

    /// Whether `remote` is a browsing-web activity whose http(s) page is
    /// on a domain `manifest` claims.
    public static func claimedPage(_ remote: RemoteActivity, by manifest: Manifest) -> Bool {
        guard !manifest.webDomains.isEmpty, remote.activityType.utf8.elementsEqual(browsingWebType.utf8),
              let host = webPage(remote.webpageURL)?.host else { return false }
        return manifest.claims(host: host)
    }

    /// `url` if it is an http or https page (what a browser can open in
    /// its place), else nil.
    public static func webPage(_ url: URLReference?) -> URLReference? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return url
    }
}
