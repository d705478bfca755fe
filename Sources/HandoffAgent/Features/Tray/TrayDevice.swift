// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel

/// One of the account's other devices, as the tray lists it.
struct TrayDevice: Equatable {
    var name: String
    var online: Bool
    /// Seconds since it was last heard (nil: unknown).
    var lastSeenSecondsAgo: Double?

    /// "B — online", "B — offline, last seen 5 min ago".
    var label: String {
        if online { return tr("{device} — online", ["device": name]) }
        guard let ago = lastSeenSecondsAgo else { return tr("{device} — offline", ["device": name]) }
        return tr("{device} — offline, last seen {ago}", ["device": name, "ago": Self.describe(ago)])
    }

    static func describe(_ seconds: Double) -> String {
        switch seconds {
        case ..<60: tr("just now")
        case ..<3600: tr("{minutes} min ago", ["minutes": "\(Int(seconds / 60))"])
        case ..<86400: tr("{hours} h ago", ["hours": "\(Int(seconds / 3600))"])
        default: tr("{days} d ago", ["days": "\(Int(seconds / 86400))"])
        }
    }
}

extension AgentServer {
    /// This device's name as the others hear it now (renamed while the
    /// agent runs: `DeviceNameWatch`).
    var deviceName: String { engine.deviceName }

    /// This device as WELCOME and STATUS say it: its current name.
    var currentDevice: DeviceIdentity {
        var device = identity.device
        device.name = engine.deviceName
        return device
    }
}
