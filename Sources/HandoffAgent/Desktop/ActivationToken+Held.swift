// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

extension ActivationToken {
    /// A token the desktop handed over for the event that follows it
    /// (docs/agent.md §15 "Tokens end to end"): Plasma's tray calls
    /// `ProvideXdgActivationToken` just before `Activate` or a menu event,
    /// a notification server sends `ActivationToken` just before
    /// `ActionInvoked`. One token, used once, dropped after `lifetime`
    /// seconds: a token is the compositor's permission for one focus
    /// change, and one left over must not raise an app the person chose
    /// later, or through another surface. It is given only to the event
    /// of the bus client that handed it over (Plasma's tray host, KRunner):
    /// another client's call right after cannot spend it. Not thread-safe
    /// (each owner's loop).
    public struct Held: Sendable {
        /// Seconds a kept token waits for its event.
        public static var lifetime: Double { 10 }

        private var token: String?
        private var source = ""
        private var deadline = 0.0

        public init() {}

        /// Keeps `token` from `source` (the bus client's unique name; ""
        /// where the source is fixed, a notification server's signal) for
        /// the next event; a newer one replaces it. One that may not be
        /// passed on (`ActivationToken.checked`) leaves none kept: it was
        /// meant for that event, and no older one is.
        public mutating func keep(_ token: String, from source: String = "", now: Double = monotonicSeconds()) {
            self.token = ActivationToken.checked(token)
            self.source = source
            deadline = now + Self.lifetime
        }

        /// The token for the event `source` causes now, when that source
        /// kept one less than `lifetime` seconds ago; none is kept
        /// afterwards, whoever asked.
        public mutating func take(from source: String = "", now: Double = monotonicSeconds()) -> String? {
            defer { token = nil }
            return now < deadline && source == self.source ? token : nil
        }

        /// Whether a token is kept and not yet too old.
        public func isHeld(now: Double = monotonicSeconds()) -> Bool { token != nil && now < deadline }
    }
}
