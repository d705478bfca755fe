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
            // Team compared as the beacon carries it; types byte for byte (Manifest.declares).
            let continuable = remote.teamIdentifier == manifest.teamIdentifier && manifest.declares(remote.activityType)
            guard continuable || offered.webpageURL != nil else { return nil }
            offered.isWebOnly = !continuable
        }
        return offered
    }

    /// `url` if it is an http or https page (what a browser can open in
    /// its place), else nil.
    public static func webPage(_ url: URLReference?) -> URLReference? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return url
    }
}
