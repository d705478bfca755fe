// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Starts a `DBusActivatable=true` app for the launcher: the agent's D-Bus
/// part (`ApplicationActivator`, conforming in
/// ApplicationActivator+DBusActivating.swift) calls
/// `org.freedesktop.Application.Activate` at the app's
/// `DBusApplicationName`, with the activation token as platform data when
/// there is one; the bus starts the app if it is not running.
///
/// A protocol so the launcher is tested without a bus and built (for the
/// fuzz target) without sd-bus.
public protocol DBusActivating {
    /// Sends the call. `completion` hears whether the app answered; it runs
    /// on the bus's loop thread, inside `SessionBus.process()`.
    /// - Throws: at once when the call cannot be sent:
    ///   `.connectionUnavailable` without a session bus, `.handoffFailed`
    ///   otherwise.
    func activateApplication(desktopID: String, activationToken: String?,
                             completion: @escaping (Result<Void, HandoffError>) -> Void) throws(HandoffError)
}
