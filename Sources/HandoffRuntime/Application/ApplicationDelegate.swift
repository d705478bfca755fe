// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The application's Handoff callbacks (Apple: UIApplicationDelegate /
/// NSApplicationDelegate). All run on the application's main thread, inside
/// `dispatch()`. For each `willContinue`, exactly one of `continue` or
/// `didFailToContinue` follows.
public protocol ApplicationDelegate: AnyObject {
    /// The person chose to continue an activity of this type; the payload
    /// is on its way. Return true if the app shows its own progress UI.
    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool

    /// The activity arrived. Restore state, or pass responders to
    /// `restorationHandler` (now or later, once, on the main thread).
    /// Return true if the app handled it; the sender then hears it was
    /// continued.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool

    /// The activity could not be continued; `error` is one of 4608-4611.
    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError)

    /// An activity the app holds was updated by a save.
    func application(_ application: Application, didUpdate userActivity: UserActivity)

    /// Another device of the account offers an activity this app can
    /// continue (or, when `isWebOnly`, open as a web page): show it.
    func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity)
    /// Its title or other details changed.
    func application(_ application: Application, remoteActivityWasUpdated remote: RemoteActivity)
    /// It is no longer offered.
    func application(_ application: Application, remoteActivityWasWithdrawn remote: RemoteActivity)

    /// The person continued a web-only activity: open its page. The default
    /// runs `xdg-open URL` when xdg-open is installed.
    func application(_ application: Application, openWebpage url: URLReference, for remote: RemoteActivity)
}

extension ApplicationDelegate {
    public func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool { false }
    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: RestorationHandler) -> Bool { false }
    public func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                            error: HandoffError) {}
    public func application(_ application: Application, didUpdate userActivity: UserActivity) {}
    public func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) {}
    public func application(_ application: Application, remoteActivityWasUpdated remote: RemoteActivity) {}
    public func application(_ application: Application, remoteActivityWasWithdrawn remote: RemoteActivity) {}
    public func application(_ application: Application, openWebpage url: URLReference, for remote: RemoteActivity) {
        WebFallback.open(url)
    }
}
