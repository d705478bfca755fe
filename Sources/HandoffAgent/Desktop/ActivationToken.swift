// SPDX-License-Identifier: MIT OR Apache-2.0
/// The token that lets a launched app take the focus (docs/agent.md §5):
/// the notification server sends it (`ActivationToken`, Desktop
/// Notifications spec 1.2) just before `ActionInvoked`, and the agent hands
/// it on: `XDG_ACTIVATION_TOKEN` (Wayland xdg-activation) and
/// `DESKTOP_STARTUP_ID` (X11 startup notification) in an `Exec` program's
/// environment, `activation-token` and `desktop-startup-id` in D-Bus
/// platform data.
///
/// Only a token of 1–256 bytes without control characters is used: a
/// longer one is not cut (a cut token is no token), it is dropped.
public enum ActivationToken {
    public static var maxBytes: Int { 256 }
    /// The environment variables that carry it.
    public static let variables = ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"]

    /// `token` when it may be passed on, else nil.
    public static func checked(_ token: String?) -> String? {
        guard let token, !token.isEmpty, token.utf8.count <= maxBytes,
              !token.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return token
    }

    /// The environment for a launched program: `base` ("NAME=value"
    /// entries) without any token the agent itself inherited (it was for
    /// the agent, and is used up), plus both variables set to `token` when
    /// there is one.
    public static func environment(_ base: [String], token: String?) -> [String] {
        var out = base.filter { entry in !variables.contains { entry.hasPrefix($0 + "=") } }
        if let token = checked(token) { out += variables.map { "\($0)=\(token)" } }
        return out
    }
}
