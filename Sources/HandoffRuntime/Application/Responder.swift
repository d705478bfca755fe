// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// An object whose state an activity captures and restores (Apple:
/// UIResponder / NSResponder's userActivity support). Subclass it, or use
/// the C ABI's callbacks. Register it with `Application.addResponder`.
///
/// When its activity is saved, the application calls
/// `updateUserActivityState` (add your state to the activity's userInfo);
/// when an activity is continued, a restoration handler calls
/// `restoreUserActivityState`. Both on the application's main thread.
open class Responder: @unchecked Sendable {
    // @unchecked: `links` is the only stored state, behind its lock.
    private let links = Locked(Links())

    private struct Links: @unchecked Sendable {
        var userActivity: UserActivity?
        weak var application: Application?
    }

    public init() {}

    /// The activity this responder contributes to; several responders may
    /// share one, and a responder may switch to another.
    public var userActivity: UserActivity? {
        get { links.withLock { $0.userActivity } }
        set {
            let app = links.withLock { l in
                l.userActivity = newValue
                return l.application
            }
            if let app, let newValue { app.adopt(newValue) }
        }
    }

    /// The application it is registered with, if any.
    public internal(set) var application: Application? {
        get { links.withLock { $0.application } }
        set { links.withLock { $0.application = newValue } }
    }

    /// Add this responder's state to the activity (e.g. `addUserInfoEntries`).
    open func updateUserActivityState(_ activity: UserActivity) {}

    /// Restore this responder's state from a continued activity.
    open func restoreUserActivityState(_ activity: UserActivity) {}
}
