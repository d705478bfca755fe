// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity

/// One of the account's other devices, as the tray lists it.
struct TrayDevice: Equatable {
    var name: String
    var online: Bool
    /// Seconds since it was last heard (nil: unknown).
    var lastSeenSecondsAgo: Double?

    /// "B — online", "B — offline, last seen 5 min ago".
    var label: String {
        if online { return "\(name) — online" }
        guard let ago = lastSeenSecondsAgo else { return "\(name) — offline" }
        return "\(name) — offline, last seen \(Self.describe(ago))"
    }

    static func describe(_ seconds: Double) -> String {
        switch seconds {
        case ..<60: "just now"
        case ..<3600: "\(Int(seconds / 60)) min ago"
        case ..<86400: "\(Int(seconds / 3600)) h ago"
        default: "\(Int(seconds / 86400)) d ago"
        }
    }
}

extension AgentServer {
    /// The account's other devices for the tray's menu. Today: what the
    /// engine's status knows (verified devices heard recently count as
    /// online). The persistent roster (online / last seen) replaces this
    /// one function. Loop thread.
    func trayDevices() -> [TrayDevice] {
        engine.status.remotes.filter(\.verified).map { remote in
            TrayDevice(name: remote.name, online: remote.secondsSinceHeard < Self.onlineWithinSeconds,
                       lastSeenSecondsAgo: remote.secondsSinceHeard)
        }
    }

    /// A device heard within this long counts as online in the tray.
    static var onlineWithinSeconds: Double { 120 }
}
