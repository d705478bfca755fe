// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// needsSave: one coalesced save per dispatch, and a save right before an
/// activity is sent so the other device gets fresh state.
extension Application {
    /// The queued save: runs if needsSave is still set.
    func runPendingSave(_ activity: UserActivity) {
        state.withLock { _ = $0.pendingSaves.remove(ObjectIdentifier(activity)) }
        if activity.takeNeedsSave() {
            performSave(activity)
        } else if activity === currentActivity {
            offerCurrent()  // a fetch ran the save first; its offer waited for this
        }
    }

    /// Responders' `updateUserActivityState` in registration order, then
    /// the activity delegate's `userActivityWillSave`, then the app
    /// delegate's `didUpdate`. Main thread, no lock held.
    func performSave(_ activity: UserActivity) {
        let id = ObjectIdentifier(activity)
        let outer = state.withLock { $0.savingNow.insert(id).inserted }
        for responder in responders(of: activity) {
            // A callback may have removed (or re-pointed) a later responder.
            guard responder.application === self, responder.userActivity === activity else { continue }
            responder.updateUserActivityState(activity)
        }
        activity.delegate?.userActivityWillSave(activity)
        delegate.application(self, didUpdate: activity)
        if outer { state.withLock { _ = $0.savingNow.remove(id) } }
        readvertise(touched: activity === currentActivity)
    }
}
