// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Synchronization

/// Hands a continued activity to the responders that restore it (Apple:
/// the `restorationHandler` block of `continueUserActivity`). The app may
/// call it at once or keep it and call it later: at most once, on the
/// application's main thread. Dropping it unused is fine.
public final class RestorationHandler: Sendable {
    public let activity: UserActivity
    private let queue: HostQueue
    private let used = Atomic(false)

    init(activity: UserActivity, queue: HostQueue) {
        self.activity = activity
        self.queue = queue
    }

    /// Calls `restoreUserActivityState` on each responder, in order.
    /// - Throws: `.wrongThread` off the main thread, `.invalidState` on a
    ///   second call; either way nothing is called.
    public func restore(_ responders: [Responder]) throws(HandoffError) {
        guard queue.isOwnerThread else {
            throw HandoffError(.wrongThread, "the restoration handler runs on the application's main thread; call it from the thread that dispatches")
        }
        guard !used.exchange(true, ordering: .acquiringAndReleasing) else {
            throw HandoffError(.invalidState, "the restoration handler was already called; it restores once")
        }
        for responder in responders {
            responder.restoreUserActivityState(activity)
        }
    }

    /// Whether `restore` has been called.
    public var wasCalled: Bool { used.load(ordering: .acquiring) }
}
