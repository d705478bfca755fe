// SPDX-License-Identifier: MIT OR Apache-2.0

/// How long ago, as a person reads it: "12 s ago", "3 min ago", "5 h ago",
/// "2 days ago" (the `handoff` command's lists, the history's results).
public func agoText(_ seconds: Double) -> String {
    let s = Int(max(0, min(seconds, 1e12)).rounded())
    switch s {
    case ..<90: return tr("{seconds} s ago", ["seconds": "\(s)"])
    case ..<(90 * 60): return tr("{minutes} min ago", ["minutes": "\(Int((Double(s) / 60).rounded()))"])
    case ..<(36 * 3600): return tr("{hours} h ago", ["hours": "\(Int((Double(s) / 3600).rounded()))"])
    default: return tr("{days} days ago", ["days": "\(Int((Double(s) / 86400).rounded()))"])
    }
}
